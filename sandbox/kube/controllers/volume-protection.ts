// The pvc-protection and pv-protection controllers: a PVC or PV carries its protection finalizer from creation (the
// StorageObjectInUseProtection admission plugin adds it), so deleting one in use only marks it; the controller drops
// the finalizer once no pod uses the claim (no claim is bound to the volume), and the object is gone. The same for a
// VolumeAttributesClass (kubernetes.io/vac-protection) once no claim or volume names it.
import { mustResourceType, type KubeObject, type ResourceType } from '../store.ts';
import type { World } from './world.ts';

export const pvcProtectionFinalizer = 'kubernetes.io/pvc-protection';
export const pvProtectionFinalizer = 'kubernetes.io/pv-protection';
export const vacProtectionFinalizer = 'kubernetes.io/vac-protection';

const podType = mustResourceType('v1', 'Pod');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const vacType = mustResourceType('storage.k8s.io/v1', 'VolumeAttributesClass');

function claimsOf(pod: KubeObject): string[] {
  return ((pod.spec?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>)
    .flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));
}

function release(world: World, type: ResourceType, object: KubeObject, finalizer: string): void {
  const finalizers = (object.metadata.finalizers ?? []).filter((f) => f !== finalizer);
  if (finalizers.length === 0) world.store.remove(type, object.metadata.namespace, object.metadata.name);
  else world.store.replace(type, { ...object, metadata: { ...object.metadata, finalizers } });
}

export function protectVolumes(world: World): void {
  const { store } = world;
  for (const pvc of store.peekList(pvcType)) {
    if (!pvc.metadata.deletionTimestamp || !(pvc.metadata.finalizers ?? []).includes(pvcProtectionFinalizer)) continue;
    const inUse = store.peekList(podType, pvc.metadata.namespace)
      .some((pod) => !['Succeeded', 'Failed'].includes(String(pod.status?.phase)) && claimsOf(pod).includes(pvc.metadata.name));
    if (!inUse) release(world, pvcType, pvc, pvcProtectionFinalizer);
  }
  for (const pv of store.peekList(pvType)) {
    if (!pv.metadata.deletionTimestamp || !(pv.metadata.finalizers ?? []).includes(pvProtectionFinalizer)) continue;
    const claimRef = pv.spec?.claimRef as { namespace?: string; name?: string } | undefined;
    const claim = claimRef?.name ? store.peek(pvcType, claimRef.namespace, claimRef.name) : undefined;
    const bound = pv.status?.phase === 'Bound' && claim?.spec?.volumeName === pv.metadata.name;
    if (!bound) release(world, pvType, pv, pvProtectionFinalizer);
  }
  protectVolumeAttributesClasses(world);
}

/** The vac-protection controller: a class being deleted goes once no claim or volume names it (spec, status or target). */
function protectVolumeAttributesClasses(world: World): void {
  const { store } = world;
  const deleting = store.peekList(vacType).filter((vac) => vac.metadata.deletionTimestamp && (vac.metadata.finalizers ?? []).includes(vacProtectionFinalizer));
  if (deleting.length === 0) return;
  const inUse = new Set<unknown>();
  for (const pvc of store.peekList(pvcType)) {
    inUse.add(pvc.spec?.volumeAttributesClassName);
    inUse.add(pvc.status?.currentVolumeAttributesClassName);
    inUse.add((pvc.status?.modifyVolumeStatus as { targetVolumeAttributesClassName?: string } | undefined)?.targetVolumeAttributesClassName);
  }
  for (const pv of store.peekList(pvType)) inUse.add(pv.spec?.volumeAttributesClassName);
  for (const vac of deleting) if (!inUse.has(vac.metadata.name)) release(world, vacType, vac, vacProtectionFinalizer);
}
