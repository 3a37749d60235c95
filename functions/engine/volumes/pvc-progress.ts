// Where one PVC stands on its way to the template's size, read from the fields KEP-0284 and KEP-1790 define, as the
// CSI external-resizer writes them (recorded: ../shared/conformance/csi-v1.34.9/). Pure: used by the rollout, the
// status annotation, the PR feedback and the recovery sizing.
import { expansionFailedForGood, type LivePvc, type PvcCondition } from '../../domain/live-state.ts';
import { compareQuantities, spelledLike, type Quantity } from '../../domain/quantity.ts';
import { keepsRefusedRequest, keptRequestWords } from './at-driver-maximum.ts';

export type PvcState =
  | 'missing'
  | 'waiting-for-pod'
  | 'to-patch'
  | 'patched'
  | 'resizing-controller'
  /** NodeResizePending: the kubelet expands the file system once a pod mounts the volume. */
  | 'waiting-for-node'
  /** NodeResizeInProgress: the kubelet is expanding it. */
  | 'resizing-node'
  /** Waiting for (or on) the node for longer than the target's `stalledAfter` (engine/volumes/node-expansion.ts): a person must act. */
  | 'stalled-on-node'
  | 'retrying'
  /**
   * The volume is within its CSI driver's modification window (AWS EBS: four modifications per volume within 24 hours,
   * none while one is under way): not patched until it has passed (modification-windows.ts), or, patched, refused by
   * the driver in its own words,
   * which the resizer retries until the backend takes it. Never a failure.
   */
  | 'waiting-for-window'
  | 'in-progress-other-size'
  | 'modifying'
  /** `modifyVolumeStatus: Pending`: the resizer cannot start the modification (the class does not exist). */
  | 'class-pending'
  | 'done'
  | 'failed';

/** A status condition of the claim, as the cluster wrote it: the resizer's own words. */
export interface ClaimCondition {
  type: string;
  reason?: string;
  message: string;
}

export interface PvcProgress {
  name: string;
  ordinal: number;
  state: PvcState;
  request: Quantity | undefined;
  capacity: Quantity | undefined;
  /** Why it is failed, retrying, waiting or held back, in the words of whoever said it. */
  message: string | undefined;
  /** Terminal expansion failure (`*ResizeInfeasible` or the pre-1.31 `*ResizeFailed`). */
  terminal: boolean;
  /**
   * When the current step began, as the cluster recorded it: the failed attempt's error condition (the resizer dates it
   * from the resize's start), the node wait's FileSystemResizePending, the modification's ModifyingVolume; else the
   * newest condition (absent when it has none).
   */
  since: string | undefined;
  /** The condition that says why it failed or waits (ControllerResizeError, ModifyVolumeError, FileSystemResizePending). */
  condition?: ClaimCondition;
  /** Waiting for the node with a larger request behind it: what is allocated, and that the larger size waits its turn. */
  queued?: string;
  /** What failed terminally: the expansion, or the modification to the template's volumeAttributesClass. */
  failedOn?: 'size' | 'class';
  /** `status.currentVolumeAttributesClassName`, and `modifyVolumeStatus.status` while a modification is under way. */
  requestedClass?: string | undefined;
  currentClass?: string | undefined;
  modifyStatus?: string | undefined;
}

/**
 * A backend's refusal of a modification within its limit, in its own words: AWS EC2's error codes, as
 * aws-ebs-csi-driver passes them on: `api error VolumeModificationRateExceeded: You've reached the maximum modification
 * rate per volume limit. ...` (more modifications within the window than the limit; the words after the first
 * sentence changed with the limit in January 2026), and `IncorrectModificationState: Volume vol-... cannot be modified
 * in modification state OPTIMIZING` (one still under way; kubernetes/kubernetes#69434). Matched on the codes.
 */
export function refusedWithinWindow(message: string | undefined): boolean {
  return message !== undefined && /VolumeModificationRateExceeded|maximum modification rate per volume|IncorrectModificationState/.test(message);
}

/** The claim asks for the size and its volume has it, or its volume has it and it is left asking for a refused one. */
export function hasReachedSize(pvc: LivePvc, desired: Quantity): boolean {
  return (pvc.request !== undefined && compareQuantities(pvc.request, desired) === 0
    && pvc.capacity !== undefined && compareQuantities(pvc.capacity, desired) >= 0) || keepsRefusedRequest(pvc, desired);
}

