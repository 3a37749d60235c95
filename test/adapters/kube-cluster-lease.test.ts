// The Lease through the client-node adapter against the sandbox: release clears only our own hold.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoordinationV1Api } from '@kubernetes/client-node';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

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
    await cluster.releaseLease('db', 'mine', held);
    const after = await cluster.readLease('db', 'mine');
    assert.equal(after?.holder, undefined);
    assert.equal(after?.renewTime, undefined);
  });

  it('leaves alone a lease another holder took after ours expired', async () => {
    const held = await cluster.writeLease('db', 'shared', 'slow-pass', 1, undefined);
    // Our hold expired mid-pass; another pass saw that and took over (an optimistic write on what it read).
    const seenByOther = await cluster.readLease('db', 'shared');
    await cluster.writeLease('db', 'shared', 'next-pass', 60, seenByOther);
    await cluster.releaseLease('db', 'shared', held);
    assert.equal((await cluster.readLease('db', 'shared'))?.holder, 'next-pass');
  });

  it('needs nothing when the lease is gone', async () => {
    const held = await cluster.writeLease('db', 'gone', 'pass-1', 60, undefined);
    await kube.kubeConfig().makeApiClient(CoordinationV1Api).deleteNamespacedLease({ namespace: 'db', name: 'gone' });
    await cluster.releaseLease('db', 'gone', held);
    assert.equal(await cluster.readLease('db', 'gone'), undefined);
  });
});
