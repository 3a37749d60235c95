// The recreation records a pass must act on: found (the state namespace every pass, the old locations while the Lease
// says to), screened (authentic, outstanding, for a set Git still has), then resumed under the Lease or, while another
// holder has it, used only to create a StatefulSet left absent.
import type { LeaseState } from '../ports.ts';
import type { RecreationRecord } from '../../domain/live-state.ts';
import { isNamespaceAllowed } from '../plan/allowed-namespaces.ts';
import { mapWithConcurrency } from '../concurrency.ts';
import { ClusterError } from '../ports.ts';
import type { LazyLease } from '../lease/lazy-lease.ts';
import type { RecordLedger } from './ledger.ts';
import { resumeRecreation, type RecreationCluster, type TemplateUpdateOutcome } from './recreate-statefulset.ts';
import { namespaceScopeOf, type PassContext } from '../pass-context.ts';
import { reportRefusedRecords, screenRecords, type Refusal, type RefusedRecord } from './refused.ts';
import { recordId, signOutstanding, type RecordStanding } from './outstanding.ts';

export const templateUpdateWords: Record<TemplateUpdateOutcome, string> = {
  'updated-in-place': 'updated in place',
  recreated: 'set by orphan delete and recreate (pods untouched)',
  'waiting-for-deletion': 'pending: old object still being deleted',
  'record-outdated': 'not replaced: the StatefulSet changed since the update was recorded',
};

type RecordsContext = Pick<PassContext, 'cluster' | 'target' | 'apiConcurrency'>;

/** Whether the target may write StatefulSets in `namespace`: the plan's own test (never the state namespace). */
function mayWrite(ctx: Pick<PassContext, 'target'>, namespace: string): boolean {
  return isNamespaceAllowed(namespace, namespaceScopeOf(ctx.target));
}

export interface FoundRecords {
  /** What claims to be a record of the target in its state namespace (listed by every pass). */
  state: RecreationRecord[];
  /** What the old locations hold; undefined when they were not listed. */
  legacy: RecreationRecord[] | undefined;
}

/**
 * LISTs the state namespace once, and with `legacy` the old locations: every namespace the target may write (named ones)
 * and every namespace its desired state is in, and the Lease namespace of versions before the state namespace
 * (`namespaces.default`). Nothing found is trusted yet.
 */
export async function findRecords(ctx: RecordsContext, legacy: boolean, desiredNamespaceNames: readonly string[]): Promise<FoundRecords> {
  const stateNamespace = ctx.target.stateNamespace;
  const state = await ctx.cluster.listRecreationRecords(stateNamespace, ctx.target.name);
  if (!legacy) return { state, legacy: undefined };
  const namespaces = [...new Set([...ctx.target.allowedNamespaces.filter((n) => n !== '*'), ...desiredNamespaceNames.filter((n) => mayWrite(ctx, n))])]
    .filter((n) => n !== stateNamespace).sort();
  const perNamespace = await mapWithConcurrency(namespaces, ctx.apiConcurrency ?? 4, (ns) => ctx.cluster.listLegacyRecreationRecords(ns));
  const old = perNamespace.flat();
  if (ctx.target.defaultNamespace !== stateNamespace) old.push(...await ctx.cluster.listRecreationRecords(ctx.target.defaultNamespace, ctx.target.name));
  return { state, legacy: old };
}

export interface ScreenedFound {
  trusted: RecreationRecord[];
  refused: RefusedRecord[];
  notes: string[];
}

/** The records found, screened: those a pass may act on, and the refused ones, reported (Events, notes); the ledger learns both. */
export async function screenFound(
  ctx: PassContext, found: FoundRecords, standing: RecordStanding, ledger: RecordLedger | undefined,
): Promise<ScreenedFound> {
  const screened = screenRecords(ctx, [...found.state, ...(found.legacy ?? [])], standing);
  const stateNamespace = ctx.target.stateNamespace;
  ledger?.listedStateNamespace(screened.inProgress.filter((r) => r.recordNamespace === stateNamespace));
  if (found.legacy) ledger?.listedLegacy(found.legacy);
  const { refused, withheld } = await withholdSavedSinceRead(ctx, screened.refused, standing);
  const notes = [...withheld, ...await reportRefusedRecords(ctx, refused)];
  return { trusted: screened.trusted, refused: refused.map((r) => r.refusal), notes };
}

/**
 * The records the pass must not call copies or forgeries yet. The LIST follows the Lease read, and another pass saves a
 * record only after the Lease write that lists it: a record the Lease did not list when this pass read it may have
 * been saved since. So before one is reported as not outstanding, the Lease is read again; if it was written since, it
 * is neither acted on nor reported, and the next pass, reading both afresh, judges it. A Lease unchanged since the
 * read is the one the record was saved under, and its verdict stands.
 */
async function withholdSavedSinceRead(
  ctx: Pick<PassContext, 'cluster' | 'onEvent'>, refused: readonly Refusal[], standing: RecordStanding,
): Promise<{ refused: Refusal[]; withheld: string[] }> {
  const unlisted = refused.filter((r) => r.unlisted);
  if (unlisted.length === 0) return { refused: [...refused], withheld: [] };
  const { leaseNamespace, leaseName } = standing.place;
  const now = await ctx.cluster.readLease(leaseNamespace, leaseName);
  if (now?.resourceVersion === standing.leaseVersion) return { refused: [...refused], withheld: [] };
  const withheld = unlisted.map(({ refusal }) => `recreation record ${refusal.configMap} (for ${refusal.statefulSet}) was not listed by the Lease when `
    + 'this pass read it, and the Lease was written since (another pass is saving or finishing records): neither acted on nor reported; the next pass judges it');
  for (const note of withheld) ctx.onEvent?.(note);
  return { refused: refused.filter((r) => !r.unlisted), withheld };
}

