// The Kubernetes sandbox through the real @kubernetes/client-node (and kubectl when installed): verbs, errors with the
// real codes and texts, dry runs, paging, selectors, orphan deletes, admission and quota. Returned objects validate
// against upstream schemas (kubernetes-models).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import {
  ApiException, AppsV1Api, CoordinationV1Api, CoreV1Api, PatchStrategy, StorageV1Api, setHeaderOptions, type V1Status,
} from '@kubernetes/client-node';
import { PersistentVolumeClaim } from 'kubernetes-models/v1/PersistentVolumeClaim';
import { Pod } from 'kubernetes-models/v1/Pod';
import { StatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import { kubectlAvailable, pgStatefulSet } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';

const run = promisify(execFile);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const strategicPatch = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);

async function failure(promise: Promise<unknown>): Promise<{ code: number; status: V1Status }> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException, `expected an ApiException, got ${String(error)}`);
    const e = error as ApiException<string>;
    return { code: e.code, status: JSON.parse(e.body) as V1Status };
  }
  assert.fail('expected the call to fail');
}

const seed = {
  namespaces: ['db'],
  storageClasses: [
    { name: 'standard', default: true, allowVolumeExpansion: true },
    { name: 'fixed', allowVolumeExpansion: false },
  ],
  resourceQuotas: [{ name: 'storage', namespace: 'db', hard: { 'requests.storage': '100Gi', 'fixed.storageclass.storage.k8s.io/requests.storage': '20Gi' } }],
  statefulSets: [pgStatefulSet(3)],
};

