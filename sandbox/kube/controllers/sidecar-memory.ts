// What the simulated external-resizer, external-provisioner, expand controller and kubelet remember between ticks, as
// the real ones keep it in memory (work queues, retry and slow sets), keyed by claim uid.

/** How long a claim stays in a sidecar's slow set after an infeasible answer: --retry-interval-max's default, 5 min. */
export const slowRetryMs = 5 * 60_000;
/** The provisioner's first retry delay after a failure (--retry-interval-start, 1 s), doubled up to slowRetryMs. */
export const firstRetryMs = 1_000;

export interface ExpandCall {
  /** The size ControllerExpandVolume was asked for. */
  size: bigint;
  /** Ticks until the driver answers. */
  ticksLeft: number;
}

export interface ModifyCall {
  className: string;
  /** The class's parameters when the call was made (ControllerModifyVolume's mutable_parameters). */
  parameters: Readonly<Record<string, string>>;
  ticksLeft: number;
}

export interface SidecarMemory {
  /** ControllerExpandVolume calls in flight. */
  expandCalls: Map<string, ExpandCall>;
  /** The resizer's finalErrorPVCs: claims whose last expansion failed with a final (not a retried) error. */
  finalErrors: Set<string>;
  /** The resizer's slow set: claims whose expansion was infeasible, with when (sandbox ms) they were added. */
  slowResize: Map<string, number>;
  /** ControllerModifyVolume calls in flight. */
  modifyCalls: Map<string, ModifyCall>;
  /** The modify controller's slow set (Infeasible modifications), with when they were added. */
  slowModify: Map<string, number>;
  /** The class a claim was last told does not exist (the resizer retries with a backoff; the sandbox says it once). */
  missingClassReported: Map<string, string>;
  /** The expand controller's last view of each claim (request and capacity bytes): it acts when either grows. */
  expansionSeen: Map<string, { request: bigint; capacity: bigint }>;
  /** The kubelet's node expansion: ticks spent, and for offline expansion the pod running when the resizer made it pending. */
  nodeExpansionTicks: Map<string, number>;
  podsAtNodePending: Map<string, string>;
  /** When (sandbox ms) the kubelet next syncs each running pod, by pod uid. */
  podSyncs: Map<string, number>;
  /** The provisioner's failed claims: when (sandbox ms) it tries again, and the delay after the next failure. */
  provisioningRetries: Map<string, { notBefore: number; delayMs: number }>;
  /** Each external-provisioner's identity (its Events' source), per driver name. */
  provisionerIdentities: Map<string, string>;
  /** When (sandbox ms) the backend accepted each recent modification of a volume (PV name), oldest first: its limit counts them. */
  volumeModifications: Map<string, number[]>;
}

export function createSidecarMemory(): SidecarMemory {
  return {
    expandCalls: new Map(), finalErrors: new Set(), slowResize: new Map(), modifyCalls: new Map(), slowModify: new Map(),
    missingClassReported: new Map(), expansionSeen: new Map(), nodeExpansionTicks: new Map(), podsAtNodePending: new Map(), podSyncs: new Map(),
    provisioningRetries: new Map(), provisionerIdentities: new Map(), volumeModifications: new Map(),
  };
}

/** Whether `uid` is in a slow set at `nowMs` (an entry older than slowRetryMs has expired and is dropped). */
export function inSlowSet(set: Map<string, number>, uid: string, nowMs: number): boolean {
  const since = set.get(uid);
  if (since === undefined) return false;
  if (nowMs - since >= slowRetryMs) {
    set.delete(uid);
    return false;
  }
  return true;
}
