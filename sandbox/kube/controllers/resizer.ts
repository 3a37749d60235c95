// The external-resizer and the kubelet's node expansion, per KEP-0284 and KEP-1790: allocatedResources and
// allocatedResourceStatuses move ControllerResizeInProgress -> NodeResizePending -> NodeResizeInProgress -> done;
// terminal failures (*Infeasible) stop until the user lowers the request; transient ones (*ResizeError) retry; an
// expansion in progress keeps working towards allocatedResources whatever the request says meanwhile.
import { quantityOfBytes, sandboxBytesOf } from '../quantity.ts';
import { mustResourceType, type KubeObject } from '../store.ts';
import { recordEvent } from './events.ts';
import { isRunningAndReady } from './statefulset.ts';
import { driverFor, type DriverProfile, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');
const podType = mustResourceType('v1', 'Pod');
const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');

type Json = Record<string, unknown>;
interface Condition { type: string; status: string; reason?: string; message?: string; lastProbeTime?: string | null; lastTransitionTime?: string }

const terminal = new Set(['ControllerResizeInfeasible', 'NodeResizeInfeasible', 'ControllerResizeFailed', 'NodeResizeFailed']);

export function resizeVolumes(world: World): void {
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.status?.phase !== 'Bound' || pvc.metadata.deletionTimestamp) continue;
    const className = pvc.spec?.storageClassName;
    const storageClass = typeof className === 'string' ? world.store.peek(storageClassType, undefined, className) : undefined;
    if (storageClass?.allowVolumeExpansion !== true) continue;
    stepPvc(world, pvc, driverFor(world, pvc.spec?.storageClassName));
  }
}