describe('Kubernetes sandbox API through client-node', () => {
  let kube: KubeSandbox;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  before(async () => {
    kube = await startKubeSandbox({ seed });
    const config = kube.kubeConfig();
    core = config.makeApiClient(CoreV1Api);
    apps = config.makeApiClient(AppsV1Api);
  });
  after(() => kube.close());

  it('serves seeded objects that validate against the upstream schemas, with server defaults filled in', async () => {
    const sts = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    new StatefulSet(JSON.parse(JSON.stringify(sts)) as ConstructorParameters<typeof StatefulSet>[0]).validate();
    const claim = sts.spec?.volumeClaimTemplates?.[0];
    assert.equal(claim?.apiVersion, 'v1');
    assert.equal(claim?.kind, 'PersistentVolumeClaim');
    assert.equal(claim?.spec?.volumeMode, 'Filesystem');
    assert.equal(sts.status?.readyReplicas, 3);
    const pvcs = await core.listNamespacedPersistentVolumeClaim({ namespace: 'db' });
    assert.deepEqual(pvcs.items.map((p) => p.metadata?.name), ['data-pg-0', 'data-pg-1', 'data-pg-2']);
    for (const pvc of pvcs.items) new PersistentVolumeClaim(JSON.parse(JSON.stringify(pvc)) as ConstructorParameters<typeof PersistentVolumeClaim>[0]).validate();
    const pods = await core.listNamespacedPod({ namespace: 'db', labelSelector: 'app=pg' });
    for (const pod of pods.items) new Pod(JSON.parse(JSON.stringify(pod)) as ConstructorParameters<typeof Pod>[0]).validate();
    assert.equal(pods.items[0]?.metadata?.labels?.['controller-revision-hash'], sts.status?.updateRevision);
  });

  it('answers NotFound and AlreadyExists as the real server words them', async () => {
    const missing = await failure(apps.readNamespacedStatefulSet({ namespace: 'db', name: 'nope' }));
    assert.equal(missing.code, 404);
    assert.equal(missing.status.message, 'statefulsets.apps "nope" not found');
    assert.equal(missing.status.reason, 'NotFound');
    const dup = await failure(core.createNamespacedConfigMap({ namespace: 'db', body: { metadata: { name: 'x' } } }).then(() => core.createNamespacedConfigMap({ namespace: 'db', body: { metadata: { name: 'x' } } })));
    assert.equal(dup.code, 409);
    assert.equal(dup.status.message, 'configmaps "x" already exists');
  });

  it('refuses a stale resourceVersion with 409 Conflict and bumps generation only on spec changes', async () => {
    const sts = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    const generation = sts.metadata?.generation ?? 0;
    const labelled = await apps.patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { metadata: { labels: { team: 'data' } } } }, mergePatch);
    assert.equal(labelled.metadata?.generation, generation);
    const stale = await failure(apps.replaceNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: sts }));
    assert.equal(stale.code, 409);
    assert.equal(stale.status.message, 'Operation cannot be fulfilled on statefulsets.apps "pg": the object has been modified; please apply your changes to the latest version and try again');
    const scaled = await apps.patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: [{ op: 'replace', path: '/spec/replicas', value: 3 }, { op: 'add', path: '/spec/minReadySeconds', value: 5 }] }, jsonPatch);
    assert.equal(scaled.metadata?.generation, generation + 1);
  });

  it('forbids volumeClaimTemplates changes with the real 422 text, in dry run too', async () => {
    const body = [{ op: 'replace', path: '/spec/volumeClaimTemplates/0/spec/resources/requests/storage', value: '20Gi' }];
    for (const dryRun of [undefined, 'All']) {
      const result = await failure(apps.patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body, ...(dryRun ? { dryRun } : {}) }, jsonPatch));
      assert.equal(result.code, 422);
      assert.equal(result.status.reason, 'Invalid');
      // v1.34.9's words (v1.26 does not list revisionHistoryLimit: server-versions.test.ts).
      assert.match(result.status.message ?? '', /^StatefulSet\.apps "pg" is invalid: spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden$/);
    }
  });

  it('runs admission and quota in dry run without storing anything', async () => {
    const before = await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-0' });
    const dry = await core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-0', dryRun: 'All', body: { spec: { resources: { requests: { storage: '20Gi' } } } } }, mergePatch);
    assert.equal(dry.spec?.resources?.requests?.storage, '20Gi');
    const after = await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-0' });
    assert.equal(after.metadata?.resourceVersion, before.metadata?.resourceVersion);
    assert.equal(after.spec?.resources?.requests?.storage, '10Gi');
  });

  it('refuses a request at or below capacity (422) but accepts lowering above it (KEP-1790)', async () => {
    const lowered = await failure(core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-1', body: { spec: { resources: { requests: { storage: '5Gi' } } } } }, mergePatch));
    assert.equal(lowered.code, 422);
    assert.equal(lowered.status.message, 'PersistentVolumeClaim "data-pg-1" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity');
    await core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-1', body: { spec: { resources: { requests: { storage: '40Gi' } } } } }, mergePatch);
    const down = await core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-1', body: { spec: { resources: { requests: { storage: '30Gi' } } } } }, mergePatch);
    assert.equal(down.spec?.resources?.requests?.storage, '30Gi');
  });

  it('refuses expanding an unbound PVC (422, validation first) or one whose class does not allow expansion (403, admission)', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: { metadata: { name: 'fixed-1' }, spec: { storageClassName: 'fixed', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } } });
    const unbound = await failure(core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'fixed-1', body: { spec: { resources: { requests: { storage: '2Gi' } } } } }, mergePatch));
    assert.equal(unbound.code, 422);
    // kube-apiserver v1.34's words, then the unified diff of the two specs as JSON (v1.26's Go diff: server-versions.test.ts).
    assert.equal(unbound.status.message, 'PersistentVolumeClaim "fixed-1" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n'
      + '@@ -6,7 +6,7 @@\n  "Resources": {\n   "Limits": null,\n   "Requests": {\n-   "storage": "1Gi"\n+   "storage": "2Gi"\n   }\n  },\n  "VolumeName": "",\n');
    kube.tick();
    const fixed = await failure(core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'fixed-1', body: { spec: { resources: { requests: { storage: '2Gi' } } } } }, mergePatch));
    assert.equal(fixed.status.message, 'persistentvolumeclaims "fixed-1" is forbidden: only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
  });

  it('refuses growth over a ResourceQuota with the real wording, counting max(request, allocatedResources)', async () => {
    // used: 10 + 30 (pg-1, allocated 40Gi counts) ... the quota counts max(spec, allocated) for every PVC.
    kube.tick(3);
    const over = await failure(core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-2', body: { spec: { resources: { requests: { storage: '60Gi' } } } } }, mergePatch));
    assert.equal(over.code, 403);
    assert.match(over.status.message ?? '', /^persistentvolumeclaims "data-pg-2" is forbidden: exceeded quota: storage, requested: requests\.storage=50Gi, used: requests\.storage=\d+Gi, limited: requests\.storage=100Gi$/);
    const quota = await core.readNamespacedResourceQuota({ namespace: 'db', name: 'storage' });
    assert.ok(quota.status?.used?.['requests.storage']);
  });

  it('pages lists with limit/continue and filters by label and field selectors', async () => {
    for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace: 'db', body: { metadata: { name: `page-${i}`, labels: { tier: i % 2 ? 'odd' : 'even' } } } });
    const first = await core.listNamespacedConfigMap({ namespace: 'db', labelSelector: 'tier', limit: 2 });
    assert.equal(first.items.length, 2);
    assert.ok(first.metadata?._continue);
    const second = await core.listNamespacedConfigMap({ namespace: 'db', labelSelector: 'tier', limit: 2, _continue: first.metadata?._continue });
    assert.deepEqual(second.items.map((c) => c.metadata?.name), ['page-2', 'page-3']);
    const odd = await core.listNamespacedConfigMap({ namespace: 'db', labelSelector: 'tier in (odd),tier!=even' });
    assert.deepEqual(odd.items.map((c) => c.metadata?.name), ['page-1', 'page-3']);
    const named = await core.listNamespacedConfigMap({ namespace: 'db', fieldSelector: 'metadata.name=page-4' });
    assert.deepEqual(named.items.map((c) => c.metadata?.name), ['page-4']);
    const events = await core.listNamespacedEvent({ namespace: 'db', fieldSelector: 'involvedObject.kind=StatefulSet,involvedObject.name=pg' });
    assert.ok(events.items.length > 0 && events.items.every((e) => e.involvedObject.name === 'pg'));
  });

  it('merges strategic patches of named lists by name', async () => {
    const patched = await apps.patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', dryRun: 'All', body: { spec: { template: { spec: { containers: [{ name: 'pg', image: 'postgres:17' }] } } } } }, strategicPatch);
    assert.deepEqual(patched.spec?.template.spec?.containers.map((c) => `${c.name}:${c.image ?? ''}`), ['pg:postgres:17']);
  });

  it('keeps an Orphan-deleted StatefulSet until the garbage collector ran, refuses a create meanwhile, then adopts the pods', async () => {
    const sts = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    const podsBefore = (await core.listNamespacedPod({ namespace: 'db' })).items.map((p) => p.metadata?.uid).sort();
    const wrongUid = await failure(apps.deleteNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { propagationPolicy: 'Orphan', preconditions: { uid: 'not-it' } } }));
    assert.equal(wrongUid.code, 409);
    assert.match(wrongUid.status.message ?? '', /^Operation cannot be fulfilled on StatefulSet.apps "pg": the UID in the precondition \(not-it\) does not match the UID in record \([0-9a-f-]{36}\). The object might have been deleted and then recreated$/);
    await apps.deleteNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { propagationPolicy: 'Orphan', preconditions: { uid: sts.metadata?.uid ?? '' } } });
    const lingering = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    assert.deepEqual(lingering.metadata?.finalizers, ['orphan']);
    assert.ok(lingering.metadata?.deletionTimestamp);
    const recreate = { ...JSON.parse(JSON.stringify(sts)) as Record<string, unknown>, metadata: { name: 'pg', namespace: 'db' }, status: undefined };
    const early = await failure(apps.createNamespacedStatefulSet({ namespace: 'db', body: recreate }));
    assert.equal(early.code, 409);
    assert.equal(early.status.message, 'object is being deleted: statefulsets.apps "pg" already exists');
    kube.tick();
    await failure(apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' }));
    const pods = await core.listNamespacedPod({ namespace: 'db' });
    assert.ok(pods.items.every((p) => (p.metadata?.ownerReferences ?? []).length === 0), 'orphaned, not deleted');
    const created = await apps.createNamespacedStatefulSet({ namespace: 'db', body: recreate });
    kube.tick();
    const adopted = await core.listNamespacedPod({ namespace: 'db' });
    assert.deepEqual(adopted.items.map((p) => p.metadata?.uid).sort(), podsBefore, 'same pods, no restart');
    assert.ok(adopted.items.every((p) => p.metadata?.ownerReferences?.[0]?.uid === created.metadata?.uid));
  });

  it('serves StorageClasses, Leases and discovery', async () => {
    const config = kube.kubeConfig();
    const classes = await config.makeApiClient(StorageV1Api).listStorageClass();
    assert.deepEqual(classes.items.map((c) => c.metadata?.name), ['fixed', 'standard']);
    const leases = config.makeApiClient(CoordinationV1Api);
    const lease = await leases.createNamespacedLease({ namespace: 'default', body: { metadata: { name: 'l' }, spec: { holderIdentity: 'me', leaseDurationSeconds: 30 } } });
    assert.equal(lease.spec?.holderIdentity, 'me');
    const response = await fetch(`${kube.url}/apis/apps/v1`, { headers: { Authorization: `Bearer ${config.getCurrentUser()?.token ?? ''}` } });
    const discovery = await response.json() as { resources: Array<{ name: string }> };
    assert.ok(discovery.resources.some((r) => r.name === 'statefulsets/status'));
  });

  it('injects faults per route: a one-shot 503, then success', async () => {
    kube.faults.failNext('GET', 'configmaps', 1, 503);
    const failed = await failure(core.readNamespacedConfigMap({ namespace: 'db', name: 'page-0' }));
    assert.equal(failed.code, 503);
    const ok = await core.readNamespacedConfigMap({ namespace: 'db', name: 'page-0' });
    assert.equal(ok.metadata?.name, 'page-0');
    assert.ok((kube.requestLog.countsByVerbAndResource()['get configmaps'] ?? 0) >= 2);
  });

  it('works with kubectl get, patch and delete --cascade=orphan (when kubectl is installed)', async (t) => {
    if (!await kubectlAvailable(t)) return;
    const env = { ...process.env, KUBECONFIG: kube.kubeconfigPath };
    const got = await run('kubectl', ['get', 'pvc', '-n', 'db', '-o', 'name'], { env });
    assert.match(got.stdout, /persistentvolumeclaim\/data-pg-0/);
    await run('kubectl', ['patch', 'configmap', 'page-0', '-n', 'db', '--type', 'merge', '-p', '{"data":{"k":"v"}}'], { env });
    const patched = await core.readNamespacedConfigMap({ namespace: 'db', name: 'page-0' });
    assert.equal(patched.data?.k, 'v');
    // Client-side apply (get, then create or a strategic merge patch), with kubectl's default validation: the sandbox's
    // OpenAPI v3 documents tell kubectl to leave it to the server (see openapi-and-field-validation.test.ts).
    const manifest = JSON.stringify({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'applied', namespace: 'db' }, data: { a: '1' } });
    const apply = async (): Promise<string> => {
      const child = execFile('kubectl', ['apply', '-f', '-'], { env });
      child.stdin?.end(manifest);
      return new Promise((resolve, reject) => {
        let out = '';
        child.stdout?.on('data', (d: Buffer) => { out += d.toString(); });
        child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`kubectl apply exited ${String(code)}`))));
      });
    };
    assert.match(await apply(), /configmap\/applied created/);
    assert.match(await apply(), /configmap\/applied unchanged/);
    await run('kubectl', ['delete', 'statefulset', 'pg', '-n', 'db', '--cascade=orphan', '--wait=false'], { env });
    const orphaned = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    assert.deepEqual(orphaned.metadata?.finalizers, ['orphan']);
  });
});

