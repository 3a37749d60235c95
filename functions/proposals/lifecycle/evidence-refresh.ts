// When an open proposal whose values did not change gets its title and body rewritten because its evidence moved
// (a growth's used / capacity / percent and days to full): the rule, in one pure function. It compares what GitHub
// shows with what would be written, as displayed (whole percents, tenths of Gi, days to full spelled), never the
// times the evidence was read: a pass over an unchanged world writes nothing. Evidence that drifts is rewritten at
// most every `evidenceRefreshHours`, so a filling volume's pull request is edited a few times a day, not every pass;
// a change of what the proposal rests on (its basis: for growth, which replicas are a reason to grow and why) is
// rewritten at once.

/** What the lifecycle writes in a body beside the marker (lifecycle/marker.ts): when its evidence was read, and what it rests on. */
export interface EvidenceStamp {
  /** ISO time the evidence shown was read. */
  at: string;
  /** What the proposal rests on, in the kind's words (growth: `data-pg-0 bytes, data-pg-1 fills-soon`); absent when the kind gives none. */
  basis?: string;
}

/** Drifting evidence is rewritten at most this often: twice a day, never more than half a day behind. */
export const evidenceRefreshHours = 12;

export type EvidenceRefresh =
  | { action: 'unchanged' }
  | { action: 'refresh'; why: string }
  /** The evidence moved, but was written less than `evidenceRefreshHours` ago: rewritten from `from`. */
  | { action: 'wait'; from: string };

export function evidenceRefresh(input: {
  /** The pull request as GitHub has it, and the stamp its body carries (none when an earlier version wrote it). */
  shown: { title: string; body: string; stamp: EvidenceStamp | undefined };
  /** What would be written now, its body composed with the shown stamp's time: equal to the shown one when nothing displayed moved. */
  rendered: { title: string; body: string; basis: string | undefined };
  /** When this pass read its evidence (ISO). */
  now: string;
}): EvidenceRefresh {
  const { shown, rendered } = input;
  if (shown.title === rendered.title && shown.body === rendered.body) return { action: 'unchanged' };
  if (!shown.stamp) return { action: 'refresh', why: 'its body was written without a time for its evidence' };
  if ((shown.stamp.basis ?? '') !== (rendered.basis ?? '')) return { action: 'refresh', why: `what it rests on changed (${rendered.basis ?? 'nothing'}, was ${shown.stamp.basis ?? 'nothing'})` };
  const from = Date.parse(shown.stamp.at) + evidenceRefreshHours * 3_600_000;
  const now = Date.parse(input.now);
  if (Number.isNaN(from) || Number.isNaN(now) || now >= from) return { action: 'refresh', why: `its evidence moved since ${shown.stamp.at}` };
  return { action: 'wait', from: new Date(from).toISOString() };
}