function stepPvc(world: World, pvc: KubeObject, driver: DriverProfile): void {
  const status = (pvc.status ?? {}) as Json;
  const request = sandboxBytesOf(((pvc.spec?.resources as Json | undefined)?.requests as Json | undefined)?.storage) ?? 0n;
  const capacity = sandboxBytesOf((status.capacity as Json | undefined)?.storage) ?? 0n;
  const allocated = sandboxBytesOf((status.allocatedResources as Json | undefined)?.storage);
  const phase = (status.allocatedResourceStatuses as Json | undefined)?.storage as string | undefined;
  const uid = pvc.metadata.uid ?? '';

  if (phase === 'ControllerResizeInProgress' && allocated !== undefined) {
    if (!advance(world, uid, driver)) return;
    if (transientFailure(world, driver)) {
      write(world, pvc, { conditions: upsertCondition(status, { type: 'ControllerResizeError', status: 'True', message: `resize volume "${volumeName(pvc)}" by resizer "${driver.name}" failed: rpc error: code = Unavailable desc = backend temporarily unavailable` }) });
      recordEvent(world, pvc, 'Warning', 'VolumeResizeFailed', `resize volume "${volumeName(pvc)}" by resizer "${driver.name}" failed: rpc error: code = Unavailable desc = backend temporarily unavailable`, `external-resizer ${driver.name}`);
      return;
    }
    if (driver.expansion !== 'node-only' && driver.maxVolumeBytes !== undefined && allocated > driver.maxVolumeBytes) {
      const message = `resize volume "${volumeName(pvc)}" by resizer "${driver.name}" failed: rpc error: code = OutOfRange desc = Requested capacity ${allocated} exceeds maximum allowed ${driver.maxVolumeBytes}`;
      write(world, pvc, {
        allocatedResourceStatuses: { storage: 'ControllerResizeInfeasible' },
        conditions: upsertCondition(withoutConditions(status, ['Resizing']), { type: 'ControllerResizeError', status: 'True', message }),
      });
      recordEvent(world, pvc, 'Warning', 'VolumeResizeFailed', message, `external-resizer ${driver.name}`);
      return;
    }
    setPvCapacity(world, pvc, allocated);
    if (driver.expansion === 'controller-only') {
      finish(world, pvc, allocated, driver, 'VolumeResizeSuccessful', 'ExternalResizer resized volume successfully');
      return;
    }
    write(world, pvc, {
      allocatedResourceStatuses: { storage: 'NodeResizePending' },
      conditions: upsertCondition(withoutConditions(status, ['Resizing', 'ControllerResizeError']), { type: 'FileSystemResizePending', status: 'True', message: 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.' }),
    });
    recordEvent(world, pvc, 'Normal', 'FileSystemResizeRequired', 'Require file system resize of volume on node', `external-resizer ${driver.name}`);
    // Offline expansion finishes only in a pod started after this point: remember the pod that was running.
    world.podsAtNodePending.set(uid, podUsing(world, pvc)?.metadata.uid ?? '');
    return;
  }

  if ((phase === 'NodeResizePending' || phase === 'NodeResizeInProgress') && allocated !== undefined) {
    const pod = podUsing(world, pvc);
    if (!pod || !isRunningAndReady(pod)) return;
    if (driver.nodeExpansion === 'offline' && !podStartedAfterExpansion(world, pvc, pod)) return;
    if (phase === 'NodeResizePending') {
      write(world, pvc, { allocatedResourceStatuses: { storage: 'NodeResizeInProgress' } });
      return;
    }
    if (!advance(world, uid, driver)) return;
    if (transientFailure(world, driver)) {
      write(world, pvc, { conditions: upsertCondition(status, { type: 'NodeResizeError', status: 'True', message: `MountVolume.NodeExpandVolume failed for volume "${volumeName(pvc)}": rpc error: code = Internal desc = resize2fs temporarily failed` }) });
      return;
    }
    if (driver.expansion === 'node-only' && driver.maxVolumeBytes !== undefined && allocated > driver.maxVolumeBytes) {
      const message = `MountVolume.NodeExpandVolume failed for volume "${volumeName(pvc)}": rpc error: code = OutOfRange desc = Requested capacity ${allocated} exceeds maximum allowed ${driver.maxVolumeBytes}`;
      write(world, pvc, {
        allocatedResourceStatuses: { storage: 'NodeResizeInfeasible' },
        conditions: upsertCondition(withoutConditions(status, ['FileSystemResizePending']), { type: 'NodeResizeError', status: 'True', message }),
      });
      recordEvent(world, pvc, 'Warning', 'VolumeResizeFailed', message, 'kubelet');
      return;
    }
    finish(world, pvc, allocated, driver, 'FileSystemResizeSuccessful', `MountVolume.NodeExpandVolume succeeded for volume "${volumeName(pvc)}"`);
    return;
  }

  // Nothing in flight (or the last attempt failed for good): start towards the request if it is above capacity.
  // After a terminal failure only a different (lower) request restarts expansion (KEP-1790).
  if (request <= capacity) return;
  if (phase !== undefined && terminal.has(phase) && allocated === request) return;
  world.resizeTicks.delete(uid);
  write(world, pvc, {
    allocatedResources: { storage: quantityOfBytes(request) },
    allocatedResourceStatuses: { storage: 'ControllerResizeInProgress' },
    conditions: upsertCondition(withoutConditions(status, ['ControllerResizeError', 'NodeResizeError', 'FileSystemResizePending']), { type: 'Resizing', status: 'True' }),
  });
  recordEvent(world, pvc, 'Normal', 'Resizing', `External resizer is resizing volume ${volumeName(pvc)}`, `external-resizer ${driver.name}`);
}

function advance(world: World, uid: string, driver: DriverProfile): boolean {
  const ticks = (world.resizeTicks.get(uid) ?? 0) + 1;
  if (ticks < driver.ticksPerPhase) {
    world.resizeTicks.set(uid, ticks);
    return false;
  }
  world.resizeTicks.set(uid, 0);
  return true;
}

function transientFailure(world: World, driver: DriverProfile): boolean {
  return driver.transientErrorRate > 0 && world.random() < driver.transientErrorRate;
}

function finish(world: World, pvc: KubeObject, allocated: bigint, driver: DriverProfile, reason: string, message: string): void {
  const status = (pvc.status ?? {}) as Json;
  const rest = { ...status };
  delete rest.allocatedResourceStatuses;
  world.store.replace(pvcType, {
    ...pvc,
    status: { ...rest, capacity: { storage: quantityOfBytes(allocated) }, conditions: [] },
  });
  world.resizeTicks.delete(pvc.metadata.uid ?? '');
  recordEvent(world, pvc, 'Normal', reason, message, reason === 'FileSystemResizeSuccessful' ? 'kubelet' : `external-resizer ${driver.name}`);
  if (reason === 'FileSystemResizeSuccessful') recordEvent(world, pvc, 'Normal', 'VolumeResizeSuccessful', 'Volume resize is successful', 'kubelet');
}

function write(world: World, pvc: KubeObject, changes: Json): void {
  const fresh = world.store.get(pvcType, pvc.metadata.namespace, pvc.metadata.name) ?? pvc;
  world.store.replace(pvcType, { ...fresh, status: { ...(fresh.status ?? {}), ...changes } });
}

function withoutConditions(status: Json, types: string[]): Json {
  return { ...status, conditions: ((status.conditions ?? []) as Condition[]).filter((c) => !types.includes(c.type)) };
}

function upsertCondition(status: Json, condition: Condition): Condition[] {
  const others = ((status.conditions ?? []) as Condition[]).filter((c) => c.type !== condition.type);
  return [...others, { lastProbeTime: null, lastTransitionTime: new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'), ...condition }];
}

function setPvCapacity(world: World, pvc: KubeObject, bytes: bigint): void {
  const pv = world.store.get(pvType, undefined, volumeName(pvc));
  if (!pv) return;
  world.store.replace(pvType, { ...pv, spec: { ...(pv.spec ?? {}), capacity: { storage: quantityOfBytes(bytes) } } });
}

function volumeName(pvc: KubeObject): string {
  return typeof pvc.spec?.volumeName === 'string' ? pvc.spec.volumeName : '';
}

function podUsing(world: World, pvc: KubeObject): KubeObject | undefined {
  return world.store.peekList(podType, pvc.metadata.namespace).find((pod) =>
    ((pod.spec?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>).some((v) => v.persistentVolumeClaim?.claimName === pvc.metadata.name));
}

function podStartedAfterExpansion(world: World, pvc: KubeObject, pod: KubeObject): boolean {
  const before = world.podsAtNodePending.get(pvc.metadata.uid ?? '');
  return before !== undefined && pod.metadata.uid !== before;
}
