// The "write applied, reply dropped" fault through client-node: the server makes the change, then cuts the
// connection, so the client sees a network error for something that happened.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiException, CoreV1Api, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

describe('Kubernetes sandbox: a write applied whose reply is dropped', () => {
  let kube: KubeSandbox;
  let core: CoreV1Api;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'] } });
    core = kube.kubeConfig().makeApiClient(CoreV1Api);
  });
  after(() => kube.close());

  it('creates the object, but the client gets a network error, not an answer', async () => {
    kube.faults.failNext('POST', 'configmaps', 1, 'drop-reply');
    const created = core.createNamespacedConfigMap({ namespace: 'db', body: { metadata: { name: 'lost-reply' }, data: { a: '1' } } });
    await assert.rejects(created, (error: unknown) => !(error instanceof ApiException) && error instanceof Error);
    const stored = await core.readNamespacedConfigMap({ namespace: 'db', name: 'lost-reply' });
    assert.deepEqual(stored.data, { a: '1' });
    // Sending the same create again, as a retry would, meets the object that is already there.
    await assert.rejects(core.createNamespacedConfigMap({ namespace: 'db', body: { metadata: { name: 'lost-reply' } } }), (error: unknown) => error instanceof ApiException && error.code === 409);
  });

  it('applies a patch whose reply never comes', async () => {
    kube.faults.failNext('PATCH', 'configmaps', 1, 'drop-reply');
    await assert.rejects(core.patchNamespacedConfigMap({ namespace: 'db', name: 'lost-reply', body: { data: { a: '2' } } }, mergePatch), (error: unknown) => !(error instanceof ApiException));
    assert.deepEqual((await core.readNamespacedConfigMap({ namespace: 'db', name: 'lost-reply' })).data, { a: '2' });
    // Only that one request was cut: the next is answered.
    const answered = await core.patchNamespacedConfigMap({ namespace: 'db', name: 'lost-reply', body: { data: { a: '3' } } }, mergePatch);
    assert.equal(answered.data?.a, '3');
  });
});
