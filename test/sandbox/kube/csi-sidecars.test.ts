// What the sandbox's CSI side does beyond the recorded scenarios (test/conformance/csi replays those), taken from the
// components' sources: provisioning beyond the driver's maximum, a deleted claim's volume reclaimed, the kubelet's
// node step, a class emptied after a refused modification, and the driver's answers themselves.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoreV1Api, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { failure, mergePatch, pgStatefulSet } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { controllerModifyVolume, createVolume, rpcErrorText } from '../../../sandbox/kube/controllers/csi-driver.ts';
import { defaultDriver } from '../../../sandbox/kube/controllers/world.ts';

const driver = { name: 'disk.csi.test', maxVolumeSize: '50Gi', acceptedMutableParameterNames: ['iops', 'throughput'] };

async function world(statefulSets: unknown[] = []): Promise<{ kube: KubeSandbox; core: CoreV1Api }> {
  const kube = await startKubeSandbox({
    seed: {
      namespaces: ['db'],
      storageClasses: [{ name: 'disk', default: true, allowVolumeExpansion: true, driver }],
      volumeAttributesClasses: [{ name: 'other-type', storageClass: 'disk', parameters: { type: 'io2' } }],
      statefulSets,
    },
  });
  return { kube, core: kube.kubeConfig().makeApiClient(CoreV1Api) };
}

const claim = (name: string, storage: string, extra: Record<string, unknown> = {}): { metadata: { name: string }; spec: Record<string, unknown> } =>
  ({ metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, ...extra } });

async function events(core: CoreV1Api, name: string): Promise<string[]> {
  const list = await core.listNamespacedEvent({ namespace: 'db', fieldSelector: `involvedObject.name=${name}` });
  return list.items.map((e) => `${e.type ?? ''} ${e.reason ?? ''} ${e.count ?? 0} [${e.source?.component?.replace(/_sandbox_[0-9a-f-]+$/, '_<host>_<uuid>') ?? ''}]: ${e.message ?? ''}`);
}

describe('the sandbox\'s CSI side beyond the recordings', () => {
  it('leaves a claim beyond the driver\'s maximum Pending, with ProvisioningFailed in the driver\'s words, retried after a backoff', async () => {
    const { kube, core } = await world();
    try {
      await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim('huge', '100Gi') });
      kube.tick(5);
      assert.equal((await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'huge' })).status?.phase, 'Pending');
      assert.deepEqual(await events(core, 'huge'), [
        'Normal ExternalProvisioning 1 [persistentvolume-controller]: Waiting for a volume to be created either by the external provisioner \'disk.csi.test\' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.',
        'Normal Provisioning 1 [disk.csi.test_<host>_<uuid>]: External provisioner is provisioning volume for claim "db/huge"',
        'Warning ProvisioningFailed 1 [disk.csi.test_<host>_<uuid>]: rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200',
      ], 'tried once: the next try waits for the backoff (1 s, doubling)');
    } finally {
      await kube.close();
    }
  });

  it('deletes a deleted claim\'s volume (reclaim policy Delete): the driver\'s volume, then the PV', async () => {
    const { kube, core } = await world();
    try {
      await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim('scratch', '1Gi') });
      kube.tick();
      const bound = await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'scratch' });
      const volume = bound.spec?.volumeName ?? '';
      const pv = await core.readPersistentVolume({ name: volume });
      assert.deepEqual(pv.metadata?.finalizers, ['external-provisioner.volume.kubernetes.io/finalizer', 'kubernetes.io/pv-protection']);
      assert.equal(pv.metadata?.annotations?.['pv.kubernetes.io/provisioned-by'], 'disk.csi.test');
      await core.deleteNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'scratch' });
      kube.tick(3);
      assert.equal((await failure(core.readPersistentVolume({ name: volume }))).code, 404);
    } finally {
      await kube.close();
    }
  });

  it('finishes the node step once a pod runs: capacity the PV\'s, no storage status, no resize condition', async () => {
    const { kube, core } = await world([pgStatefulSet(1)]);
    try {
      await core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-0', body: { spec: { resources: { requests: { storage: '20Gi' } } } } }, mergePatch);
      const statuses: string[] = [];
      let pvc: V1PersistentVolumeClaim | undefined;
      for (let i = 0; i < 5; i++) {
        kube.tick();
        pvc = await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-0' });
        statuses.push(pvc.status?.allocatedResourceStatuses?.storage ?? 'done');
      }
      assert.deepEqual(statuses, ['ControllerResizeInProgress', 'NodeResizePending', 'NodeResizeInProgress', 'done', 'done']);
      assert.equal(pvc?.status?.capacity?.storage, '20Gi');
      assert.equal(pvc?.status?.conditions, undefined);
      assert.equal(pvc?.metadata?.annotations?.['volume.kubernetes.io/node-expansion-not-required'], undefined);
      const reasons = (await events(core, 'data-pg-0')).map((e) => e.split(' ').slice(0, 2).join(' '));
      assert.deepEqual(reasons.slice(-4), ['Normal ExternalExpanding', 'Normal Resizing', 'Normal FileSystemResizeRequired', 'Normal FileSystemResizeSuccessful']);
    } finally {
      await kube.close();
    }
  });

  it('cancels a refused modification when a claim without a class goes back to none (VolumeModifyCanceled), keeping the last status', async () => {
    const { kube, core } = await world();
    try {
      await core.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim('plain', '1Gi') });
      kube.tick();
      const setClass = (className: string | null): Promise<V1PersistentVolumeClaim> =>
        core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'plain', body: { spec: { volumeAttributesClassName: className } } }, mergePatch);
      await setClass('other-type');
      kube.tick(2);
      assert.equal((await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'plain' })).status?.modifyVolumeStatus?.status, 'Infeasible');
      await setClass(null);
      kube.tick();
      const cancelled = await core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'plain' });
      assert.deepEqual(cancelled.status?.conditions?.map((c) => c.type), ['ModifyVolumeError'], 'ModifyingVolume dropped, the error kept');
      assert.equal(cancelled.status?.modifyVolumeStatus?.status, 'Infeasible', 'the resizer records only the last modification\'s result');
      assert.ok((await events(core, 'plain')).includes('Normal VolumeModifyCanceled 1 [external-resizer disk.csi.test]: Cancelled modify.'));
    } finally {
      await kube.close();
    }
  });

  it('answers as csi-driver-host-path: parameters checked by name before the size, names sorted, none accepted when none are given', () => {
    const profile = { ...defaultDriver, maxVolumeBytes: 10n, acceptedMutableParameterNames: ['iops'] };
    const refusal = createVolume(profile, 100n, { throughput: '1', iops: '2', type: 'x' });
    assert.equal(refusal && rpcErrorText(refusal), 'rpc error: code = InvalidArgument desc = invalid parameters: [throughput type]');
    const tooLarge = createVolume(profile, 100n, { iops: '2' });
    assert.equal(tooLarge && rpcErrorText(tooLarge), 'rpc error: code = OutOfRange desc = Requested capacity 100 exceeds maximum allowed 10');
    assert.equal(createVolume(profile, 10n, {}), undefined, 'no class parameters: nothing to check');
    assert.deepEqual(controllerModifyVolume(profile, {}), { code: 'InvalidArgument', desc: 'Mutable parameters cannot be empty' });
    assert.equal(controllerModifyVolume({ ...profile, acceptedMutableParameterNames: [] }, { anything: 'x' }), undefined, 'a driver that names none accepts any');
  });
});
