// Where claims bind and who owns them, in the Kubernetes sandbox through client-node: the PV binder of v1.34 (a
// pre-created volume naming its claim), claims a real cluster leaves Pending (a class no driver serves,
// WaitForFirstConsumer before a pod uses the claim) and whose resize is then the unbound-claim 422, and the
// StatefulSet PVC retention policy's owner references (whenDeleted/whenScaled: Delete) through an Orphan delete and
// re-create, a scale-down and a background delete. v1.26 (as recorded) runs no binder and has no retention policy.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppsV1Api, CoreV1Api, StorageV1Api, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { failure, mergePatch, pgStatefulSet } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';

function withPolicy(set: Record<string, unknown>, name: string, policy: Record<string, string>): Record<string, unknown> {
  const copy = structuredClone(set) as { metadata: { name: string }; spec: Record<string, unknown> & { selector: { matchLabels: Record<string, string> }; template: { metadata: { labels: Record<string, string> } } } };
  copy.metadata.name = name;
  copy.spec.serviceName = name;
  copy.spec.selector.matchLabels = { app: name };
  copy.spec.template.metadata.labels = { app: name };
  copy.spec.persistentVolumeClaimRetentionPolicy = policy;
  return copy;
}

const seed = {
  namespaces: ['db'],
  storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }, { name: 'late', volumeBindingMode: 'WaitForFirstConsumer', allowVolumeExpansion: true }],
  statefulSets: [withPolicy(pgStatefulSet(2), 'owned', { whenDeleted: 'Delete', whenScaled: 'Delete' }), pgStatefulSet(1)],
};

const claim = (name: string, spec: Record<string, unknown>): { metadata: { name: string }; spec: Record<string, unknown> } =>
  ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } }, ...spec } });

