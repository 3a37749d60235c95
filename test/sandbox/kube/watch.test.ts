// Watches on the Kubernetes sandbox through client-node's Watch and informer (and kubectl when installed): events after
// a resourceVersion, selectors entering and leaving, 410 Expired for a version older than the history, deletions that
// kubectl waits for.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, makeInformer, Watch, type V1ConfigMap } from '@kubernetes/client-node';
import { kubectlAvailable } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';

const run = promisify(execFile);

interface Event {
  type: string;
  name: string;
  resourceVersion: string;
}

/** Collects the events of one watch until `count` have arrived. */
async function watchEvents(kube: KubeSandbox, path: string, query: Record<string, string>, count: number, act: () => Promise<void>): Promise<Event[]> {
  const events: Event[] = [];
  let arrived: () => void = () => undefined;
  const enough = new Promise<void>((resolve) => { arrived = resolve; });
  const controller = await new Watch(kube.kubeConfig()).watch(path, query, (type, object: { metadata?: { name?: string; resourceVersion?: string; code?: number } ; code?: number }) => {
    events.push({ type, name: object.metadata?.name ?? String(object.code ?? ''), resourceVersion: object.metadata?.resourceVersion ?? '' });
    if (events.length >= count) arrived();
  }, () => arrived());
  try {
    await act();
    await Promise.race([enough, new Promise((_, reject) => setTimeout(() => reject(new Error(`only ${events.length} of ${count} events: ${JSON.stringify(events)}`)), 5000))]);
  } finally {
    controller.abort();
  }
  return events;
}

