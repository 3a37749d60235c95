// Finding recreation records without a LIST per namespace. Records live in the target's Lease namespace, and the
// Lease, read at the start of every pass, says whether any may be outstanding: a pass LISTs them (one call) only when
// the Lease does not say `none`, and looks in the old per-namespace location only when the Lease carries no mark at
// all (an older version's Lease, or no Lease). What a pass leaves on the Lease comes from a ledger of every record it
// listed, wrote and deleted, so a missed record (a StatefulSet left deleted) needs the Lease to lie, which only a
// holder overrunning its Lease could make it do: LazyLease renews before each record write to rule that out.
import type { RecreationRecord } from '../../domain/live-state.ts';
import type { LeaseState, RecordsMark } from '../ports.ts';
import type { RecreationCluster } from './recreate-statefulset.ts';
import { sealRecord, type RecordKey } from './authenticity.ts';

/** Which record locations a pass must LIST. */
export interface RecordScan {
  /** The target's Lease namespace (one LIST). */
  leaseNamespace: boolean;
  /** The old location, each StatefulSet's own namespace (one LIST per namespace). */
  legacy: boolean;
}

/**
 * Only a released Lease's `none` is believed: a Lease with a holder (live, dead, or one that never got to release it)
 * may have records behind it. No mark at all means the old location was never found empty by this version.
 */
export function recordScanNeeded(lease: LeaseState | undefined): RecordScan {
  const released = lease !== undefined && !lease.holder;
  return { leaseNamespace: !(released && lease.recreationRecords === 'none'), legacy: lease?.recreationRecords === undefined };
}

const keyOf = (recordNamespace: string, recordName: string): string => `${recordNamespace}/${recordName}`;

/** What one pass knows of the target's records: those that may exist now, and whether each location was looked at. */
export class RecordLedger {
  /** Records that may exist, by `recordNamespace/recordName`: true for one in the old location. */
  private readonly mayExist = new Map<string, boolean>();
  private leaseNamespaceKnown: boolean;
  private legacyKnown: boolean;

  constructor(scan: RecordScan) {
    this.leaseNamespaceKnown = !scan.leaseNamespace;
    this.legacyKnown = !scan.legacy;
  }

  listed(records: readonly RecreationRecord[], where: keyof RecordScan): void {
    // Anything found in an old location (beside a StatefulSet, or an older version's Lease namespace) keeps the old
    // locations looked at by every pass, so a record refused there is reported until a person resolves it.
    for (const record of records) this.mayExist.set(keyOf(record.recordNamespace, record.recordName), where === 'legacy' || record.ownerTarget === undefined);
    if (where === 'leaseNamespace') this.leaseNamespaceKnown = true;
    else this.legacyKnown = true;
  }

  /** Called before the write: a save whose answer was lost may well have been stored. */
  saving(record: RecreationRecord): void {
    this.mayExist.set(keyOf(record.recordNamespace, record.recordName), record.ownerTarget === undefined);
  }

  /** Called after a delete the server confirmed (or answered 404). */
  deleted(recordNamespace: string, recordName: string): void {
    this.mayExist.delete(keyOf(recordNamespace, recordName));
  }

  /** Whether the old location is known to hold none of our records. */
  get legacyClean(): boolean {
    return this.legacyKnown && ![...this.mayExist.values()].some((legacy) => legacy);
  }

  /** The mark a holder puts on the Lease while it holds it (not believed while held; it keeps the old location's state). */
  holdingMark(): RecordsMark | undefined {
    return this.legacyClean ? 'outstanding' : undefined;
  }

  /** The mark the pass leaves when it is done: `none` only when every location was known and nothing may remain. */
  finalMark(): RecordsMark | undefined {
    if (!this.legacyClean) return undefined;
    return this.leaseNamespaceKnown && this.mayExist.size === 0 ? 'none' : 'outstanding';
  }
}

/** A template update that needs a recreation record, in a deployment without a record key. */
export class RecordKeyMissingError extends Error {
  constructor() {
    super('recreating the StatefulSet needs a recreation record, and records are signed with a key this target has none of: set targets[].recordKey in the config (see the README, "Recreation records")');
    this.name = 'RecordKeyMissingError';
  }
}

/**
 * The record calls of `cluster`, entered in `ledger`; `beforeSave` runs first (the Lease renewal that fences a save).
 * Every record is sealed with `key` (its MAC) on its way out; without a key none is written.
 */
export function recordedInLedger(
  cluster: RecreationCluster, ledger: RecordLedger, beforeSave: () => Promise<void>, key: RecordKey | undefined,
  now: () => Date = () => new Date(),
): RecreationCluster {
  return {
    replaceStatefulSet: (target, options) => cluster.replaceStatefulSet(target, options),
    getStatefulSet: (namespace, name) => cluster.getStatefulSet(namespace, name),
    deleteStatefulSetOrphan: (namespace, name, uid, resourceVersion) => cluster.deleteStatefulSetOrphan(namespace, name, uid, resourceVersion),
    createStatefulSet: (target) => cluster.createStatefulSet(target),
    saveRecreationRecord: async (record) => {
      if (key === undefined) throw new RecordKeyMissingError();
      await beforeSave();
      ledger.saving(record);
      await cluster.saveRecreationRecord(sealRecord(record, key, now()));
    },
    deleteRecreationRecord: async (recordNamespace, recordName) => {
      await cluster.deleteRecreationRecord(recordNamespace, recordName);
      ledger.deleted(recordNamespace, recordName);
    },
  };
}
