// The recreation records a pass must act on: found where the Lease says they may be (recreation-records.ts), then
// resumed under the Lease, or, while another holder has it, used only to create a StatefulSet left absent.
import type { RecreationRecord } from '../../domain/live-state.ts';
import { mapWithConcurrency } from '../concurrency.ts';
import { ClusterError } from '../ports.ts';
import type { LazyLease } from '../lazy-lease.ts';
import type { RecordLedger, RecordScan } from './ledger.ts';
import { resumeRecreation, type RecreationCluster, type TemplateUpdateOutcome } from './recreate-statefulset.ts';
import { stateNamespaceOf, type PassContext } from '../pass-context.ts';
import { reportRefusedRecords, screenRecords, type RefusedRecord } from './refused.ts';

export const templateUpdateWords: Record<TemplateUpdateOutcome, string> = {
  'updated-in-place': 'updated in place',
  recreated: 'set by orphan delete and recreate (pods untouched)',
  'waiting-for-deletion': 'pending: old object still being deleted',
  'record-outdated': 'not replaced: the StatefulSet changed since the update was recorded',
};

type RecordsContext = Pick<PassContext, 'cluster' | 'target' | 'apiConcurrency'>;

export function mayWrite(ctx: Pick<PassContext, 'target'>, namespace: string): boolean {
  return ctx.target.allowedNamespaces.includes('*') || ctx.target.allowedNamespaces.includes(namespace);
}

/**
 * LISTs the locations `scan` names: the state namespace once; the old locations in every namespace the target may
 * write (named ones) and every namespace its desired state is in, and the Lease namespace of versions before the state
 * namespace (`namespaces.default`). Records in the state namespace come first. Nothing found is trusted yet.
 */
export async function findRecords(
  ctx: RecordsContext, scan: RecordScan, desiredNamespaceNames: readonly string[], ledger: RecordLedger | undefined,
): Promise<RecreationRecord[]> {
  const found: RecreationRecord[] = [];
  const stateNamespace = stateNamespaceOf(ctx.target);
  if (scan.leaseNamespace) {
    const records = await ctx.cluster.listRecreationRecords(stateNamespace, ctx.target.name);
    ledger?.listed(records, 'leaseNamespace');
    found.push(...records);
  }
  if (scan.legacy) {
    const namespaces = [...new Set([...ctx.target.allowedNamespaces.filter((n) => n !== '*'), ...desiredNamespaceNames.filter((n) => mayWrite(ctx, n))])].sort();
    const perNamespace = await mapWithConcurrency(namespaces, ctx.apiConcurrency ?? 4, (ns) => ctx.cluster.listLegacyRecreationRecords(ns));
    const records = perNamespace.flat();
    if (ctx.target.defaultNamespace !== stateNamespace) {
      records.push(...await ctx.cluster.listRecreationRecords(ctx.target.defaultNamespace, ctx.target.name));
    }
    ledger?.listed(records, 'legacy');
    found.push(...records);
  }
  return found;
}

/** The records found, authenticated: those a pass may act on, and the refused ones, reported (Events, notes). */
export async function authenticRecords(
  ctx: PassContext, records: readonly RecreationRecord[],
): Promise<{ trusted: RecreationRecord[]; refused: RefusedRecord[]; notes: string[] }> {
  const { trusted, refused } = screenRecords(ctx, records);
  const notes = await reportRefusedRecords(ctx, refused);
  return { trusted, refused: refused.map((r) => r.refusal), notes };
}

export interface ResumedRecords {
  /** `namespace/name` of sets whose old object is still being deleted (or hit a transient error). */
  waiting: Set<string>;
  /** The updateRevision each record kept: a set recreated moments ago has no status yet. */
  revisions: Map<string, string>;
  notes: string[];
}

/** Resumes each record (authenticated ones only: see authenticRecords) under the Lease. */
export async function resumeRecords(
  ctx: PassContext, records: readonly RecreationRecord[], cluster: RecreationCluster, lease: LazyLease, outOfTime: () => boolean,
): Promise<ResumedRecords> {
  const say = ctx.onEvent ?? (() => undefined);
  const result: ResumedRecords = { waiting: new Set(), revisions: new Map(), notes: [] };
  for (const record of records) {
    if (outOfTime()) break;
    const id = `${record.namespace}/${record.statefulSetName}`;
    if (!mayWrite(ctx, record.namespace)) {
      // Left in place (the Lease keeps saying records are outstanding): the target may not write there any more.
      result.notes.push(`recreation record ${record.recordNamespace}/${record.recordName} is for ${id}, outside the namespaces this target may write: left for a person to resolve`);
      continue;
    }
    if (record.updateRevision) result.revisions.set(id, record.updateRevision);
    await lease.ensure();
    say(`${id}: resuming the template update an earlier pass left unfinished`);
    try {
      const { outcome } = await resumeRecreation(record, cluster, ctx.timing);
      if (outcome === 'waiting-for-deletion') result.waiting.add(id);
    } catch (error) {
      if (!(error instanceof ClusterError && error.transient)) throw error;
      say(`${id}: transient error, retrying next pass: ${error.message}`);
      result.waiting.add(id);
    }
  }
  return result;
}

/**
 * While another holder has the Lease, a StatefulSet that a recreation left absent (a holder that died between the
 * orphan delete and the create) is created from its record anyway: every step is guarded by a precondition (uid on
 * delete, AlreadyExists on create), so this is safe without the Lease, and it keeps the set from staying absent until
 * the dead holder's Lease expires. No record is written (the holder's ledger would not know it); nothing else is touched.
 * Only authenticated records are used: this path runs while a holder is live or dead, which is exactly when a forged one
 * would otherwise be acted on.
 */
export async function recreateAbsentStatefulSets(
  ctx: PassContext, scan: RecordScan, desiredNamespaceNames: readonly string[],
): Promise<{ notes: string[]; refused: RefusedRecord[] }> {
  const { trusted, refused, notes } = await authenticRecords(ctx, await findRecords(ctx, scan, desiredNamespaceNames, undefined));
  for (const record of trusted) {
    if (!mayWrite(ctx, record.namespace)) continue;
    if (await ctx.cluster.getStatefulSet(record.namespace, record.statefulSetName)) continue;
    const { outcome } = await resumeRecreation(record, ctx.cluster, ctx.timing, { rewriteRecord: false });
    notes.push(`${record.namespace}/${record.statefulSetName} was absent after an interrupted template update: ${templateUpdateWords[outcome]}`);
    ctx.onEvent?.(notes.at(-1) ?? '');
  }
  return { notes, refused };
}