describe('Kubernetes sandbox watches', () => {
  let kube: KubeSandbox;
  let core: CoreV1Api;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db', 'other'] } });
    core = kube.kubeConfig().makeApiClient(CoreV1Api);
  });
  after(() => kube.close());

  const configMap = (name: string, labels: Record<string, string> = { team: 'db' }): V1ConfigMap => ({ metadata: { name, labels }, data: { k: '1' } });

  it('streams ADDED, MODIFIED and DELETED after the listed resourceVersion, in one namespace only', async () => {
    const listed = await core.listNamespacedConfigMap({ namespace: 'db' });
    const events = await watchEvents(kube, '/api/v1/namespaces/db/configmaps', { resourceVersion: listed.metadata?.resourceVersion ?? '' }, 3, async () => {
      await core.createNamespacedConfigMap({ namespace: 'other', body: configMap('elsewhere') });
      await core.createNamespacedConfigMap({ namespace: 'db', body: configMap('a') });
      await core.patchNamespacedConfigMap({ namespace: 'db', name: 'a', body: [{ op: 'replace', path: '/data/k', value: '2' }] });
      await core.deleteNamespacedConfigMap({ namespace: 'db', name: 'a' });
    });
    assert.deepEqual(events.map((e) => `${e.type} ${e.name}`), ['ADDED a', 'MODIFIED a', 'DELETED a']);
    const versions = events.map((e) => Number(e.resourceVersion));
    assert.ok(versions.every((v, i) => i === 0 || v > (versions[i - 1] ?? 0)), `resourceVersions increase: ${versions.join(', ')}`);
  });

  it('replays what changed since an older resourceVersion, and starts with the current objects without one', async () => {
    const before = (await core.listNamespacedConfigMap({ namespace: 'db' })).metadata?.resourceVersion ?? '';
    await core.createNamespacedConfigMap({ namespace: 'db', body: configMap('b') });
    await core.createNamespacedConfigMap({ namespace: 'db', body: configMap('c') });
    const replayed = await watchEvents(kube, '/api/v1/namespaces/db/configmaps', { resourceVersion: before }, 2, async () => undefined);
    assert.deepEqual(replayed.map((e) => `${e.type} ${e.name}`), ['ADDED b', 'ADDED c']);
    const initial = await watchEvents(kube, '/api/v1/namespaces/db/configmaps', {}, 2, async () => undefined);
    assert.deepEqual(initial.map((e) => `${e.type} ${e.name}`), ['ADDED b', 'ADDED c']);
  });

  it('shows an object leaving and entering a label selector as DELETED and ADDED', async () => {
    await core.createNamespacedConfigMap({ namespace: 'db', body: configMap('d', { team: 'db' }) });
    const now = (await core.listNamespacedConfigMap({ namespace: 'db' })).metadata?.resourceVersion ?? '';
    const events = await watchEvents(kube, '/api/v1/namespaces/db/configmaps', { resourceVersion: now, labelSelector: 'team=db' }, 2, async () => {
      await core.patchNamespacedConfigMap({ namespace: 'db', name: 'd', body: [{ op: 'replace', path: '/metadata/labels/team', value: 'web' }] });
      await core.patchNamespacedConfigMap({ namespace: 'db', name: 'd', body: [{ op: 'replace', path: '/metadata/labels/team', value: 'db' }] });
    });
    assert.deepEqual(events.map((e) => `${e.type} ${e.name}`), ['DELETED d', 'ADDED d']);
  });

  it('deletes a collection by label selector, each object as by its own DELETE, and watchers see each go', async () => {
    await core.createNamespacedConfigMap({ namespace: 'db', body: configMap('batch-1', { batch: 'x' }) });
    await core.createNamespacedConfigMap({ namespace: 'db', body: { ...configMap('batch-2', { batch: 'x' }), metadata: { name: 'batch-2', labels: { batch: 'x' }, finalizers: ['example.com/hold'] } } });
    await core.createNamespacedConfigMap({ namespace: 'db', body: configMap('batch-other', { batch: 'y' }) });
    const now = (await core.listNamespacedConfigMap({ namespace: 'db' })).metadata?.resourceVersion ?? '';
    const events = await watchEvents(kube, '/api/v1/namespaces/db/configmaps', { resourceVersion: now, labelSelector: 'batch' }, 2, async () => {
      await core.deleteCollectionNamespacedConfigMap({ namespace: 'db', labelSelector: 'batch=x' });
    });
    assert.deepEqual(events.map((e) => `${e.type} ${e.name}`).sort(), ['DELETED batch-1', 'MODIFIED batch-2']);
    const left = (await core.listNamespacedConfigMap({ namespace: 'db', labelSelector: 'batch' })).items;
    assert.deepEqual(left.map((c) => c.metadata?.name), ['batch-2', 'batch-other']);
    assert.ok(left[0]?.metadata?.deletionTimestamp, 'a finalizer keeps batch-2, marked for deletion');
    assert.equal(kube.requestLog.writes().filter((w) => w.verb === 'deletecollection').length, 1);
  });

  it('answers a resourceVersion older than its history with an ERROR event, 410 Expired', async () => {
    const events = await watchEvents(kube, '/api/v1/namespaces/db/configmaps', { resourceVersion: '1' }, 1, async () => undefined);
    assert.deepEqual(events.map((e) => `${e.type} ${e.name}`), ['ERROR 410']);
  });

  it('refuses a watch from a resourceVersion that is not a number with a 400 Status, before streaming anything', async () => {
    const token = kube.kubeConfig().getCurrentUser()?.token ?? '';
    const response = await fetch(`${kube.url}/api/v1/namespaces/db/configmaps?watch=true&resourceVersion=abc`, {
      headers: { Authorization: `Bearer ${token}` }, signal: AbortSignal.timeout(3000),
    });
    assert.equal(response.status, 400);
    const status = await response.json() as { reason: string; message: string };
    assert.equal(status.reason, 'BadRequest');
    assert.match(status.message, /resourceVersion/);
  });

  it('keeps a client-node informer in step with the store', async () => {
    const informer = makeInformer(kube.kubeConfig(), '/api/v1/namespaces/db/configmaps', () => core.listNamespacedConfigMap({ namespace: 'db' }));
    await informer.start();
    try {
      const seen = new Promise<string>((resolve) => informer.on('add', (cm: V1ConfigMap) => { if (cm.metadata?.name === 'e') resolve('e'); }));
      await core.createNamespacedConfigMap({ namespace: 'db', body: configMap('e') });
      assert.equal(await seen, 'e');
      assert.ok(informer.get('e', 'db'));
    } finally {
      await informer.stop();
    }
  });

  it('lets kubectl wait for a deletion to finish (when kubectl is installed)', async (t) => {
    if (!await kubectlAvailable(t)) return;
    const env = { ...process.env, KUBECONFIG: kube.kubeconfigPath };
    await core.createNamespacedConfigMap({ namespace: 'db', body: { ...configMap('held'), metadata: { name: 'held', finalizers: ['example.com/hold'] } } });
    // kubectl deletes, then watches until the object is gone; a person removing the finalizer lets it finish.
    const deleting = run('kubectl', ['delete', 'configmap', 'held', '-n', 'db', '--timeout=20s'], { env });
    for (let i = 0; i < 50 && (await core.readNamespacedConfigMap({ namespace: 'db', name: 'held' })).metadata?.deletionTimestamp === undefined; i++) {
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    await core.patchNamespacedConfigMap({ namespace: 'db', name: 'held', body: [{ op: 'remove', path: '/metadata/finalizers' }] });
    const { stdout } = await deleting;
    assert.match(stdout, /configmap "held" deleted/);
    assert.ok(kube.requestLog.entries.some((e) => e.verb === 'watch' && e.resource === 'configmaps'), 'kubectl watched the deletion');
  });
});
