// A pass writes its Lease before each recreation record is saved, listing the record among the recreations in
// progress, and after each is deleted, through the client-node adapter against the sandbox: the Lease lists a record
// before it exists and stops listing it once it is gone, two sets
// saving at once are both listed, and a pass that overran its Lease, taken over since, learns it (409) before writing a
// record the new holder would never know of.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { leaseOutstandingAnnotation } from '../../functions/adapters/kube/map-objects.ts';
import type { RecreationRecord } from '../../functions/domain/live-state.ts';
import { ClusterError } from '../../functions/engine/ports.ts';
import { LazyLease } from '../../functions/engine/lazy-lease.ts';
import { RecordKey } from '../../functions/engine/records/authenticity.ts';
import { passLedger, type RecordLedger } from '../../functions/engine/records/ledger.ts';
import { readOutstanding } from '../../functions/engine/records/outstanding.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';

const leaseType = mustResourceType('coordination.k8s.io/v1', 'Lease');
const key = RecordKey.fromText('k'.repeat(32), 'the test');

const sealed = (name: string, mac: string): RecreationRecord => ({
  namespace: 'db', recordNamespace: 'ops', recordName: `r-${name}`, ownerTarget: 't', statefulSetName: name, oldUid: 'u', target: {},
  updateRevision: undefined, mac,
});

describe('LazyLease before a record is saved', () => {
  let kube: KubeSandbox;
  let cluster: KubeCluster;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['ops'] } });
    cluster = new KubeCluster(kube.kubeConfig());
  });
  after(() => kube.close());

  function pass(name: string): { lease: LazyLease; ledger: RecordLedger; listed: () => string[]; version: () => string | undefined } {
    const place = { leaseNamespace: 'ops', leaseName: name, target: 't' };
    const ledger = passLedger(undefined, key, place, { ids: new Set() }, false);
    ledger.listedStateNamespace([]);
    const lease = new LazyLease({ cluster, holderIdentity: 'slow-pass', leaseDurationSeconds: 30 }, 'ops', name, undefined, ledger);
    const stored = (): ReturnType<KubeSandbox['store']['get']> => kube.store.get(leaseType, 'ops', name);
    return {
      lease, ledger,
      listed: () => [...readOutstanding(stored()?.metadata.annotations?.[leaseOutstandingAnnotation], key, place).ids].sort(),
      version: () => stored()?.metadata.resourceVersion,
    };
  }

  it('writes the Lease listing each record before it is saved, and unlisting it as soon as it was deleted', async () => {
    const { lease, ledger, listed, version } = pass('fenced');
    await lease.ensure();
    const taken = version();
    assert.deepEqual(listed(), []);
    ledger.saving(sealed('pg', 'mac-pg'));
    await lease.listOutstanding();
    assert.notEqual(version(), taken, 'a write for the save');
    assert.deepEqual(listed(), ['mac-pg'], 'listed before the ConfigMap exists');
    const fenced = version();
    await lease.listOutstanding();
    assert.equal(version(), fenced, 'nothing new to list: no write');
    ledger.deleted('ops', 'r-pg');
    await lease.listOutstanding();
    assert.deepEqual(listed(), [], 'unlisted before the release, which a timeout may never reach');
    assert.equal(kube.store.get(leaseType, 'ops', 'fenced')?.spec?.holderIdentity, 'slow-pass', 'still held');
    await lease.release(true);
    assert.deepEqual(listed(), []);
    assert.equal(kube.store.get(leaseType, 'ops', 'fenced')?.metadata.annotations?.['sts-volume-gitops.io/recreation-records'], 'none');
  });

  it('lists two records saved at once, whichever write carries them', async () => {
    const { lease, ledger, listed } = pass('concurrent');
    await lease.ensure();
    ledger.saving(sealed('pg', 'mac-pg'));
    const first = lease.listOutstanding();
    ledger.saving(sealed('redis', 'mac-redis'));
    await Promise.all([first, lease.listOutstanding()]);
    assert.deepEqual(listed(), ['mac-pg', 'mac-redis']);
    await lease.release(false);
    assert.deepEqual(listed(), ['mac-pg', 'mac-redis'], 'a pass that did not complete leaves them listed');
  });

  it('fails (409) once another pass took the Lease over, before anything is saved', async () => {
    const { lease, ledger } = pass('taken-over');
    await lease.ensure();
    // The pass stalls past its Lease; another one takes it over (an optimistic write on what it read).
    await cluster.writeLease('ops', 'taken-over', 'next-pass', 30, await cluster.readLease('ops', 'taken-over'));
    ledger.saving(sealed('pg', 'mac-pg'));
    await assert.rejects(lease.listOutstanding(), (error: unknown) => error instanceof ClusterError && error.status === 409);
    await lease.release(true);
    assert.equal((await cluster.readLease('ops', 'taken-over'))?.holder, 'next-pass', 'the release leaves the new holder alone');
  });
});
