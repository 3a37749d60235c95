// Records found in the cluster are untrusted input: each is authenticated (authenticity.ts), then must be an outstanding
// recreation of a StatefulSet still in Git (outstanding.ts) before a pass acts on it. One that fails is never acted on
// and never deleted (it is evidence, and a person decides), and it is reported loudly every pass until resolved (every
// pass lists the state namespace): a Warning Event on the ConfigMap, the pass report, and the metric the Lambda
// publishes from the report.
import type { RecreationRecord } from '../../domain/live-state.ts';
import { ClusterError } from '../ports.ts';
import type { PassContext } from '../pass-context.ts';
import { passNow } from '../pass-context.ts';
import { recordRefusal } from './authenticity.ts';
import { isListed, standingRefusal, type RecordStanding } from './outstanding.ts';
import { maxRefusedRecordsListed, type RefusedRecord } from '../report/pass-report.ts';
import { count } from '../../domain/spelling.ts';

export type { RefusedRecord } from '../report/pass-report.ts';

/** A record refused, and whether only for not being listed by the Lease as the pass read it (authentic otherwise). */
export interface Refusal {
  record: RecreationRecord;
  refusal: RefusedRecord;
  unlisted: boolean;
}

export interface ScreenedRecords {
  /** Records a pass may act on. */
  trusted: RecreationRecord[];
  refused: Refusal[];
  /** Authentic records the Lease lists as in progress (trusted, or refused only because Git no longer has their set). */
  inProgress: RecreationRecord[];
}

export function screenRecords(
  ctx: Pick<PassContext, 'target' | 'recordKey' | 'now'>, records: readonly RecreationRecord[], standing: RecordStanding,
): ScreenedRecords {
  const expectation = { key: ctx.recordKey, target: ctx.target.name, stateNamespace: ctx.target.stateNamespace, now: passNow(ctx) };
  const screened: ScreenedRecords = { trusted: [], refused: [], inProgress: [] };
  const { trusted, refused } = screened;
  for (const record of records) {
    const forged = recordRefusal(record, expectation);
    const listed = isListed(record, standing);
    if (forged === undefined && listed) screened.inProgress.push(record);
    const reason = forged ?? standingRefusal(record, standing);
    if (reason === undefined) trusted.push(record);
    else {
      refused.push({
        record, unlisted: forged === undefined && !listed,
        refusal: { configMap: `${record.recordNamespace}/${record.recordName}`, statefulSet: `${record.namespace}/${record.statefulSetName}`, reason },
      });
    }
  }
  return screened;
}

/** What the operator should do about a refused record (the same words in the report, the Event and the README). */
export function refusalAdvice(refusal: RefusedRecord): string {
  return `recreation record ${refusal.configMap} refused, nothing done (it claims to restore StatefulSet ${refusal.statefulSet}): ${refusal.reason}. `
    + 'Inspect it; if an older version of this tool wrote it and the StatefulSet is absent, create the StatefulSet from its data.target after '
    + 'checking it, then delete the ConfigMap; if the StatefulSet exists, or was removed from Git on purpose, delete the ConfigMap; '
    + 'if nobody you trust wrote it (a forgery, or a copy of a finished recreation put back), delete it and find who can write ConfigMaps in that namespace';
}

/**
 * How many refused records a pass reports one by one (a note and a Warning Event each); the report's `refusedRecords`
 * lists the first `maxRefusedRecordsListed` and counts the rest, and the metric counts them all. Whoever may create
 * ConfigMaps in the state namespace could otherwise plant thousands, and every pass would write an Event for each
 * before resuming a genuine recreation, until it ran out of time.
 */
export const maxRefusalsReportedOneByOne = 10;

/**
 * A Warning Event on each refused record's ConfigMap (the first `maxRefusalsReportedOneByOne`, then one note for the
 * rest); an Event that cannot be written is said in the notes instead.
 */
export async function reportRefusedRecords(ctx: Pick<PassContext, 'cluster' | 'onEvent'>, refused: readonly Refusal[]): Promise<string[]> {
  const notes: string[] = [];
  for (const { record, refusal } of refused.slice(0, maxRefusalsReportedOneByOne)) {
    const advice = refusalAdvice(refusal);
    notes.push(advice);
    ctx.onEvent?.(advice);
    try {
      await ctx.cluster.recordEvent(
        { apiVersion: 'v1', kind: 'ConfigMap', namespace: record.recordNamespace, name: record.recordName, uid: record.recordUid ?? '' },
        'Warning', 'RefusedRecreationRecord', advice,
      );
    } catch (error) {
      if (!(error instanceof ClusterError)) throw error;
      notes.push(`could not record the Warning Event on ${refusal.configMap}: ${error.message}`);
    }
  }
  const rest = refused.slice(maxRefusalsReportedOneByOne);
  if (rest.length > 0) {
    const inReport = refused.length > maxRefusedRecordsListed
      ? `the report's refusedRecords lists the first ${maxRefusedRecordsListed} and counts the rest in refusedRecordsLeftOut`
      : 'every one is in the report\'s refusedRecords';
    notes.push(`${count(rest.length, 'more recreation record')} refused, nothing done (${inReport}; the advice above `
      + `applies to each): ${rest.slice(0, 5).map((r) => r.refusal.configMap).join(', ')}${rest.length > 5 ? ', ...' : ''}`);
    ctx.onEvent?.(notes.at(-1) ?? '');
  }
  return notes;
}
