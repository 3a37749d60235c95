// Dynamic provisioning by the CSI drivers this cluster runs: a Pending PVC gets a new PV of the requested size and is
// bound to it, if a driver serves its StorageClass (the seeded classes' drivers, or a class whose provisioner names
// one). Claims stay Pending where a real cluster leaves them so: no class, a class no driver serves, a class that
// waits for the first consumer (volumeBindingMode WaitForFirstConsumer) while no pod uses the claim, a volume named
// by hand (the PV binder's business), or a VolumeAttributesClass the driver cannot give.
import { mustResourceType, type KubeObject } from '../store.ts';
import { recordEvent } from './events.ts';
import { pvProtectionFinalizer } from './volume-protection.ts';
import { driverReaches } from './volume-modifier.ts';
import { usedByPod } from './persistent-volume-binder.ts';
import { defaultDriver, type DriverProfile, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const vacType = mustResourceType('storage.k8s.io/v1', 'VolumeAttributesClass');
const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');

type Json = Record<string, unknown>;

/** The driver that would provision this claim now, if any. */
function servingDriver(world: World, pvc: Readonly<KubeObject>): DriverProfile | undefined {
  const className = pvc.spec?.storageClassName;
  if (typeof className !== 'string' || className === '') return undefined;
  const storageClass = world.store.peek(storageClassType, undefined, className);
  if (!storageClass) return undefined;
  if (storageClass.volumeBindingMode === 'WaitForFirstConsumer' && !usedByPod(world, pvc)) return undefined;
  return world.drivers.get(className) ?? [...world.drivers.values(), defaultDriver].find((d) => d.name === storageClass.provisioner);
}

export function provisionVolumes(world: World): void {
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.status?.phase === 'Bound' || pvc.metadata.deletionTimestamp) continue;
    const spec = pvc.spec ?? {};
    const storage = ((spec.resources as Json | undefined)?.requests as Json | undefined)?.storage;
    if (storage === undefined || (typeof spec.volumeName === 'string' && spec.volumeName !== '')) continue;
    const driver = servingDriver(world, pvc);
    if (!driver) continue;
    // A claim with a VolumeAttributesClass gets a volume with those attributes, or none while the driver cannot give them.
    const attributesClass = typeof spec.volumeAttributesClassName === 'string' && spec.volumeAttributesClassName !== '' ? spec.volumeAttributesClassName : undefined;
    if (attributesClass !== undefined) {
      const vac = world.store.peek(vacType, undefined, attributesClass);
      if (!vac || !driverReaches(driver, vac)) continue;
    }
    const volumeName = `pvc-${pvc.metadata.uid ?? ''}`;
    world.store.create(pvType, {
      apiVersion: 'v1', kind: 'PersistentVolume',
      metadata: { name: volumeName, annotations: { 'pv.kubernetes.io/provisioned-by': driver.name }, finalizers: [pvProtectionFinalizer] },
      spec: {
        capacity: { storage }, accessModes: spec.accessModes ?? ['ReadWriteOnce'], storageClassName: spec.storageClassName,
        persistentVolumeReclaimPolicy: 'Delete', volumeMode: spec.volumeMode ?? 'Filesystem',
        claimRef: { kind: 'PersistentVolumeClaim', namespace: pvc.metadata.namespace, name: pvc.metadata.name, uid: pvc.metadata.uid },
        csi: { driver: driver.name, volumeHandle: volumeName },
        ...(attributesClass === undefined ? {} : { volumeAttributesClassName: attributesClass }),
      },
      status: { phase: 'Bound' },
    });
    world.store.replace(pvcType, {
      ...pvc,
      metadata: { ...pvc.metadata, annotations: { ...pvc.metadata.annotations, 'pv.kubernetes.io/bind-completed': 'yes', 'volume.kubernetes.io/storage-provisioner': driver.name } },
      spec: { ...spec, volumeName },
      status: { phase: 'Bound', accessModes: spec.accessModes ?? ['ReadWriteOnce'], capacity: { storage }, ...(attributesClass === undefined ? {} : { currentVolumeAttributesClassName: attributesClass }) },
    });
    recordEvent(world, pvc, 'Normal', 'ProvisioningSucceeded', `Successfully provisioned volume ${volumeName}`, driver.name);
  }
}
