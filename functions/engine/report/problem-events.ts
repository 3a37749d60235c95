// Warning Events on a StatefulSet whose change in Git cannot be applied (blocked) or whose volumes' driver refused it
// for good (failed), so `kubectl describe statefulset` and Argo CD's resource view say so, not only the tool's report.
// One Event per reason, in the words of the pass's verdict (pass-verdict.ts). A repeat is counted on the Event already
// there, as client-go's recorder does (its EventLogger: same source, object, type, reason and message -> count + 1 and
// lastTimestamp, never a second Event); since every pass finds the same problem again, a repeat is counted only once
// the Event is `eventRefreshMs` old, so a blocked set costs one read a pass and one write per half hour, and its
// Event never reaches the API server's event TTL (one hour by default) while the problem lasts.
import type { LazyLease } from '../lease/lazy-lease.ts';
import { passNow, type PassContext } from '../pass-context.ts';
import type { StatefulSetReport } from './pass-report.ts';
import { statefulSetProblems } from './pass-verdict.ts';
import type { InvolvedObject, RecordedEvent } from '../ports.ts';

/** How old the last occurrence of a problem's Event may grow before the problem is counted on it again. */
export const eventRefreshMs = 30 * 60_000;

export interface ProblemEvent {
  reason: 'ResizeBlocked' | 'ResizeFailed' | 'ClassChangeFailed';
  message: string;
}

/**
 * The Warning Events a set's report asks for: a change blocked (but not a namespace the target may not write in, where
 * no Event can be recorded either), or failed for good on a volume. A stalled volume is the node's to finish: its pod's
 * and node's own Events say so.
 */
export function problemEventsOf(report: StatefulSetReport): ProblemEvent[] {
  if (report.outcome === 'namespace-not-allowed') return [];
  return statefulSetProblems(report).flatMap((problem): ProblemEvent[] => {
    const message = problem.message;
    if (problem.severity === 'blocked') return [{ reason: 'ResizeBlocked', message }];
    if (problem.reason === 'expansion-failed') return [{ reason: 'ResizeFailed', message }];
    if (problem.reason === 'class-modification-failed') return [{ reason: 'ClassChangeFailed', message }];
    return [];
  });
}

/** What to write for a problem seen now: a new Event, a repeat counted on the one there, or nothing (it is fresh). */
export function eventWrite(existing: RecordedEvent | undefined, now: Date): 'create' | 'count' | 'none' {
  if (!existing) return 'create';
  const last = existing.lastTimestamp === undefined ? Number.NaN : new Date(existing.lastTimestamp).getTime();
  return Number.isNaN(last) || now.getTime() - last >= eventRefreshMs ? 'count' : 'none';
}

/**
 * Records the set's problem Events (apply passes only: a plan or a pull request's validation writes nothing). The
 * Lease is taken only when one is written. A refusal is said in the report's notes, never turned into a failed pass.
 */
export async function recordProblemEvents(ctx: PassContext, involved: InvolvedObject, report: StatefulSetReport, lease: LazyLease): Promise<StatefulSetReport> {
  const wanted = problemEventsOf(report);
  const notes: string[] = [];
  for (const event of wanted) {
    try {
      const existing = await ctx.cluster.findEvent(involved, 'Warning', event.reason, event.message);
      const write = eventWrite(existing, passNow(ctx));
      if (write === 'none') continue;
      await lease.ensure();
      if (write === 'count' && existing) await ctx.cluster.countEventAgain(involved.namespace, existing, passNow(ctx));
      else await ctx.cluster.recordEvent(involved, 'Warning', event.reason, event.message);
    } catch (error) {
      notes.push(`could not record the Warning Event ${event.reason}: ${error instanceof Error ? error.message : String(error)}`);
    }
  }
  return notes.length === 0 ? report : { ...report, notes: [...report.notes, ...notes] };
}
