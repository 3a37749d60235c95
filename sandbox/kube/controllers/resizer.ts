// The external-resizer's resize controller (v2.0.0, RecoverVolumeExpansionFailure on: pkg/controller
// expand_and_recover.go and resize_status.go), held to what it wrote in front of a real v1.34.9 server
// (test/conformance/csi). A bound claim asking for more than its capacity is marked ControllerResizeInProgress with a
// `Resizing` condition and allocatedResources; the driver's answer (after the profile's ticksPerPhase) grows the PV,
// then either leaves the node step pending (NodeResizePending beside the kept `Resizing`, FileSystemResizePending) or,
// for a driver that needs none, finishes with the node-expansion-not-required annotation. An infeasible answer
// (OutOfRange beyond the driver's maximum) marks ControllerResizeInfeasible with a `ControllerResizeError` condition in
// the resizer's words; the status change makes it try once more at once, then the claim waits in the slow set until
// a different size is asked (KEP-1790). While the node step is pending, a new request waits for it.
import { quantityOfBytes, sandboxBytesOf } from '../quantity.ts';
import { mustResourceType, type KubeObject } from '../store.ts';
import { conditionsOf, conditionTime, mergeResizeConditions, writeClaim, type ClaimStatus } from './claim-status.ts';
import { controllerExpandVolume, isFinalError, isInfeasibleResizeError, rpcErrorText } from './csi-driver.ts';
import { backendModification } from './backend-modifications.ts';
import { recordEvent } from './events.ts';
import { podUsing } from './node-expansion.ts';
import { inSlowSet } from './sidecar-memory.ts';
import { driverNamed, type DriverProfile, type World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const pvType = mustResourceType('v1', 'PersistentVolume');

type Json = Record<string, unknown>;

const nodeExpansionNotRequired = 'volume.kubernetes.io/node-expansion-not-required';
const fileSystemResizePendingMessage = 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.';

export function resizeVolumes(world: World): void {
  for (const pvc of world.store.peekList(pvcType)) {
    if (pvc.metadata.deletionTimestamp) continue;
    const pv = boundVolume(world, pvc);
    const driver = driverNamed(world, (pv?.spec?.csi as Json | undefined)?.driver);
    if (!pv || !driver) continue;
    const call = world.sidecars.expandCalls.get(pvc.metadata.uid ?? '');
    if (call) {
      call.ticksLeft -= 1;
      if (call.ticksLeft <= 0) answer(world, pvc, pv, driver, call.size);
      continue;
    }
    sync(world, pvc, pv, driver);
  }
}

/** The PV bound to this claim (claimRef uid agrees), for a Bound claim. */
function boundVolume(world: World, pvc: Readonly<KubeObject>): Readonly<KubeObject> | undefined {
  if (pvc.status?.phase !== 'Bound' || typeof pvc.spec?.volumeName !== 'string' || pvc.spec.volumeName === '') return undefined;
  const pv = world.store.peek(pvType, undefined, pvc.spec.volumeName);
  return (pv?.spec?.claimRef as Json | undefined)?.uid === pvc.metadata.uid ? pv : undefined;
}

const bytes = (value: unknown): bigint | undefined => sandboxBytesOf(value);
const storageOf = (map: unknown): unknown => (map as Json | undefined)?.storage;

/** syncPVC + expandAndRecover up to the driver call: which size to ask for, if any, and the claim marked for it. */
function sync(world: World, pvc: Readonly<KubeObject>, pv: Readonly<KubeObject>, driver: DriverProfile): void {
  const uid = pvc.metadata.uid ?? '';
  const status = (pvc.status ?? {}) as ClaimStatus;
  const request = bytes(storageOf((pvc.spec?.resources as Json | undefined)?.requests)) ?? 0n;
  const capacity = bytes(storageOf(status.capacity)) ?? 0n;
  if (request <= capacity) return; // pvcNeedResize
  const pvSize = bytes(storageOf(pv.spec?.capacity)) ?? 0n;
  const allocated = bytes(storageOf(status.allocatedResources));
  const resizeStatus = status.allocatedResourceStatuses?.storage;
  const nowMs = world.now().getTime();
  const slow = inSlowSet(world.sidecars.slowResize, uid, nowMs);
  if (resizeStatus === 'ControllerResizeInfeasible') world.sidecars.slowResize.set(uid, slow ? world.sidecars.slowResize.get(uid) ?? nowMs : nowMs);

  let newSize = request;
  if (pvSize < request) {
    if (resizeStatus === 'NodeResizeInfeasible') newSize = allocated ?? request;
    else if (resizeStatus === 'NodeResizePending' || resizeStatus === 'NodeResizeInProgress') {
      // Let the node finish the size in flight before asking for another one.
      newSize = allocated ?? request;
      if (pvSize >= newSize) return;
    } else if (resizeStatus === 'ControllerResizeInProgress') {
      newSize = world.sidecars.finalErrors.has(uid) ? request : allocated ?? request;
    }
  } else if (resizeStatus === 'NodeResizePending' || resizeStatus === 'NodeResizeInProgress') {
    return; // the PV has the size: the node step is pending (or the claim was lowered while it was)
  } else if (resizeStatus === 'NodeResizeInfeasible') {
    // Reset for the kubelet to try again; a driver without controller expansion moves to the request (KEP-1790).
    newSize = driver.expansion !== 'node-only' && allocated !== undefined ? allocated : request;
  } else {
    newSize = allocated ?? request;
  }
  let updateStatus = true;
  if (allocated !== undefined && allocated === newSize) {
    if (slow) return; // "skipping volume expansion ... because expansion previously failed with infeasible error"
    updateStatus = false;
  }
  const resizing = { type: 'Resizing', status: 'True', lastProbeTime: null, lastTransitionTime: conditionTime(world) };
  writeClaim(world, pvc, (claim) => {
    claim.status.conditions = mergeResizeConditions(conditionsOf(pvc), [resizing], !updateStatus);
    delete claim.annotations[nodeExpansionNotRequired];
    if (updateStatus) claim.status.allocatedResourceStatuses = { ...claim.status.allocatedResourceStatuses, storage: 'ControllerResizeInProgress' };
    claim.status.allocatedResources = { ...claim.status.allocatedResources, storage: quantityOfBytes(newSize) };
  });
  recordEvent(world, pvc, 'Normal', 'Resizing', `External resizer is resizing volume ${pv.metadata.name}`, component(driver));
  world.sidecars.expandCalls.set(uid, { size: newSize, ticksLeft: driver.ticksPerPhase });
  if (driver.ticksPerPhase <= 0) answer(world, pvc, pv, driver, newSize);
}

/** callResizeOnPlugin: the driver's answer, and what the resizer writes for it. */
function answer(world: World, pvc: Readonly<KubeObject>, pv: Readonly<KubeObject>, driver: DriverProfile, size: bigint): void {
  const uid = pvc.metadata.uid ?? '';
  world.sidecars.expandCalls.delete(uid);
  const failsNow = driver.transientErrorRate > 0 && world.random() < driver.transientErrorRate;
  const expanded = controllerExpandVolume(driver, size, failsNow);
  // The driver's answer stands when it refuses before calling the backend, or expands on the node only.
  const refusedByBackend = expanded.error || driver.expansion === 'node-only' ? undefined : backendModification(world, pv, driver, 'expand');
  const reply = refusedByBackend ? { error: refusedByBackend } : expanded;
  const current = world.store.peek(pvcType, pvc.metadata.namespace, pvc.metadata.name) ?? pvc;
  if (reply.error) {
    const error = reply.error;
    const before = current.status?.allocatedResourceStatuses;
    if (isFinalError(error)) {
      world.sidecars.finalErrors.add(uid);
      if (!isInfeasibleResizeError(error)) world.sidecars.slowResize.delete(uid);
      const condition = { type: 'ControllerResizeError', status: 'True', lastProbeTime: null, lastTransitionTime: conditionTime(world), message: `failed to expand pvc with ${rpcErrorText(error)}` };
      writeClaim(world, current, (claim) => {
        if (isInfeasibleResizeError(error)) claim.status.allocatedResourceStatuses = { ...claim.status.allocatedResourceStatuses, storage: 'ControllerResizeInfeasible' };
        claim.status.conditions = mergeResizeConditions(conditionsOf(current), [condition], true);
      });
    } else {
      world.sidecars.slowResize.delete(uid);
      world.sidecars.finalErrors.delete(uid);
    }
    recordEvent(world, current, 'Warning', 'VolumeResizeFailed', `resize volume "${pv.metadata.name}" by resizer "${driver.name}" failed: ${rpcErrorText(error)}`, component(driver));
    // A changed resize status is an update event: the claim is synced again at once (the second try the recordings show).
    const after = world.store.peek(pvcType, pvc.metadata.namespace, pvc.metadata.name);
    const freshPv = world.store.peek(pvType, undefined, pv.metadata.name);
    if (after && freshPv && (after.status?.allocatedResourceStatuses as Json | undefined)?.storage !== (before as Json | undefined)?.storage) sync(world, after, freshPv, driver);
    return;
  }
  world.sidecars.finalErrors.delete(uid);
  world.sidecars.slowResize.delete(uid);
  const freshPv = world.store.peek(pvType, undefined, pv.metadata.name);
  if (freshPv) world.store.replace(pvType, { ...freshPv, spec: { ...(freshPv.spec ?? {}), capacity: { ...(freshPv.spec?.capacity as Json | undefined), storage: quantityOfBytes(size) } } });
  if (reply.nodeExpansionRequired) {
    const pending = { type: 'FileSystemResizePending', status: 'True', lastProbeTime: null, lastTransitionTime: conditionTime(world), message: fileSystemResizePendingMessage };
    writeClaim(world, current, (claim) => {
      claim.status.conditions = mergeResizeConditions(conditionsOf(current), [pending], true);
      delete claim.annotations[nodeExpansionNotRequired];
      claim.status.allocatedResourceStatuses = { ...claim.status.allocatedResourceStatuses, storage: 'NodeResizePending' };
    });
    recordEvent(world, current, 'Normal', 'FileSystemResizeRequired', 'Require file system resize of volume on node', component(driver));
    // The pod mounting it now is the one an offline expansion needs restarted; one started from here on will do.
    world.sidecars.podsAtNodePending.set(uid, podUsing(world, current)?.metadata.uid ?? '');
    return;
  }
  writeClaim(world, current, (claim) => {
    claim.status.capacity = { ...claim.status.capacity, storage: quantityOfBytes(size) };
    claim.status.conditions = mergeResizeConditions(conditionsOf(current), [], false);
    const statuses = { ...claim.status.allocatedResourceStatuses };
    delete statuses.storage;
    claim.status.allocatedResourceStatuses = statuses;
    claim.annotations[nodeExpansionNotRequired] = 'true';
  });
  recordEvent(world, current, 'Normal', 'VolumeResizeSuccessful', 'Resize volume succeeded', component(driver));
}

export function component(driver: DriverProfile): string {
  return `external-resizer ${driver.name}`;
}
