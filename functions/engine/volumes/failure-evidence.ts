// What a failed claim's report may quote: the Warning Events of the attempt that failed, never an earlier one that
// resolved (a class change refused after a lowered expansion must not quote that expansion's VolumeResizeFailed).
// An Event belongs to the attempt by its reason (the resizer's expansion or modification failure) and its time (at or
// after the attempt began, as the failed claim's condition dates it). And since when a claim fails on the controller:
// the resizer's condition is dated by its latest attempt, its Events by their first. Pure.
import type { PvcEvent } from '../../domain/live-state.ts';
import type { PvcProgress } from './pvc-progress.ts';

/** The Warning reasons of a failed expansion (external-resizer, kubelet) and of a refused modification (external-resizer). */
const failureReasons: Record<'size' | 'class', ReadonlySet<string>> = {
  size: new Set(['VolumeResizeFailed', 'FileSystemResizeFailed']),
  class: new Set(['VolumeModifyFailed']),
};

/**
 * The Events of each terminally failed claim's current attempt, oldest first (`events` as listed, oldest first). With
 * no date for the attempt (a pre-1.31 cluster writes no condition), only the newest Event of its reasons.
 */
export function eventsOfFailedAttempts(progress: readonly PvcProgress[], events: readonly PvcEvent[]): PvcEvent[] {
  const kept = new Set<PvcEvent>();
  for (const claim of progress) {
    if (claim.state !== 'failed' || !claim.terminal) continue; // a patch the API server refused has no driver Events
    const reasons = failureReasons[claim.failedOn ?? 'size'];
    const own = events.filter((e) => e.pvcName === claim.name && reasons.has(e.reason));
    const began = claim.since === undefined ? undefined : Date.parse(claim.since);
    const current = began === undefined || Number.isNaN(began)
      ? own.slice(-1)
      : own.filter((e) => e.lastTimestamp !== undefined && Date.parse(e.lastTimestamp) >= began);
    for (const event of current) kept.add(event);
  }
  return events.filter((e) => kept.has(e));
}

/**
 * Each claim failing, or retrying, on the controller, dated from its failure's first Event. The external-resizer writes
 * ControllerResizeError anew, with the time of the attempt, at each attempt (util.MergeResizeConditionsOfPVC replaces
 * it): at every backoff of a retried error, every five minutes for an expansion it found infeasible. That time is the
 * latest attempt's, and a report dated by it would change with every retry though nothing else did. The recorder counts
 * each repeat of the same reason and message on one Event, whose first time is when the driver began to answer so.
 * Without such an Event (Events expire), the condition's time stands. The recorder also counts a repeat of an older,
 * resolved failure with the same message on that failure's Event (while the resizer runs): no date is taken from before
 * `notBefore`, when the pass that began this change ran (the status annotation's `startedAt`).
 */
/** `startedAt` is the pass's clock, an Event's time the cluster's: a minute apart is still the same change. */
const clockSkewAllowanceMs = 60_000;

export function datedFromEvents(progress: readonly PvcProgress[], events: readonly PvcEvent[], notBefore?: string): PvcProgress[] {
  return progress.map((claim) => {
    if ((claim.state !== 'failed' && claim.state !== 'retrying') || claim.condition?.type !== 'ControllerResizeError') return claim;
    const attempt = claim.since === undefined ? Number.NaN : Date.parse(claim.since);
    if (Number.isNaN(attempt)) return claim;
    // The Events the latest attempt recorded (or counted): the same reasons, seen at or after it.
    const first = events
      .filter((e) => e.pvcName === claim.name && failureReasons.size.has(e.reason) && e.lastTimestamp !== undefined && Date.parse(e.lastTimestamp) >= attempt)
      .map((e) => e.firstTimestamp).filter((t): t is string => t !== undefined).sort()[0];
    if (first === undefined) return claim;
    const olderThanTheChange = notBefore !== undefined && Date.parse(first) < Date.parse(notBefore) - clockSkewAllowanceMs;
    return { ...claim, since: olderThanTheChange ? notBefore : first };
  });
}
