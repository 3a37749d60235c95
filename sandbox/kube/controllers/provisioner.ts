// Dynamic provisioning: a Pending PVC gets a new PV of the requested size and is bound to it.
import { mustResourceType } from '../store.ts';
import { recordEvent } from './events.ts';
import { pvProtectionFinalizer } from './volume-protection.ts';
import { driverFor, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');

type Json = Record<string, unknown>;

export function provisionVolumes(world: World): void {
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.status?.phase === 'Bound' || pvc.metadata.deletionTimestamp) continue;
    const spec = pvc.spec ?? {};
    const storage = ((spec.resources as Json | undefined)?.requests as Json | undefined)?.storage;
    if (storage === undefined) continue;
    const driver = driverFor(world, spec.storageClassName);
    const volumeName = `pvc-${pvc.metadata.uid ?? ''}`;
    world.store.create(pvType, {
      apiVersion: 'v1', kind: 'PersistentVolume',
      metadata: { name: volumeName, annotations: { 'pv.kubernetes.io/provisioned-by': driver.name }, finalizers: [pvProtectionFinalizer] },
      spec: {
        capacity: { storage }, accessModes: spec.accessModes ?? ['ReadWriteOnce'], storageClassName: spec.storageClassName,
        persistentVolumeReclaimPolicy: 'Delete', volumeMode: spec.volumeMode ?? 'Filesystem',
        claimRef: { kind: 'PersistentVolumeClaim', namespace: pvc.metadata.namespace, name: pvc.metadata.name, uid: pvc.metadata.uid },
        csi: { driver: driver.name, volumeHandle: volumeName },
      },
      status: { phase: 'Bound' },
    });
    world.store.replace(pvcType, {
      ...pvc,
      metadata: { ...pvc.metadata, annotations: { ...pvc.metadata.annotations, 'pv.kubernetes.io/bind-completed': 'yes', 'volume.kubernetes.io/storage-provisioner': driver.name } },
      spec: { ...spec, volumeName },
      status: { phase: 'Bound', accessModes: spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage } },
    });
    recordEvent(world, pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeName}`, driver.name);
  }
}
