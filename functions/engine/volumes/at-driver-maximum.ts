// Volumes at the maximum their driver stated: no size above their capacity is within it, and KEP-1790 lets a failed
// request go down only to a size strictly above the capacity (kube-apiserver: "field can not be less than
// status.capacity"), so no size can succeed. What is true then, and said everywhere (the recovery pull request, the
// progress check and comment, the pass report): Git goes back to the size the volumes have, so new replicas ask for a
// size the driver provides; the claims keep asking for the refused size (they cannot be lowered to their capacity);
// more room means another driver (class) and a migration. Pure.
import { expansionFailedForGood, type ResizeReading } from '../../domain/live-state.ts';
import { compareQuantities, formatBytesLike, type Quantity } from '../../domain/quantity.ts';
import { smallestStatedMaximum, type StatedMaximum } from './driver-maximum.ts';

/** What is read of a claim here (a LivePvc has it all). */
export type ClaimSizes = ResizeReading & { request: Quantity | undefined; capacity: Quantity | undefined };

/**
 * A claim whose volume has exactly the size Git asks for while its request, above it, was refused for good: it cannot
 * be lowered to its capacity (KEP-1790), so it is left asking; its volume has the size, so its replica is done.
 */
export function keepsRefusedRequest(pvc: ClaimSizes, desired: Quantity): boolean {
  return pvc.capacity !== undefined && pvc.request !== undefined && compareQuantities(pvc.capacity, desired) === 0
    && compareQuantities(pvc.request, desired) > 0 && expansionFailedForGood(pvc);
}

/** Why such a claim is done though its request is not Git's: the claim's lasting state, for its row in the reports. */
export function keptRequestWords(request: string, desired: string): string {
  return `its volume has ${desired}, the size in Git; the claim keeps asking for ${request}, which the driver refused for good, `
    + 'since a request can only be lowered to a size above the volume\'s capacity (KEP-1790)';
}

/** No size can succeed: the maximum the driver stated, and the largest volume of the failed claims (at or above it). */
export interface AtDriverMaximum {
  maximum: StatedMaximum;
  volumes: bigint;
  /** Whether every failed claim's volume has that size. */
  allAlike: boolean;
}

/** A failed claim as the recovery and the reports see it: its capacity and what the driver said of it. */
export interface RefusedClaim {
  capacity: Quantity | undefined;
  /** Its condition's message and its attempt's Event messages, verbatim. */
  texts: readonly string[];
}

/** Whether no size above the failed claims' capacity is within the maximum their driver stated; undefined when one is. */
export function atDriverMaximum(failed: readonly RefusedClaim[]): AtDriverMaximum | undefined {
  const maximum = smallestStatedMaximum(failed.flatMap((claim) => claim.texts));
  if (!maximum || failed.length === 0) return undefined;
  const capacities = failed.map((claim) => claim.capacity?.bytes ?? 0n);
  const volumes = capacities.reduce((a, b) => (a > b ? a : b));
  return volumes >= maximum.bytes ? { maximum, volumes, allAlike: capacities.every((c) => c === volumes) } : undefined;
}

/** `no size can succeed: the driver's maximum is 50Gi and the volumes have 50Gi`, in the template's unit. */
export function noSizeCanSucceedWords(at: AtDriverMaximum, like: Quantity): string {
  return `no size can succeed: the driver's maximum is ${formatBytesLike(at.maximum.bytes, like)} and the volumes have `
    + `${at.allAlike ? '' : 'up to '}${formatBytesLike(at.volumes, like)}`;
}

/**
 * What becomes of the claims once Git is back at the size their volumes have, as the API server and the
 * external-resizer v2.0.0 behave (recorded in ../shared/conformance/csi-v1.34.9/b/).
 */
