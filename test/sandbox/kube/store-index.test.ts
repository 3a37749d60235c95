// The store's index: lists come in etcd key order (`<namespace>/<name>` compared as strings, so `a-b/x` before `a/x`)
// however objects were created and deleted, over HTTP as in the store; and what `peek` hands out is frozen.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';

const configMapType = mustResourceType('v1', 'ConfigMap');
const namespaces = ['a', 'a-b', 'b', 'a.c', 'ab'];
const names = ['x', 'x-1', 'x.1', 'w', 'x1'];

/** The order etcd keeps these keys in: plain string comparison of `<namespace>/<name>`. */
function etcdOrder(keys: string[]): string[] {
  return [...keys].sort((p, q) => (p < q ? -1 : p > q ? 1 : 0));
}

describe('Kubernetes sandbox store index', () => {
  let sandbox: KubeSandbox;
  let core: CoreV1Api;
  const kept: string[] = [];

  before(async () => {
    sandbox = await startKubeSandbox({ seed: { namespaces } });
    core = sandbox.kubeConfig().makeApiClient(CoreV1Api);
    // Created out of order, some deleted and one created again, so insertion order is not the answer.
    for (const namespace of [...namespaces].reverse()) {
      for (const name of [...names].reverse()) await core.createNamespacedConfigMap({ namespace, body: { metadata: { name }, data: { n: name } } });
    }
    await core.deleteNamespacedConfigMap({ namespace: 'a', name: 'x-1' });
    await core.deleteNamespacedConfigMap({ namespace: 'ab', name: 'w' });
    await core.deleteNamespacedConfigMap({ namespace: 'b', name: 'x' });
    await core.createNamespacedConfigMap({ namespace: 'b', body: { metadata: { name: 'x' } } });
    for (const namespace of namespaces) for (const name of names) kept.push(`${namespace}/${name}`);
    kept.splice(kept.indexOf('a/x-1'), 1);
    kept.splice(kept.indexOf('ab/w'), 1);
  });
  after(() => sandbox.close());

  it('lists every namespace in etcd key order, over HTTP and from the store', async () => {
    const listed = await core.listConfigMapForAllNamespaces();
    const served = listed.items.map((c) => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`).filter((k) => !k.endsWith('/kube-root-ca.crt'));
    assert.deepEqual(served, etcdOrder(kept));
    const stored = sandbox.store.peekList(configMapType).map((c) => `${c.metadata.namespace ?? ''}/${c.metadata.name}`).filter((k) => !k.endsWith('/kube-root-ca.crt'));
    assert.deepEqual(stored, etcdOrder(kept));
  });

  it('lists one namespace in name order, and pages through all of them in the same order', async () => {
    const one = await core.listNamespacedConfigMap({ namespace: 'a' });
    assert.deepEqual(one.items.map((c) => c.metadata?.name).filter((n) => n !== 'kube-root-ca.crt'), etcdOrder(names.filter((n) => n !== 'x-1')));
    const paged: string[] = [];
    let token: string | undefined;
    do {
      const page = await core.listConfigMapForAllNamespaces({ limit: 4, _continue: token });
      paged.push(...page.items.map((c) => `${c.metadata?.namespace ?? ''}/${c.metadata?.name ?? ''}`));
      token = page.metadata?._continue;
    } while (token);
    assert.deepEqual(paged.filter((k) => !k.endsWith('/kube-root-ca.crt')), etcdOrder(kept));
  });

  it('hands out stored objects frozen from peek, and copies the store does not share from get and list', () => {
    const peeked = sandbox.store.peek(configMapType, 'a', 'x');
    assert.ok(peeked);
    assert.throws(() => { (peeked.data as Record<string, string>).n = 'changed'; }, TypeError);
    assert.throws(() => { peeked.metadata.name = 'other'; }, TypeError);
    const copy = sandbox.store.get(configMapType, 'a', 'x');
    assert.ok(copy);
    (copy.data as Record<string, string>).n = 'changed';
    const listed = sandbox.store.list(configMapType, 'a').find((c) => c.metadata.name === 'x');
    assert.ok(listed);
    listed.metadata.labels = { changed: 'yes' };
    assert.deepEqual(sandbox.store.peek(configMapType, 'a', 'x')?.data, { n: 'x' });
    assert.equal(sandbox.store.peek(configMapType, 'a', 'x')?.metadata.labels, undefined);
  });
});
