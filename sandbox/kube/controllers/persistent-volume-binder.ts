// kube-controller-manager's persistent volume controller, as the recorded v1.34.9 cluster ran it: it binds a volume
// and the claim its claimRef names (or a claim naming a volume that names none): both Bound, the claim's capacity,
// access modes and current VolumeAttributesClass from the volume. It reports claims left waiting: for their first
// consumer (WaitForFirstConsumer), or for an external provisioner. Provisioning itself is the CSI driver's
// (provisioner.ts). v1.26.5 as recorded ran no binder; that profile leaves it off.
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
  store.replace(pvcType, {
    ...fresh,
    metadata: {
      ...fresh.metadata,
      annotations: { ...fresh.metadata.annotations, 'pv.kubernetes.io/bind-completed': 'yes', ...(namedByController ? { 'pv.kubernetes.io/bound-by-controller': 'yes' } : {}) },
    },
    spec: { ...fresh.spec, volumeName: pv.metadata.name },
    status: { ...fresh.status, phase: 'Bound', accessModes: spec.accessModes ?? [], capacity: spec.capacity ?? {}, ...attributesClass },
  });
}

/** The controller's Events on claims still Pending without a volume (once each; a real one repeats them, counted). */
function reportWaitingClaims(world: World): void {
  const { store } = world;
  for (const pvc of store.peekList(pvcType)) {
    if (pvc.status?.phase === 'Bound' || pvc.metadata.deletionTimestamp || (typeof pvc.spec?.volumeName === 'string' && pvc.spec.volumeName !== '')) continue;
    const className = pvc.spec?.storageClassName;
    const storageClass = typeof className === 'string' && className !== '' ? store.peek(storageClassType, undefined, className) : undefined;
    if (!storageClass) continue;
    const waitsForConsumer = storageClass.volumeBindingMode === 'WaitForFirstConsumer' && !usedByPod(world, pvc);
    const [reason, message] = waitsForConsumer
      ? ['WaitForFirstConsumer', 'waiting for first consumer to be created before binding']
      : ['ExternalProvisioning', `Waiting for a volume to be created either by the external provisioner '${String(storageClass.provisioner)}' or manually by the system administrator. If volume creation is delayed, please verify that the provisioner is running and correctly registered.`];
    const reported = store.peekList(eventType, pvc.metadata.namespace).some((e) => (e.involvedObject as { uid?: string } | undefined)?.uid === pvc.metadata.uid && e.reason === reason);
    if (!reported) recordEvent(world, pvc, 'Normal', reason, message, component);
  }
}

export function usedByPod(world: World, pvc: Readonly<KubeObject>): boolean {
  return world.store.peekList(podType, pvc.metadata.namespace).some((pod) => !pod.metadata.deletionTimestamp
    && ((pod.spec?.volumes ?? []) as Json[]).some((v) => (v.persistentVolumeClaim as { claimName?: string } | undefined)?.claimName === pvc.metadata.name));
}