function trueCondition(pvc: LivePvc, type: string): PvcCondition | undefined {
  return pvc.conditions.find((c) => c.type === type && c.status === 'True');
}

function claimCondition(found: PvcCondition | undefined): ClaimCondition | undefined {
  if (!found) return undefined;
  return { type: found.type, ...(found.reason ? { reason: found.reason } : {}), message: found.message ?? found.reason ?? found.type };
}

/**
 * The state of a PVC as the cluster shows it, before this pass acts on it: its size, then (with `desiredClass`) its
 * volumeAttributesClass (KEP-3751), both of which must be reached for `done`.
 */
export function describePvc(name: string, ordinal: number, pvc: LivePvc | undefined, desired: Quantity, desiredClass?: string): PvcProgress {
  const size = describePvcSize(name, ordinal, pvc, desired);
  if (!pvc || desiredClass === undefined) return size;
  const withClass = {
    ...size, requestedClass: pvc.volumeAttributesClassName, currentClass: pvc.currentVolumeAttributesClassName, modifyStatus: pvc.modifyVolumeStatus?.status,
  };
  if (size.state === 'failed' || size.state === 'in-progress-other-size' || size.state === 'missing') return withClass;
  if (pvc.volumeAttributesClassName !== desiredClass) return { ...withClass, state: 'to-patch' };
  // The volume has the class: done, whatever a modification's status still lists (a rollback to the current class
  // keeps the refused one's ModifyVolumeError while InProgress, as recorded on v1.34.9).
  if (pvc.currentVolumeAttributesClassName === desiredClass) return withClass;
  const modify = pvc.modifyVolumeStatus;
  const modifying = trueCondition(pvc, 'ModifyingVolume');
  if (modify?.status === 'Infeasible' && modify.targetVolumeAttributesClassName === desiredClass) {
    const error = trueCondition(pvc, 'ModifyVolumeError');
    const driver = error?.message ?? error?.reason;
    const stays = pvc.currentVolumeAttributesClassName ? `in ${pvc.currentVolumeAttributesClassName}` : 'without a class';
    return {
      ...withClass, state: 'failed', terminal: true, failedOn: 'class',
      since: error?.lastTransitionTime ?? modifying?.lastTransitionTime ?? size.since,
      message: `the driver refused to modify the volume to VolumeAttributesClass ${desiredClass}${driver ? `: ${driver}` : ''} `
        + `(modifyVolumeStatus Infeasible${error?.reason && error.reason !== driver ? `, ${error.reason}` : ''}); it stays ${stays}`,
      ...(error ? { condition: claimCondition(error) } : {}),
    };
  }
  if (size.state !== 'done') return withClass; // the size is on its way; the class follows
  if (modify?.status === 'Pending') {
    // The resizer writes Pending (with no target) when it cannot start: the class it is asked for does not exist.
    return {
      ...withClass, state: 'class-pending',
      message: `the resizer has not started the modification to ${desiredClass} (modifyVolumeStatus Pending): VolumeAttributesClass ${desiredClass} `
        + 'does not exist or is not yet known to it; create the class, or name one that exists',
    };
  }
  // The backend's limit refused it (a class change counts as a modification): the resizer retries; it waits, never fails.
  const refusal = trueCondition(pvc, 'ModifyVolumeError');
  if (modify?.status === 'InProgress' && refusal && refusedWithinWindow(refusal.message)) {
    return {
      ...withClass, state: 'waiting-for-window', message: `waiting for the driver's window: ${refusal.message ?? ''}`,
      since: refusal.lastTransitionTime ?? size.since, condition: claimCondition(refusal),
    };
  }
  // A status left from another target (a refused class asked for before this one) is not this modification's.
  const ownStatus = modify && (modify.targetVolumeAttributesClassName === undefined || modify.targetVolumeAttributesClassName === desiredClass) ? ` (${modify.status})` : '';
  return {
    ...withClass, state: 'modifying', since: modifying?.lastTransitionTime ?? size.since,
    message: `modifying from ${pvc.currentVolumeAttributesClassName ?? '(none)'} to ${desiredClass}${ownStatus}`,
  };
}

