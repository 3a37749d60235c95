// VolumeAttributesClass (KEP-3751) in the Kubernetes sandbox playing v1.34.9, through the real client-node (and
// kubectl when installed): the class's immutable fields and protection finalizer, a bound claim's class changed and
// modified by the simulated driver with its delay, Infeasible for a class whose parameters the driver refuses (as the
// real external-resizer and csi-driver-host-path wrote it: test/conformance/csi) and its rollback,
// the recorded refusals (/work/shared/conformance/kube-v1.34.9/vac-edge-cases.jsonl). v1.26.5 does not serve it.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, StorageV1Api, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { failure, kubectlAvailable, mergePatch, pgStatefulSet } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';

function withClass(set: Record<string, unknown>, className: string): Record<string, unknown> {
  const copy = structuredClone(set) as { spec: { volumeClaimTemplates: Array<{ spec: Record<string, unknown> }> } };
  for (const template of copy.spec.volumeClaimTemplates) template.spec.volumeAttributesClassName = className;
  return copy;
}

const seed = {
  namespaces: ['db'],
  // The driver changes IOPS and throughput (csi-driver-host-path's --accepted-mutable-parameter-names), not the volume type.
  storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { modifyTicks: 3, acceptedMutableParameterNames: ['iops', 'throughput'] } }],
  volumeAttributesClasses: [
    { name: 'silver', storageClass: 'standard', parameters: { iops: '3000' } },
    { name: 'gold', storageClass: 'standard', parameters: { iops: '6000' } },
    { name: 'platinum', storageClass: 'standard', parameters: { type: 'io2', iops: '64000' } },
    { name: 'elsewhere', driverName: 'other.csi.example.com' },
  ],
  statefulSets: [withClass(pgStatefulSet(2), 'silver')],
};