export interface ResumedRecords {
  /** `namespace/name` of sets whose old object is still being deleted (or hit a transient error). */
  waiting: Set<string>;
  /** The updateRevision each record kept: a set recreated moments ago has no status yet. */
  revisions: Map<string, string>;
  notes: string[];
}

/** Resumes each record (screened ones only: see screenFound) under the Lease. */
export async function resumeRecords(
  ctx: PassContext, records: readonly RecreationRecord[], cluster: RecreationCluster, lease: LazyLease, outOfTime: () => boolean,
): Promise<ResumedRecords> {
  const say = ctx.onEvent ?? (() => undefined);
  const result: ResumedRecords = { waiting: new Set(), revisions: new Map(), notes: [] };
  for (const record of records) {
    if (outOfTime()) break;
    const id = `${record.namespace}/${record.statefulSetName}`;
    if (!mayWrite(ctx, record.namespace)) {
      // Left in place (the Lease keeps listing it): the target may not write there any more.
      result.notes.push(`recreation record ${record.recordNamespace}/${record.recordName} is for ${id}, outside the namespaces this target may write: left for a person to resolve`);
      continue;
    }
    if (record.updateRevision) result.revisions.set(id, record.updateRevision);
    try {
      // A 409 here: another pass took the Lease since this one read it, and resumes the record itself.
      await lease.ensure();
      // A pass that left its recreation waiting for the old object said so; one that never released the Lease was
      // interrupted, and only then is this crash recovery.
      const interrupted = lease.foundUnreleased;
      if (interrupted) say(`${id}: resuming the template update an earlier pass left unfinished`);
      const { outcome, reason } = await resumeRecreation(record, cluster, ctx.timing);
      if (outcome !== 'record-outdated') say(`${id}: template update ${interrupted ? 'resumed: ' : ''}${templateUpdateWords[outcome]}`);
      if (outcome === 'waiting-for-deletion') result.waiting.add(id);
      if (outcome === 'record-outdated') {
        result.notes.push(`${id}: recreation record ${record.recordNamespace}/${record.recordName} dropped, not replayed: ${reason ?? 'the StatefulSet changed since it was written'}`);
        say(result.notes.at(-1) ?? '');
      }
    } catch (error) {
      if (!(error instanceof ClusterError && error.transient)) throw error;
      result.notes.push(`${id}: transient error, retrying next pass: ${error.message}`);
      say(result.notes.at(-1) ?? '');
      result.waiting.add(id);
    }
  }
  return result;
}

/**
 * While another holder has the Lease, a StatefulSet that a recreation left absent (a holder that died between the
 * orphan delete and the create) is created from its record anyway: every step is guarded by a precondition (uid on
 * delete, AlreadyExists on create), so this is safe without the Lease, and it keeps the set from staying absent until
 * the dead holder's Lease expires. No record is written; nothing else is touched. Only screened records are used (this
 * path runs while a holder is live or dead, which is exactly when a forged or replayed one would otherwise be acted on),
 * and a recreation finished here is struck from the Lease's mark at once (optimistic on `seen`, the Lease as this pass
 * read it), so a copy of its record put back is refused even before that holder's Lease expires. A set whose create
 * fails for a passing reason is left to the next pass; the others are still brought back, and struck.
 */
export async function recreateAbsentStatefulSets(
  ctx: PassContext, found: FoundRecords, standing: RecordStanding, seen: LeaseState,
): Promise<{ notes: string[]; refused: RefusedRecord[] }> {
  const { trusted, refused, notes } = await screenFound(ctx, found, standing, undefined);
  const finished = new Set<string>();
  for (const record of trusted) {
    if (!mayWrite(ctx, record.namespace)) continue;
    let words: string;
    try {
      if (await ctx.cluster.getStatefulSet(record.namespace, record.statefulSetName)) continue;
      const { outcome } = await resumeRecreation(record, ctx.cluster, ctx.timing, { rewriteRecord: false });
      const id = recordId(record);
      if (outcome === 'recreated' && id !== undefined) finished.add(id);
      words = templateUpdateWords[outcome];
    } catch (error) {
      if (!(error instanceof ClusterError && error.transient)) throw error;
      words = `transient error, left to the next pass: ${error.message}`;
    }
    notes.push(`${record.namespace}/${record.statefulSetName} was absent after an interrupted template update: ${words}`);
    ctx.onEvent?.(notes.at(-1) ?? '');
  }
  if (finished.size > 0 && ctx.recordKey) {
    const left = [...standing.outstanding.ids].filter((id) => !finished.has(id));
    const { place } = standing;
    await ctx.cluster.rewriteOutstandingRecords(place.leaseNamespace, place.leaseName, seen, signOutstanding(left, ctx.recordKey, place))
      .catch((error: unknown) => {
        // The holder wrote its Lease since it was read (it is alive): its own ledger says what is in progress.
        if (!(error instanceof ClusterError && (error.status === 409 || error.status === 404))) throw error;
      });
  }
  return { notes, refused };
}