describe('Kubernetes sandbox: more of the surface', () => {
  it('serves PersistentVolumes, events.k8s.io Events and the status subresource; Background deletes take dependents', async () => {
    const kube = await startKubeSandbox({ seed });
    try {
      const config = kube.kubeConfig();
      const core = config.makeApiClient(CoreV1Api);
      const apps = config.makeApiClient(AppsV1Api);
      const pvs = await core.listPersistentVolume();
      assert.equal(pvs.items.length, 3);
      assert.ok(pvs.items.every((pv) => pv.spec?.claimRef?.namespace === 'db'));
      const { EventsV1Api, V1MicroTime } = await import('@kubernetes/client-node');
      const events = config.makeApiClient(EventsV1Api);
      const created = await events.createNamespacedEvent({ namespace: 'db', body: { metadata: { name: 'e1' }, eventTime: new V1MicroTime(), reason: 'Tested', action: 'Test', reportingController: 'test', reportingInstance: 'test', type: 'Normal', note: 'hello' } });
      assert.equal(created.note, 'hello');
      assert.equal((await events.listNamespacedEvent({ namespace: 'db' })).items.length, 1);

      const status = await apps.patchNamespacedStatefulSetStatus({ namespace: 'db', name: 'pg', body: { status: { replicas: 3, availableReplicas: 1 } } }, mergePatch);
      assert.equal(status.status?.availableReplicas, 1);
      const ignored = await apps.patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { status: { availableReplicas: 2 } } }, mergePatch);
      assert.equal(ignored.status?.availableReplicas, 1, 'the main endpoint ignores status');

      await apps.deleteNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { propagationPolicy: 'Background' } });
      await failure(apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' }));
      kube.tick();
      assert.equal((await core.listNamespacedPod({ namespace: 'db' })).items.length, 0, 'the garbage collector removed the pods');
      assert.equal((await core.listNamespacedPersistentVolumeClaim({ namespace: 'db' })).items.length, 3, 'PVCs are retained');
    } finally {
      await kube.close();
    }
  });

  it('injects latency and rate-based 429s with Retry-After, deterministically', async () => {
    const kube = await startKubeSandbox({ seed });
    try {
      const core = kube.kubeConfig().makeApiClient(CoreV1Api);
      kube.faults.add({ method: 'GET', resource: 'pods', latencyMs: 5 });
      assert.equal((await core.listNamespacedPod({ namespace: 'db' })).items.length, 3, 'latency delays but does not fail');
      kube.faults.clear();
      kube.faults.add({ method: 'GET', resource: 'configmaps', errorRate: 0.5, errorCode: 429 });
      const codes: number[] = [];
      for (let i = 0; i < 20; i++) {
        try {
          await core.listNamespacedConfigMap({ namespace: 'db' });
          codes.push(200);
        } catch (error) {
          const e = error as ApiException<string>;
          codes.push(e.code);
          assert.equal(e.headers['retry-after'], '1');
          assert.equal((JSON.parse(e.body) as V1Status).reason, 'TooManyRequests');
        }
      }
      assert.ok(codes.includes(429) && codes.includes(200), `a mix of failures and successes: ${codes.join(',')}`);
    } finally {
      await kube.close();
    }
  });
});