function describePvcSize(name: string, ordinal: number, pvc: LivePvc | undefined, desired: Quantity): PvcProgress {
  const since = pvc?.conditions.map((c) => c.lastTransitionTime).filter((t): t is string => t !== undefined).sort().at(-1);
  const base = { name, ordinal, request: pvc?.request, capacity: pvc?.capacity, message: undefined, terminal: false, since };
  if (!pvc) return { ...base, state: 'missing', message: 'the StatefulSet controller has not created it yet' };
  if (keepsRefusedRequest(pvc, desired) && pvc.request) {
    return { ...base, state: 'done', message: keptRequestWords(spelledLike(pvc.request, desired) ?? pvc.request.text, desired.text) };
  }
  if (hasReachedSize(pvc, desired)) return { ...base, state: 'done' };
  const condition = (type: string) => trueCondition(pvc, type);
  const requestIsDesired = pvc.request !== undefined && compareQuantities(pvc.request, desired) === 0;

  // The step the status names: a claim keeps the error conditions of steps it has since passed (below).
  const onNode = pvc.resizeStatus?.startsWith('Node') === true;
  if (expansionFailedForGood(pvc)) {
    // Terminal whatever stands beside it: the real resizer keeps `Resizing` True beside ControllerResizeError, and a
    // node's refusal stays one while the resizer hands it back to the kubelet (domain/live-state.ts refusedOnNode).
    const error = onNode ? condition('NodeResizeError') ?? condition('ControllerResizeError') : condition('ControllerResizeError') ?? condition('NodeResizeError');
    const message = error?.message ?? error?.reason ?? pvc.resizeStatus;
    // A failure for another size than the one we now want is history: the new request restarts expansion (KEP-1790).
    if (!requestIsDesired || (pvc.allocated && compareQuantities(pvc.allocated, desired) !== 0)) {
      // Still terminal: should the new request be blocked (above the driver's maximum), the claim stays refused.
      return { ...base, state: requestIsDesired ? 'patched' : 'to-patch', message: `previous expansion failed: ${message}`, terminal: true, failedOn: 'size' };
    }
    return {
      ...base, state: 'failed', message, terminal: true, failedOn: 'size',
      since: error?.lastTransitionTime ?? condition('Resizing')?.lastTransitionTime ?? since,
      ...(error ? { condition: claimCondition(error) } : {}),
    };
  }
  if (pvc.resizeStatus === 'ControllerResizeInProgress' && pvc.allocated && compareQuantities(pvc.allocated, desired) !== 0) {
    return {
      ...base, state: 'in-progress-other-size',
      message: `in progress to ${pvc.allocated.text}; ${desired.text} will not be attempted until it ends`,
    };
  }
  if (!requestIsDesired) return { ...base, state: 'to-patch' };
  // Only the error of the step under way is retried: after a passing controller error the resizer keeps
  // ControllerResizeError beside FileSystemResizePending, though the controller step is done and the node's is next.
  const transient = onNode ? condition('NodeResizeError') : condition('ControllerResizeError') ?? condition('NodeResizeError');
  if (transient !== undefined && refusedWithinWindow(transient.message)) {
    return {
      ...base, state: 'waiting-for-window', message: `waiting for the driver's window: ${transient.message ?? ''}`,
      since: transient.lastTransitionTime ?? since, condition: claimCondition(transient),
    };
  }
  if (transient !== undefined) {
    return {
      ...base, state: 'retrying', message: transient.message ?? transient.reason ?? transient.type,
      since: transient.lastTransitionTime ?? since, condition: claimCondition(transient),
    };
  }
  if (pvc.resizeStatus === 'NodeResizeInProgress') return { ...base, state: 'resizing-node' };
  const pending = condition('FileSystemResizePending');
  if (pvc.resizeStatus === 'NodeResizePending' || pending !== undefined) {
    // A larger request while the node step is pending waits for it: the resizer acts only after it (recorded).
    const queued = pvc.allocated && compareQuantities(pvc.allocated, desired) < 0
      ? `${pvc.allocated.text} is allocated, and ${desired.text} is attempted once the node has finished` : undefined;
    return {
      ...base, state: 'waiting-for-node', since: pending?.lastTransitionTime ?? since,
      message: `${pending?.message ?? 'NodeResizePending: the node has not expanded the file system yet'}${queued ? `; ${queued}` : ''}`,
      ...(pending ? { condition: claimCondition(pending) } : {}), ...(queued ? { queued } : {}),
    };
  }
  if (pvc.resizeStatus === 'ControllerResizeInProgress' || condition('Resizing') !== undefined) {
    return { ...base, state: 'resizing-controller' };
  }
  return { ...base, state: 'patched' };
}