describe('Kubernetes sandbox volume binding and claim ownership (v1.34)', () => {
  let kube: KubeSandbox;
  let core: CoreV1Api;
  let apps: AppsV1Api;
  const pvc = (name: string): Promise<V1PersistentVolumeClaim> => core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name });
  const reasons = async (name: string): Promise<string[]> => (await core.listNamespacedEvent({ namespace: 'db', fieldSelector: `involvedObject.name=${name}` })).items.map((e) => e.reason ?? '');

  before(async () => {
    kube = await startKubeSandbox({ seed });
    core = kube.kubeConfig().makeApiClient(CoreV1Api);
    apps = kube.kubeConfig().makeApiClient(AppsV1Api);
    await kube.kubeConfig().makeApiClient(StorageV1Api).createStorageClass({ body: { metadata: { name: 'nobody-serves' }, provisioner: 'ebs.csi.aws.com', allowVolumeExpansion: true } });
  });
  after(() => kube.close());

  it('binds a pre-created volume and the claim it names, as the v1.34 PV binder does', async () => {
    await core.createPersistentVolume({ body: { metadata: { name: 'pv-manual' }, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], storageClassName: 'nobody-serves', claimRef: { namespace: 'db', name: 'manual' }, csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'h-1' } } } });
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim('manual', { storageClassName: 'nobody-serves', volumeName: 'pv-manual' }) });
    kube.tick();
    const bound = await pvc('manual');
    assert.equal(bound.status?.phase, 'Bound');
    assert.equal(bound.status?.capacity?.storage, '5Gi', 'the capacity is the volume\'s');
    assert.equal(bound.metadata?.annotations?.['pv.kubernetes.io/bind-completed'], 'yes');
    const pv = await core.readPersistentVolume({ name: 'pv-manual' });
    assert.equal(pv.status?.phase, 'Bound');
    assert.equal(pv.spec?.claimRef?.uid, bound.metadata?.uid);
    assert.equal(pv.spec?.persistentVolumeReclaimPolicy, 'Retain', 'a volume created by hand is retained by default');
  });

  it('leaves a claim of a class no driver serves Pending, says why, and refuses its resize (422) where kubectl\'s probe expects it', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim('stranded', { storageClassName: 'nobody-serves' }) });
    kube.tick(3);
    assert.equal((await pvc('stranded')).status?.phase, 'Pending');
    assert.deepEqual(await reasons('stranded'), ['ExternalProvisioning']);
    const resize = await failure(core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'stranded', body: { spec: { resources: { requests: { storage: '2Gi' } } } } }, mergePatch));
    assert.equal(resize.code, 422);
    assert.match(resize.message, /^PersistentVolumeClaim "stranded" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n@@ /);
  });

  it('provisions a WaitForFirstConsumer claim only once a pod uses it', async () => {
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim('lazy', { storageClassName: 'late' }) });
    kube.tick(3);
    assert.equal((await pvc('lazy')).status?.phase, 'Pending');
    assert.deepEqual(await reasons('lazy'), ['WaitForFirstConsumer']);
    await core.createNamespacedPod({ namespace: 'db', body: { metadata: { name: 'consumer' }, spec: { containers: [{ name: 'c', image: 'busybox:1.36' }], volumes: [{ name: 'v', persistentVolumeClaim: { claimName: 'lazy' } }] } } });
    kube.tick();
    assert.equal((await pvc('lazy')).status?.phase, 'Bound');
  });

  it('gives the claims of a whenDeleted: Delete set to the set, and to a re-created set after an Orphan delete (same claims)', async () => {
    const set = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'owned' });
    assert.deepEqual({ ...set.spec?.persistentVolumeClaimRetentionPolicy }, { whenDeleted: 'Delete', whenScaled: 'Delete' });
    const owners = async (): Promise<string[]> => (await core.listNamespacedPersistentVolumeClaim({ namespace: 'db', labelSelector: 'app=owned' })).items
      .map((c) => `${c.metadata?.name ?? ''}:${c.metadata?.uid ?? ''}:${(c.metadata?.ownerReferences ?? []).map((r) => `${r.kind}/${r.name}/${r.uid}/${String(r.controller)}`).join(',')}`);
    const before = await owners();
    assert.deepEqual(before.map((o) => o.split(':')[2]), [`StatefulSet/owned/${set.metadata?.uid ?? ''}/true`, `StatefulSet/owned/${set.metadata?.uid ?? ''}/true`]);
    // The Retain/Retain set's claims belong to nobody.
    assert.deepEqual((await pvc('data-pg-0')).metadata?.ownerReferences, undefined);

    await apps.deleteNamespacedStatefulSet({ namespace: 'db', name: 'owned', body: { propagationPolicy: 'Orphan', preconditions: { uid: set.metadata?.uid ?? '' } } });
    kube.tick();
    assert.deepEqual((await owners()).map((o) => o.split(':').slice(0, 2).join(':') + ':'), before.map((o) => o.split(':').slice(0, 2).join(':') + ':'), 'kept, owned by nobody');
    const { metadata: _metadata, status: _status, ...rest } = set;
    const recreated = await apps.createNamespacedStatefulSet({ namespace: 'db', body: { ...rest, metadata: { name: 'owned', namespace: 'db' } } });
    kube.tick();
    const after = await owners();
    assert.deepEqual(after.map((o) => o.split(':').slice(0, 2).join(':')), before.map((o) => o.split(':').slice(0, 2).join(':')), 'the same claims (uids)');
    assert.ok(after.every((o) => o.endsWith(`StatefulSet/owned/${recreated.metadata?.uid ?? ''}/true`)), after.join(' '));
    assert.deepEqual({ ...(await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'owned' })).spec?.persistentVolumeClaimRetentionPolicy }, { whenDeleted: 'Delete', whenScaled: 'Delete' });
  });

  it('deletes the claim of a replica scaled away (whenScaled: Delete), and the rest with the set (whenDeleted: Delete)', async () => {
    await apps.patchNamespacedStatefulSet({ namespace: 'db', name: 'owned', body: { spec: { replicas: 1 } } }, mergePatch);
    kube.tick(4);
    assert.deepEqual((await core.listNamespacedPersistentVolumeClaim({ namespace: 'db', labelSelector: 'app=owned' })).items.map((c) => c.metadata?.name), ['data-owned-0']);
    await apps.deleteNamespacedStatefulSet({ namespace: 'db', name: 'owned' });
    kube.tick(4);
    assert.deepEqual((await core.listNamespacedPersistentVolumeClaim({ namespace: 'db', labelSelector: 'app=owned' })).items.map((c) => c.metadata?.name), []);
    assert.equal((await pvc('data-pg-0')).status?.phase, 'Bound', 'the Retain set\'s claim is untouched');
  });
});

describe('Kubernetes sandbox volume binding on v1.26', () => {
  it('runs no PV binder and drops the retention policy, so claims are never owned', async () => {
    const kube = await startKubeSandbox({ version: '1.26', seed });
    try {
      const core = kube.kubeConfig().makeApiClient(CoreV1Api);
      const owned = await core.listNamespacedPersistentVolumeClaim({ namespace: 'db', labelSelector: 'app=owned' });
      assert.equal(owned.items.length, 2);
      assert.ok(owned.items.every((c) => c.metadata?.ownerReferences === undefined));
      await core.createPersistentVolume({ body: { metadata: { name: 'pv-manual' }, spec: { capacity: { storage: '5Gi' }, accessModes: ['ReadWriteOnce'], claimRef: { namespace: 'db', name: 'manual' }, csi: { driver: 'x', volumeHandle: 'h' } } } });
      await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim('manual', { volumeName: 'pv-manual' }) });
      kube.tick(3);
      assert.equal((await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'manual' })).status?.phase, 'Pending');
    } finally {
      await kube.close();
    }
  });
});
