// The Lease through the client-node adapter against the sandbox: release clears only our own hold.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiException, CoordinationV1Api, V1MicroTime } from '@kubernetes/client-node';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType, type ResourceType } from '../../sandbox/kube/store.ts';

const leaseType = (): ResourceType => mustResourceType('coordination.k8s.io/v1', 'Lease');

describe('KubeCluster lease', () => {
  let kube: KubeSandbox;
  let cluster: KubeCluster;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'] } });
    cluster = new KubeCluster(kube.kubeConfig());
  });
  after(() => kube.close());

  it('takes a free lease, then releases it by clearing the holder', async () => {
    const held = await cluster.writeLease('db', 'mine', 'pass-1', 60, undefined);
    assert.equal((await cluster.readLease('db', 'mine'))?.holder, 'pass-1');
    assert.equal(await cluster.releaseLease('db', 'mine', held), true);
    const after = await cluster.readLease('db', 'mine');
    assert.equal(after?.holder, undefined);
    assert.equal(after?.renewTime, undefined);
  });

  it('leaves alone a lease another holder took after ours expired', async () => {
    const held = await cluster.writeLease('db', 'shared', 'slow-pass', 1, undefined);
    // Our hold expired mid-pass; another pass saw that and took over (an optimistic write on what it read).
    const seenByOther = await cluster.readLease('db', 'shared');
    await cluster.writeLease('db', 'shared', 'next-pass', 60, seenByOther);
    assert.equal(await cluster.releaseLease('db', 'shared', held), false, 'not released');
    assert.equal((await cluster.readLease('db', 'shared'))?.holder, 'next-pass');
  });

  it('writes acquireTime and renewTime as MicroTime: six fractional digits, as a real server demands', async () => {
    await cluster.writeLease('db', 'micro', 'pass-1', 60, undefined);
    const stored = await kube.kubeConfig().makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace: 'db', name: 'micro' });
    // client-node parses the answer into Dates; the stored wire text is what the server kept.
    const wire = kube.store.list(leaseType(), 'db').find((l) => l.metadata.name === 'micro')?.spec;
    assert.match(String(wire?.renewTime), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/);
    assert.match(String(wire?.acquireTime), /\.\d{6}Z$/);
    assert.equal(stored.spec?.holderIdentity, 'pass-1');
  });

  it('a Lease written with a plain Date (three digits) is refused with the real server\'s words', async () => {
    const api = kube.kubeConfig().makeApiClient(CoordinationV1Api);
    const when = new Date('2026-01-01T00:00:00.123Z');
    const refused = await api.createNamespacedLease({ namespace: 'db', body: { metadata: { name: 'three-digits' }, spec: { holderIdentity: 'x', renewTime: when } } })
      .then(() => undefined, (error: unknown) => error);
    assert.ok(refused instanceof ApiException);
    assert.equal(refused.code, 400);
    const status = JSON.parse(String(refused.body)) as { reason: string; message: string };
    assert.equal(status.reason, 'BadRequest');
    assert.equal(status.message, 'Lease in version "v1" cannot be handled as a Lease: parsing time "2026-01-01T00:00:00.123Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse ".123Z" as ".000000"');
    // The same instant as V1MicroTime is accepted and kept to the microsecond.
    await api.createNamespacedLease({ namespace: 'db', body: { metadata: { name: 'six-digits' }, spec: { holderIdentity: 'x', renewTime: new V1MicroTime(when) } } });
    assert.equal(kube.store.list(leaseType(), 'db').find((l) => l.metadata.name === 'six-digits')?.spec?.renewTime, '2026-01-01T00:00:00.123000Z');
  });

  it('needs nothing when the lease is gone', async () => {
    const held = await cluster.writeLease('db', 'gone', 'pass-1', 60, undefined);
    await kube.kubeConfig().makeApiClient(CoordinationV1Api).deleteNamespacedLease({ namespace: 'db', name: 'gone' });
    assert.equal(await cluster.releaseLease('db', 'gone', held), false);
    assert.equal(await cluster.readLease('db', 'gone'), undefined);
  });
});
