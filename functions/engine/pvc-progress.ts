// Where one PVC stands on its way to the template's size, read from the fields KEP-0284 and KEP-1790 define.
// Pure: used by the rollout, the status annotation, the PR feedback and the recovery sizing.
import { isTerminalResizeStatus, type LivePvc } from '../domain/live-state.ts';
import { compareQuantities, type Quantity } from '../domain/quantity.ts';

export type PvcState =
  | 'missing'
  | 'waiting-for-pod'
  | 'to-patch'
  | 'patched'
  | 'resizing-controller'
  | 'resizing-node'
  | 'retrying'
  | 'in-progress-other-size'
  | 'modifying'
  | 'done'
  | 'failed';

export interface PvcProgress {
  name: string;
  ordinal: number;
  state: PvcState;
  request: Quantity | undefined;
  capacity: Quantity | undefined;
  /** Why it is failed, retrying or held back, in the words of whoever said it. */
  message: string | undefined;
  /** Terminal expansion failure (`*ResizeInfeasible` or the pre-1.31 `*ResizeFailed`). */
  terminal: boolean;
  /** When the PVC's resize conditions last changed, as the cluster recorded it (absent when it has none). */
  since: string | undefined;
  /** What failed terminally: the expansion, or the modification to the template's volumeAttributesClass. */
  failedOn?: 'size' | 'class';
  /** `status.currentVolumeAttributesClassName`, and `modifyVolumeStatus.status` while a modification is under way. */
  requestedClass?: string | undefined;
  currentClass?: string | undefined;
  modifyStatus?: string | undefined;
}

export { isTerminalResizeStatus };

export function hasReachedSize(pvc: LivePvc, desired: Quantity): boolean {
  return pvc.request !== undefined && compareQuantities(pvc.request, desired) === 0
    && pvc.capacity !== undefined && compareQuantities(pvc.capacity, desired) >= 0;
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
  if (pvc.currentVolumeAttributesClassName === desiredClass) return withClass;
  const modify = pvc.modifyVolumeStatus;
  if (modify?.status === 'Infeasible' && modify.targetVolumeAttributesClassName === desiredClass) {
    return {
      ...withClass, state: 'failed', terminal: true, failedOn: 'class',
      message: `the driver refused to modify the volume to VolumeAttributesClass ${desiredClass} (modifyVolumeStatus Infeasible); it stays ${pvc.currentVolumeAttributesClassName ?? 'without a class'}`,
    };
  }
  if (size.state !== 'done') return withClass; // the size is on its way; the class follows
  return {
    ...withClass, state: 'modifying',
    message: modify?.status === 'Pending'
      ? `modification to ${desiredClass} Pending (the class or the driver is not ready)`
      : `modifying from ${pvc.currentVolumeAttributesClassName ?? '(none)'} to ${desiredClass}${modify?.status ? ` (${modify.status})` : ''}`,
  };
}

function describePvcSize(name: string, ordinal: number, pvc: LivePvc | undefined, desired: Quantity): PvcProgress {
  const since = pvc?.conditions.map((c) => c.lastTransitionTime).filter((t): t is string => t !== undefined).sort().at(-1);
  const base = { name, ordinal, request: pvc?.request, capacity: pvc?.capacity, message: undefined, terminal: false, since };
  if (!pvc) return { ...base, state: 'missing', message: 'the StatefulSet controller has not created it yet' };
  if (hasReachedSize(pvc, desired)) return { ...base, state: 'done' };
  const condition = (type: string) => pvc.conditions.find((c) => c.type === type && c.status === 'True');
  const conditionMessage = (type: string): string | undefined => {
    const found = condition(type);
    return found ? found.message ?? found.reason ?? type : undefined;
  };
  const requestIsDesired = pvc.request !== undefined && compareQuantities(pvc.request, desired) === 0;

  if (isTerminalResizeStatus(pvc.resizeStatus)) {
    const message = conditionMessage('ControllerResizeError') ?? conditionMessage('NodeResizeError') ?? pvc.resizeStatus;
    // A failure for another size than the one we now want is history: the new request restarts expansion (KEP-1790).
    if (!requestIsDesired || (pvc.allocated && compareQuantities(pvc.allocated, desired) !== 0)) {
      return { ...base, state: requestIsDesired ? 'patched' : 'to-patch', message: `previous expansion failed: ${message}` };
    }
    return { ...base, state: 'failed', message, terminal: true, failedOn: 'size' };
  }
  if (pvc.resizeStatus === 'ControllerResizeInProgress' && pvc.allocated && compareQuantities(pvc.allocated, desired) !== 0) {
    return {
      ...base, state: 'in-progress-other-size',
      message: `in progress to ${pvc.allocated.text}; ${desired.text} will not be attempted until it ends`,
    };
  }
  if (!requestIsDesired) return { ...base, state: 'to-patch' };
  const transient = conditionMessage('ControllerResizeError') ?? conditionMessage('NodeResizeError');
  if (transient !== undefined) return { ...base, state: 'retrying', message: transient };
  if (pvc.resizeStatus === 'NodeResizePending' || pvc.resizeStatus === 'NodeResizeInProgress'
    || condition('FileSystemResizePending') !== undefined) {
    return { ...base, state: 'resizing-node' };
  }
  if (pvc.resizeStatus === 'ControllerResizeInProgress' || condition('Resizing') !== undefined) {
    return { ...base, state: 'resizing-controller' };
  }
  return { ...base, state: 'patched' };
}
