// kube-controller-manager's persistent volume controller, as the recorded v1.34.9 cluster ran it: a claim waiting for a
// dynamically provisioned volume is handed to its class's provisioner (the storage-provisioner annotations, then the
// Event ExternalProvisioning); it binds a volume and the claim its claimRef names (or a claim naming a volume that names
// none): the volume Bound, then the claim's volumeName and bind annotations, then its status Bound with the volume's
// capacity, access modes and VolumeAttributesClass, as two writes like the real controller's. It reports claims left
// waiting for their first consumer (WaitForFirstConsumer). Provisioning itself is the CSI driver's (provisioner.ts).
// v1.26.5 as recorded ran no binder; that profile leaves it off.
import { mustResourceType, type KubeObject } from '../store.ts';
import { recordEvent } from './events.ts';
import type { World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const podType = mustResourceType('v1', 'Pod');
const eventType = mustResourceType('v1', 'Event');
const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');

type Json = Record<string, unknown>;
interface ClaimRef { kind?: string; apiVersion?: string; namespace?: string; name?: string; uid?: string; resourceVersion?: string }

const component = 'persistentvolume-controller';
/** Which provisioner a claim is handed to (the PV controller's setClaimProvisioner; a beta copy beside it). */
export const storageProvisionerAnnotation = 'volume.kubernetes.io/storage-provisioner';

export function bindVolumes(world: World): void {
  if (!world.server.persistentVolumeBinder) return;
  const { store } = world;
  for (const pv of store.peekList(pvType)) {
    if (pv.metadata.deletionTimestamp) continue;
    const ref = pv.spec?.claimRef as ClaimRef | undefined;
    if (!ref?.name) continue;
    const pvc = store.peek(pvcType, ref.namespace ?? 'default', ref.name);
    if (!pvc || pvc.metadata.deletionTimestamp || (ref.uid !== undefined && ref.uid !== pvc.metadata.uid)) continue;
    const volumeName = pvc.spec?.volumeName;
    if (typeof volumeName === 'string' && volumeName !== '' && volumeName !== pv.metadata.name) continue;
    if (pv.status?.phase === 'Bound' && pvc.status?.phase === 'Bound' && ref.uid !== undefined) continue;
    bind(world, pv, pvc);
  }
  // A claim that names a volume nobody has claimed: the volume is claimed for it, then bound.
  for (const pvc of store.peekList(pvcType)) {
    const volumeName = pvc.spec?.volumeName;
    if (pvc.status?.phase === 'Bound' || pvc.metadata.deletionTimestamp || typeof volumeName !== 'string' || volumeName === '') continue;
    const pv = store.peek(pvType, undefined, volumeName);
    if (!pv || pv.metadata.deletionTimestamp || (pv.spec?.claimRef as ClaimRef | undefined)?.name) continue;
    bind(world, { ...pv, metadata: { ...pv.metadata, annotations: { ...pv.metadata.annotations, 'pv.kubernetes.io/bound-by-controller': 'yes' } } }, pvc);
  }
  reportWaitingClaims(world);
}

function bind(world: World, pv: Readonly<KubeObject>, pvc: Readonly<KubeObject>): void {
  const { store } = world;
  const claimRef: ClaimRef = {
    kind: 'PersistentVolumeClaim', namespace: pvc.metadata.namespace, name: pvc.metadata.name, uid: pvc.metadata.uid,
    apiVersion: 'v1', resourceVersion: pvc.metadata.resourceVersion,
  };
  const now = store.timestamp();
  const phaseChanged = pv.status?.phase !== 'Bound';
  store.replace(pvType, {
    ...pv,
    spec: { ...pv.spec, claimRef },
    status: { ...pv.status, phase: 'Bound', ...(phaseChanged ? { lastPhaseTransitionTime: now } : {}) },
  });
  const spec = pv.spec ?? {};
  const namedByController = typeof pvc.spec?.volumeName !== 'string' || pvc.spec.volumeName === '';
  const attributesClass = world.server.volumeAttributesClasses && typeof spec.volumeAttributesClassName === 'string' ? { currentVolumeAttributesClassName: spec.volumeAttributesClassName } : {};
  const fresh = store.peek(pvcType, pvc.metadata.namespace, pvc.metadata.name) ?? pvc;
  // bindClaimToVolume, then updateClaimStatus: two versions of the claim, as a watch on a real cluster sees them.
  store.replace(pvcType, {
    ...fresh,
    metadata: {
      ...fresh.metadata,
      annotations: { ...fresh.metadata.annotations, 'pv.kubernetes.io/bind-completed': 'yes', ...(namedByController ? { 'pv.kubernetes.io/bound-by-controller': 'yes' } : {}) },
    },
    spec: { ...fresh.spec, volumeName: pv.metadata.name },
  });
  const named = store.peek(pvcType, pvc.metadata.namespace, pvc.metadata.name) ?? fresh;
  store.replace(pvcType, {
    ...named,
    status: { ...named.status, phase: 'Bound', accessModes: spec.accessModes ?? [], capacity: spec.capacity ?? {}, ...attributesClass },
  });
}

/**
 * Claims still Pending without a volume: one waiting for its first consumer is said so; one whose class names a
 * provisioner is handed to it (both storage-provisioner annotations) and the wait is said (once; a real controller
 * repeats it on each sync of the claim, counted).
 */
function reportWaitingClaims(world: World): void {
  const { store } = world;
  for (const pvc of store.peekList(pvcType)) {
    if (pvc.status?.phase === 'Bound' || pvc.metadata.deletionTimestamp || (typeof pvc.spec?.volumeName === 'string' && pvc.spec.volumeName !== '')) continue;
    const className = pvc.spec?.storageClassName;
    const storageClass = typeof className === 'string' && className !== '' ? store.peek(storageClassType, undefined, className) : undefined;
    if (!storageClass) continue;
    const reported = (reason: string): boolean => store.peekList(eventType, pvc.metadata.namespace).some((e) => (e.involvedObject as { uid?: string } | undefined)?.uid === pvc.metadata.uid && e.reason === reason);
    if (storageClass.volumeBindingMode === 'WaitForFirstConsumer' && !usedByPod(world, pvc)) {
      if (!reported('WaitForFirstConsumer')) recordEvent(world, pvc, 'Normal', 'WaitForFirstConsumer', 'waiting for first consumer to be created before binding', component);
      continue;
    }
    const provisioner = String(storageClass.provisioner);
    if (pvc.metadata.annotations?.[storageProvisionerAnnotation] !== provisioner) {
      store.replace(pvcType, {
        ...pvc,
        metadata: { ...pvc.metadata, annotations: { ...pvc.metadata.annotations, 'volume.beta.kubernetes.io/storage-provisioner': provisioner, [storageProvisionerAnnotation]: provisioner } },
      });
    }
    if (!reported('ExternalProvisioning')) {
      recordEvent(world, pvc, 'Normal', 'ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${provisioner}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`, component);
    }
  }
}

export function usedByPod(world: World, pvc: Readonly<KubeObject>): boolean {
  return world.store.peekList(podType, pvc.metadata.namespace).some((pod) => !pod.metadata.deletionTimestamp
    && ((pod.spec?.volumes ?? []) as Json[]).some((v) => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName === pvc.metadata.name));
}