export function claimsLastingStateWords(failed: string, volumes: string, onNode: boolean): string {
  const status = onNode ? 'NodeResizeInfeasible' : 'ControllerResizeInfeasible';
  const condition = onNode ? 'NodeResizeError' : 'ControllerResizeError';
  const retry = onNode ? 'the kubelet, backing off up to about two minutes' : 'the external-resizer\'s --retry-interval-max, 5 minutes by default';
  const event = onNode ? 'FileSystemResizeFailed' : 'VolumeResizeFailed';
  return `The claims are not patched: Kubernetes refuses a request at or below a claim's capacity ("field can not be less than `
    + `status.capacity", KEP-1790), so each keeps asking for ${failed}: spec.resources.requests.storage and status.allocatedResources `
    + `stay ${failed}, with allocatedResourceStatuses.storage ${status} and the ${condition} condition. `
    + `The driver is asked for ${failed} again now and then (${retry}) `
    + `and refuses it again with a ${event} Event; a ResourceQuota counts the claims at `
    + `${failed} (the larger of request and allocatedResources). The volumes keep working at ${volumes}, and their replicas are done.`;
}

/** What a person can do about volumes at their driver's maximum. */
export function waysOutAtMaximum(failed: string, volumes: string): string[] {
  return [
    `Keep ${volumes}: nothing else is needed; the claims' refused request stays as it is until they are recreated.`,
    `Raise the driver's maximum volume size: the claims, still asking for ${failed}, then grow to it (set ${failed} in Git again).`,
    'Move the data to a StorageClass whose driver allows larger volumes: a claim\'s class cannot change, so this means new claims '
      + 'and copying the data to them (a migration, for instance to a new StatefulSet on that class).',
  ];
}

/**
 * The recovery at a driver's maximum: Git back to the size the volumes have (below the failed size), so new replicas
 * ask for a size the driver provides. Undefined when some size above the capacity is within the maximum.
 */
export function sizeAtDriverMaximum(
  failed: readonly RefusedClaim[], failedSize: Quantity,
): { size: string; bytes: bigint; explanation: string } | undefined {
  const at = atDriverMaximum(failed);
  if (!at || at.volumes >= failedSize.bytes) return undefined;
  const size = formatBytesLike(at.volumes, failedSize);
  return {
    size, bytes: at.volumes,
    explanation: `${noSizeCanSucceedWords(at, failedSize)}; ${size} is the size the volumes have, so that new replicas ask for a size the driver provides`,
  };
}

/** What the reports read of a claim's progress (a PvcProgress has it). */
interface ClaimProgress {
  name: string;
  state: string;
  terminal: boolean;
  failedOn?: 'size' | 'class';
  capacity: Quantity | undefined;
  message: string | undefined;
  condition?: { message: string };
}

/** A template failed for good at its driver's maximum, as the reports say it (sizes in the template's unit). */
export interface AtMaximumReport {
  /** `no size can succeed: the driver's maximum is 50Gi and the volumes have 50Gi`. */
  noSizeCanSucceed: string;
  maximum: string;
  /** The size the (largest) volume has: what Git can go back to. */
  volumes: string;
}

/**
 * Whether a template's expansion failed for good at its driver's maximum, from its claims' conditions and their
 * attempt's Events; undefined otherwise. For the pass report, the progress check and comment.
 */
export function atMaximumReport(
  claims: readonly ClaimProgress[], events: ReadonlyArray<{ pvcName: string; message: string }>, like: Quantity,
): AtMaximumReport | undefined {
  const refused = claims.filter((p) => p.state === 'failed' && p.terminal && p.failedOn !== 'class').map((p) => ({
    capacity: p.capacity,
    texts: [p.message ?? '', p.condition?.message ?? '', ...events.filter((e) => e.pvcName === p.name).map((e) => e.message)],
  }));
  const at = atDriverMaximum(refused);
  return at && { noSizeCanSucceed: noSizeCanSucceedWords(at, like), maximum: formatBytesLike(at.maximum.bytes, like), volumes: formatBytesLike(at.volumes, like) };
}