describe('Kubernetes sandbox VolumeAttributesClass (v1.34)', () => {
  let kube: KubeSandbox;
  let core: CoreV1Api;
  let storage: StorageV1Api;
  const claim = async (name = 'data-pg-0'): Promise<V1PersistentVolumeClaim> => core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name });
  const setClass = (name: string, className: string | null): Promise<V1PersistentVolumeClaim> =>
    core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name, body: { spec: { volumeAttributesClassName: className } } }, mergePatch);

  before(async () => {
    kube = await startKubeSandbox({ seed });
    core = kube.kubeConfig().makeApiClient(CoreV1Api);
    storage = kube.kubeConfig().makeApiClient(StorageV1Api);
  });
  after(() => kube.close());

  it('serves classes with their protection finalizer and refuses changes to parameters or driverName', async () => {
    const created = await storage.createVolumeAttributesClass({ body: { metadata: { name: 'bronze' }, driverName: 'standard.csi.sandbox', parameters: { iops: '1000' } } });
    assert.deepEqual(created.metadata?.finalizers, ['kubernetes.io/vac-protection']);
    const listed = await storage.listVolumeAttributesClass();
    assert.deepEqual(listed.items.map((c) => c.metadata?.name), ['bronze', 'elsewhere', 'gold', 'platinum', 'silver']);
    const parameters = await failure(storage.patchVolumeAttributesClass({ name: 'bronze', body: { parameters: { iops: '2000' } } }, mergePatch));
    assert.deepEqual(parameters, { code: 422, message: 'VolumeAttributesClass.storage.k8s.io "bronze" is invalid: parameters: Forbidden: updates to parameters are forbidden.' });
    const driver = await failure(storage.patchVolumeAttributesClass({ name: 'bronze', body: { driverName: 'other.csi.example.com' } }, mergePatch));
    assert.deepEqual(driver, { code: 422, message: 'VolumeAttributesClass.storage.k8s.io "bronze" is invalid: driverName: Forbidden: updates to driverName are forbidden.' });
    // Not in use: the protection controller lets it go.
    await storage.deleteVolumeAttributesClass({ name: 'bronze' });
    kube.tick();
    assert.equal((await failure(storage.readVolumeAttributesClass({ name: 'bronze' }))).code, 404);
  });

  it('provisions claims with their class: the volume has it, and the claim says so', async () => {
    const pvc = await claim();
    assert.equal(pvc.spec?.volumeAttributesClassName, 'silver');
    assert.equal(pvc.status?.currentVolumeAttributesClassName, 'silver');
    const pv = await core.readPersistentVolume({ name: pvc.spec?.volumeName ?? '' });
    assert.equal(pv.spec?.volumeAttributesClassName, 'silver');
  });

  it('modifies a bound volume to a new class over the driver\'s modifyTicks, then reports the new class', async () => {
    await setClass('data-pg-0', 'gold');
    kube.tick();
    assert.deepEqual({ ...(await claim()).status?.modifyVolumeStatus }, { targetVolumeAttributesClassName: 'gold', status: 'InProgress' });
    kube.tick(2);
    assert.equal((await claim()).status?.currentVolumeAttributesClassName, 'silver', 'still modifying');
    kube.tick();
    const done = await claim();
    assert.equal(done.status?.currentVolumeAttributesClassName, 'gold');
    assert.equal(done.status?.modifyVolumeStatus, undefined);
    assert.equal((await core.readPersistentVolume({ name: done.spec?.volumeName ?? '' })).spec?.volumeAttributesClassName, 'gold');
    const events = await core.listNamespacedEvent({ namespace: 'db', fieldSelector: 'involvedObject.name=data-pg-0' });
    assert.ok(events.items.some((e) => e.reason === 'VolumeModifySuccessful'));
  });

  it('marks a class whose parameters the driver refuses Infeasible in its words, and calls the driver again when the claim asks for its current class', async () => {
    const refusals = { platinum: 'invalid parameters: [type]', elsewhere: 'Mutable parameters cannot be empty' };
    for (const [refused, words] of Object.entries(refusals)) {
      await setClass('data-pg-1', refused);
      kube.tick();
      assert.deepEqual({ ...(await claim('data-pg-1')).status?.modifyVolumeStatus }, { targetVolumeAttributesClassName: refused, status: 'InProgress' }, 'InProgress before the driver answers');
      kube.tick();
      const stuck = await claim('data-pg-1');
      assert.deepEqual({ ...stuck.status?.modifyVolumeStatus }, { targetVolumeAttributesClassName: refused, status: 'Infeasible' });
      assert.equal(stuck.status?.currentVolumeAttributesClassName, 'silver');
      assert.deepEqual(stuck.status?.conditions?.map((c) => [c.type, c.reason, c.message]), [
        ['ModifyingVolume', undefined, `Modifying volume to "${refused}" failed. Waiting for retry.`],
        ['ModifyVolumeError', 'InvalidArgument', words],
      ]);
      kube.tick(3);
      assert.equal((await claim('data-pg-1')).status?.modifyVolumeStatus?.status, 'Infeasible', 'not asked again');
      await setClass('data-pg-1', 'silver'); // the KEP-3751 rollback: the driver is called with the current class
      kube.tick();
      const rollingBack = await claim('data-pg-1');
      assert.deepEqual({ ...rollingBack.status?.modifyVolumeStatus }, { targetVolumeAttributesClassName: 'silver', status: 'InProgress' });
      assert.deepEqual(rollingBack.status?.conditions?.map((c) => c.type), ['ModifyingVolume', 'ModifyVolumeError'], 'the old error is listed while the rollback is in progress');
      kube.tick(3);
      const rolledBack = await claim('data-pg-1');
      assert.equal(rolledBack.status?.modifyVolumeStatus, undefined);
      assert.equal(rolledBack.status?.conditions, undefined);
    }
    const events = await core.listNamespacedEvent({ namespace: 'db', fieldSelector: 'involvedObject.name=data-pg-1' });
    const modify = events.items.filter((e) => e.reason?.startsWith('VolumeModify')).map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.count ?? 0}: ${e.message ?? ''}`);
    assert.deepEqual(modify, [
      'Normal VolumeModify 1: external resizer is modifying volume data-pg-1 with vac platinum',
      'Warning VolumeModifyFailed 1: rpc error: code = InvalidArgument desc = invalid parameters: [type]',
      'Normal VolumeModify 2: external resizer is modifying volume data-pg-1 with vac silver',
      'Normal VolumeModifySuccessful 2: external resizer modified volume data-pg-1 with vac silver successfully',
      'Normal VolumeModify 1: external resizer is modifying volume data-pg-1 with vac elsewhere',
      'Warning VolumeModifyFailed 1: rpc error: code = InvalidArgument desc = Mutable parameters cannot be empty',
    ]);
    // A class that does not exist is accepted (nothing checks it) and waits, Pending, with no target and no condition.
    await setClass('data-pg-1', 'no-such-class');
    kube.tick();
    const pending = await claim('data-pg-1');
    assert.deepEqual({ ...pending.status?.modifyVolumeStatus }, { status: 'Pending' });
    assert.equal(pending.status?.conditions, undefined);
    await setClass('data-pg-1', 'silver');
    kube.tick(4);
    assert.equal((await claim('data-pg-1')).status?.modifyVolumeStatus, undefined);
  });

  it('refuses emptying the class of a claim whose volume has one, and changing an unbound claim\'s class', async () => {
    assert.deepEqual(await failure(setClass('data-pg-1', '')), { code: 422, message: 'PersistentVolumeClaim "data-pg-1" is invalid: spec.volumeAttributesClassName: Forbidden: update to empty string is forbidden when status.currentVolumeAttributesClassName is not nil' });
    assert.deepEqual(await failure(setClass('data-pg-1', null)), { code: 422, message: 'PersistentVolumeClaim "data-pg-1" is invalid: spec.volumeAttributesClassName: Forbidden: update to nil is forbidden when status.currentVolumeAttributesClassName is not nil' });
    // A claim whose class this driver cannot give stays unbound; its class is then as immutable as the rest.
    await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: { metadata: { name: 'waiting' }, spec: { accessModes: ['ReadWriteOnce'], volumeAttributesClassName: 'elsewhere', resources: { requests: { storage: '1Gi' } } } } });
    kube.tick(2);
    assert.equal((await claim('waiting')).status?.phase, 'Pending');
    const unbound = await failure(setClass('waiting', 'gold'));
    assert.equal(unbound.code, 422);
    assert.equal(unbound.message, 'PersistentVolumeClaim "waiting" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n'
      + '@@ -14,5 +14,5 @@\n  "VolumeMode": "Filesystem",\n  "DataSource": null,\n  "DataSourceRef": null,\n- "VolumeAttributesClassName": "elsewhere"\n+ "VolumeAttributesClassName": "gold"\n }\n');
  });

  it('keeps a class in use while deleted (deletionTimestamp, finalizer) until no claim or volume names it', async () => {
    const deleted = await storage.deleteVolumeAttributesClass({ name: 'elsewhere' });
    assert.ok(deleted.metadata?.deletionTimestamp);
    kube.tick();
    assert.ok((await storage.readVolumeAttributesClass({ name: 'elsewhere' })).metadata?.deletionTimestamp, 'the waiting claim names it');
    await core.deleteNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'waiting' });
    kube.tick(2);
    assert.equal((await failure(storage.readVolumeAttributesClass({ name: 'elsewhere' }))).code, 404);
  });

  it('answers kubectl get vac with its columns', async (t) => {
    if (!(await kubectlAvailable(t))) return;
    const { stdout } = await promisify(execFile)('kubectl', ['--kubeconfig', kube.kubeconfigPath, 'get', 'vac']);
    assert.match(stdout, /^NAME\s+DRIVERNAME\s+AGE\n/);
    assert.match(stdout, /\ngold\s+standard\.csi\.sandbox\s+\d+s\n/);
  });
});

describe('Kubernetes sandbox VolumeAttributesClass on v1.26', () => {
  it('is not served, and a seed naming classes starts without them, saying so', async () => {
    const kube = await startKubeSandbox({ version: '1.26', seed: { namespaces: ['db'] } });
    try {
      const storage = kube.kubeConfig().makeApiClient(StorageV1Api);
      assert.equal((await failure(storage.listVolumeAttributesClass())).code, 404);
      const resources = await (await fetch(`${kube.url}/apis/storage.k8s.io/v1`, { headers: { Authorization: `Bearer ${kube.kubeConfig().getCurrentUser()?.token ?? ''}` } })).json() as { resources: Array<{ name: string }> };
      assert.deepEqual(resources.resources.map((r) => r.name), ['storageclasses']);
    } finally {
      await kube.close();
    }
    const seeded = await startKubeSandbox({ version: '1.26', seed: { ...seed, statefulSets: [] } });
    await seeded.close();
    assert.deepEqual(seeded.seedWarnings, ['volumeAttributesClasses: VolumeAttributesClass is not served by v1.26.5 (GA in v1.34): silver, gold, platinum, elsewhere not seeded']);
  });
});
