// PVC conditions as the external-resizer, its modify controller and the kubelet merge them, and the one way the
// simulated controllers write a claim: edit a fresh copy; empty maps and lists are left out (omitempty), and a write
// that changes nothing leaves the claim and its resourceVersion alone, as a no-op patch does on a real server.
import { mustResourceType, type KubeObject } from '../store.ts';
import type { World } from './world.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

export interface Condition {
  type: string;
  status: string;
  reason?: string;
  message?: string;
  lastProbeTime?: string | null;
  lastTransitionTime?: string;
}

export interface ClaimStatus {
  phase?: string;
  capacity?: Record<string, string>;
  allocatedResources?: Record<string, string>;
  allocatedResourceStatuses?: Record<string, string>;
  conditions?: Condition[];
  currentVolumeAttributesClassName?: string;
  modifyVolumeStatus?: { status: string; targetVolumeAttributesClassName?: string };
  [field: string]: unknown;
}

/** The conditions the resize code paths own; any other (ModifyingVolume, ModifyVolumeError) they leave alone. */
const resizeConditionTypes = new Set(['Resizing', 'FileSystemResizePending', 'ControllerResizeError', 'NodeResizeError']);

export function conditionsOf(pvc: Readonly<KubeObject>): Condition[] {
  return ((pvc.status?.conditions ?? []) as Condition[]).map((c) => ({ ...c }));
}

/** A condition time as metav1.Time writes it: whole seconds. */
export function conditionTime(world: World): string {
  return world.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * external-resizer util.MergeResizeConditionsOfPVC: each new resize condition replaces the one of its type; other resize
 * conditions stay only when `keepOld`; non-resize conditions always stay.
 */
export function mergeResizeConditions(old: readonly Condition[], updates: readonly Condition[], keepOld: boolean): Condition[] {
  const pending = new Map(updates.map((c) => [c.type, c]));
  const result: Condition[] = [];
  for (const condition of old) {
    const replacement = pending.get(condition.type);
    if (!resizeConditionTypes.has(condition.type)) result.push(condition);
    else if (replacement) {
      result.push(replacement);
      pending.delete(condition.type);
    } else if (keepOld) result.push(condition);
  }
  return [...result, ...pending.values()];
}

/** The kubelet's MergeResizeConditionOnPVC: as above, but an old condition with the new one's status is kept as it was. */
export function mergeResizeConditionsOnNode(old: readonly Condition[], updates: readonly Condition[], keepOld: boolean): Condition[] {
  const kept = updates.map((update) => old.find((c) => c.type === update.type && c.status === update.status) ?? update);
  return mergeResizeConditions(old, kept, keepOld);
}

/**
 * external-resizer util.MergePVCConditions (volume modification): a condition's lastTransitionTime moves only when its
 * reason or status changes; a new one takes its lastProbeTime; the others stay.
 */
export function mergePvcConditions(old: readonly Condition[], updates: readonly Condition[]): Condition[] {
  const pending = new Map(updates.map((c) => [c.type, c]));
  const result: Condition[] = [];
  for (const condition of old) {
    const update = pending.get(condition.type);
    if (!update) {
      result.push(condition);
      continue;
    }
    const moved = update.reason !== condition.reason || update.status !== condition.status;
    result.push({ ...update, lastTransitionTime: moved ? probeTime(update) : condition.lastTransitionTime });
    pending.delete(condition.type);
  }
  for (const update of updates) if (pending.has(update.type)) result.push({ ...update, lastTransitionTime: probeTime(update) });
  return result;
}

function probeTime(condition: Condition): string | undefined {
  return condition.lastProbeTime ?? undefined;
}

/** A claim's annotations and status, to be edited in place by a controller. */
export interface ClaimEdit {
  annotations: Record<string, string>;
  status: ClaimStatus;
}

/**
 * Writes the stored claim as `edit` changes a copy of it; returns what is stored afterwards (the claim itself when
 * nothing changed, or undefined when it is gone).
 */
export function writeClaim(world: World, pvc: Readonly<KubeObject>, edit: (claim: ClaimEdit) => void): Readonly<KubeObject> | undefined {
  const fresh = world.store.peek(pvcType, pvc.metadata.namespace, pvc.metadata.name);
  if (!fresh || fresh.metadata.uid !== pvc.metadata.uid) return undefined;
  const claim: ClaimEdit = { annotations: { ...fresh.metadata.annotations }, status: structuredClone(fresh.status ?? {}) };
  edit(claim);
  for (const field of ['conditions', 'allocatedResourceStatuses', 'allocatedResources'] as const) {
    const value = claim.status[field];
    if (value === undefined || (Array.isArray(value) ? value.length === 0 : Object.keys(value).length === 0)) delete claim.status[field];
  }
  if (claim.status.modifyVolumeStatus === undefined) delete claim.status.modifyVolumeStatus;
  const { annotations: _previous, ...metadata } = fresh.metadata;
  world.store.replace(pvcType, {
    ...fresh,
    metadata: Object.keys(claim.annotations).length === 0 ? metadata : { ...metadata, annotations: claim.annotations },
    status: claim.status,
  });
  return world.store.peek(pvcType, pvc.metadata.namespace, pvc.metadata.name);
}
