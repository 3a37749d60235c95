// A pass renews its Lease before writing a recreation record once a third of the Lease's duration has gone, through
// the client-node adapter against the sandbox: a pass that overran its Lease, taken over since, learns it (409) before
// writing a record the new holder would never know of.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { ClusterError } from '../../functions/engine/ports.ts';
import { LazyLease } from '../../functions/engine/lazy-lease.ts';
import { RecordLedger } from '../../functions/engine/records/ledger.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';

const leaseType = mustResourceType('coordination.k8s.io/v1', 'Lease');

describe('LazyLease renewal before a record write', () => {
  let kube: KubeSandbox;
  let cluster: KubeCluster;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['ops'] } });
    cluster = new KubeCluster(kube.kubeConfig());
  });
  after(() => kube.close());

  it('renews once a third of the duration has gone, and fails (409) once another pass took the Lease over', async () => {
    let clock = Date.now();
    const ledger = new RecordLedger({ leaseNamespace: false, legacy: false });
    const lease = new LazyLease({ cluster, holderIdentity: 'slow-pass', leaseDurationSeconds: 30, now: () => new Date(clock) }, 'ops', 'renewed', undefined, ledger);
    const version = (): string | undefined => kube.store.get(leaseType, 'ops', 'renewed')?.metadata.resourceVersion;

    await lease.ensureFresh();
    const taken = version();
    assert.ok(taken, 'taken');
    assert.equal(kube.store.get(leaseType, 'ops', 'renewed')?.metadata.annotations?.['sts-volume-gitops.io/recreation-records'], 'outstanding');
    clock += 5_000;
    await lease.ensureFresh();
    assert.equal(version(), taken, 'fresh enough: no write');
    clock += 6_000;
    await lease.ensureFresh();
    const renewed = version();
    assert.notEqual(renewed, taken, 'renewed after 11 s of 30');

    // The pass stalls past its Lease; another one takes it over (an optimistic write on what it read).
    clock += 60_000;
    await cluster.writeLease('ops', 'renewed', 'next-pass', 30, await cluster.readLease('ops', 'renewed'), 'outstanding');
    await assert.rejects(lease.ensureFresh(), (error: unknown) => error instanceof ClusterError && error.status === 409);
    await lease.release(true);
    assert.equal((await cluster.readLease('ops', 'renewed'))?.holder, 'next-pass', 'the release leaves the new holder alone');
  });
});
