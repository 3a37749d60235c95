// What one pass knows of the target's records, and what it leaves on the Lease about them. Every pass lists the state
// namespace (one LIST: a record planted there after a clean pass is seen on the next one); the old per-namespace
// locations of versions before the state namespace are listed only while the Lease carries no mark saying they were
// found clean. The ledger keeps the ids of the recreations in progress, the Lease's signed mark lists them
// (outstanding.ts): those the mark listed and the namespace still holds, and those the pass began to save, until it
// sees them deleted. A save is fenced by the Lease write that lists it (LazyLease), before the ConfigMap exists; a
// confirmed delete is followed by the Lease write that no longer does.
import type { RecreationRecord } from '../../domain/live-state.ts';
import type { LeaseMarks, LeaseState, RecordsMark } from '../ports.ts';
import { RecreationBlockedError, type RecreationCluster } from './recreate-statefulset.ts';
import { sealRecord, type RecordKey } from './authenticity.ts';
import { readOutstanding, recordId, signOutstanding, type MarkPlace, type Outstanding } from './outstanding.ts';

/** Whether a pass must also list the old locations: only while the Lease carries no mark (an older version's, or none). */
export function legacyScanNeeded(lease: LeaseState | undefined): boolean {
  return lease?.recreationRecords === undefined;
}

export interface LedgerStart {
  /** Whether the old locations are to be listed (else they are known clean). */
  legacy: boolean;
  /** The ids the Lease's mark listed, verified: the recreations in progress when the pass began. */
  outstanding: ReadonlySet<string>;
  /** Signs a list of ids as the Lease's mark (undefined when there are none; without a key, the mark as found). */
  sign: (ids: Iterable<string>) => string | undefined;
  /** The ids a mark's text lists, only if it verifies (none otherwise). */
  read: (text: string | undefined) => ReadonlySet<string>;
}

const keyOf = (recordNamespace: string, recordName: string): string => `${recordNamespace}/${recordName}`;

export class RecordLedger {
  /** Until the state namespace is listed, every id the mark listed may still be stored. */
  private unlisted: Set<string>;
  /** By `recordNamespace/recordName`: the ids of recreations in progress that may be stored under that name. */
  private readonly inProgress = new Map<string, Set<string>>();
  /** Records found in the old locations (refused; a person resolves them), by `recordNamespace/recordName`. */
  private readonly legacyFound = new Set<string>();
  private legacyKnown: boolean;

  constructor(private readonly start: LedgerStart) {
    this.unlisted = new Set(start.outstanding);
    this.legacyKnown = !start.legacy;
  }

  /**
   * The state namespace was listed: of the ids the mark listed, those `authentic` records carry (checked, so a copied MAC
   * under another name counts for nothing) are still in progress; the others are finished.
   */
  listedStateNamespace(authentic: readonly RecreationRecord[]): void {
    for (const record of authentic) {
      const id = recordId(record);
      if (id !== undefined && this.unlisted.has(id)) this.inProgress.set(keyOf(record.recordNamespace, record.recordName), new Set([id]));
    }
    this.unlisted = new Set();
  }

  /** The old locations were listed: anything there keeps them listed by every pass until a person resolves it. */
  listedLegacy(records: readonly RecreationRecord[]): void {
    for (const record of records) this.legacyFound.add(keyOf(record.recordNamespace, record.recordName));
    this.legacyKnown = true;
  }

  /** Called before the Lease write that fences the save: a save whose answer was lost may well have been stored. */
  saving(sealed: RecreationRecord): void {
    const id = recordId(sealed);
    if (id === undefined) return;
    const key = keyOf(sealed.recordNamespace, sealed.recordName);
    this.inProgress.set(key, new Set([...(this.inProgress.get(key) ?? []), id]));
  }

  /** The save was confirmed: the ConfigMap holds this seal, and no earlier one of that name. */
  saved(sealed: RecreationRecord): void {
    const id = recordId(sealed);
    if (id !== undefined) this.inProgress.set(keyOf(sealed.recordNamespace, sealed.recordName), new Set([id]));
  }

  /** Called after a delete the server confirmed (or answered 404). */
  deleted(recordNamespace: string, recordName: string): void {
    this.inProgress.delete(keyOf(recordNamespace, recordName));
    this.legacyFound.delete(keyOf(recordNamespace, recordName));
  }

  /** Recreations another pass finished (it deleted their records) and struck from the Lease's mark while ours. */
  struck(ids: Iterable<string>): void {
    for (const id of ids) {
      this.unlisted.delete(id);
      for (const [key, inProgress] of this.inProgress) if (inProgress.delete(id) && inProgress.size === 0) this.inProgress.delete(key);
    }
  }

  /** The ids a mark's text lists, verified (none when it does not verify). */
  readMark(text: string | undefined): ReadonlySet<string> {
    return this.start.read(text);
  }

  /** The ids of every recreation that may be in progress. */
  outstandingIds(): Set<string> {
    return new Set([...this.unlisted, ...[...this.inProgress.values()].flatMap((ids) => [...ids])]);
  }

  /** Whether the old locations are known to hold none of our records. */
  get legacyClean(): boolean {
    return this.legacyKnown && this.legacyFound.size === 0;
  }

  /**
   * What the pass leaves on the Lease: the signed ids, and the old locations' mark (none while they may hold a record).
   * While held, or after a pass that did not complete, that mark says `outstanding`, never `none`.
   */
  marks(completed: boolean): LeaseMarks {
    const outstanding = this.start.sign(this.outstandingIds());
    let records: RecordsMark | undefined;
    if (this.legacyClean) records = completed && outstanding === undefined ? 'none' : 'outstanding';
    return { records, outstanding };
  }
}

/**
 * The ledger of a pass that read `seen` and believes `outstanding` of its mark. Without a key nothing is signed and no
 * record written: the Lease's mark is then carried over as found, never erased (it is believed again once the key is back).
 */
export function passLedger(
  seen: LeaseState | undefined, key: RecordKey | undefined, place: MarkPlace, outstanding: Outstanding, legacy: boolean,
): RecordLedger {
  const sign = (ids: Iterable<string>): string | undefined => (key ? signOutstanding(ids, key, place) : seen?.outstandingRecords);
  const read = (text: string | undefined): ReadonlySet<string> => readOutstanding(text, key, place).ids;
  return new RecordLedger({ legacy, outstanding: outstanding.ids, sign, read });
}

/** A template update that needs a recreation record, in a deployment without a record key. */
export class RecordKeyMissingError extends RecreationBlockedError {
  constructor() {
    super('record-key-missing', 'recreating the StatefulSet needs a recreation record, and records are signed with a key this target has none of: set targets[].recordKey in the config (see the README, "Recreation records")');
  }
}

/**
 * The record calls of `cluster`, entered in `ledger`. Every record is sealed with `key` (its MAC, which is its id) on
 * its way out; then `listOutstanding` runs (the Lease write listing that id, which also proves the Lease is still ours),
 * and only then is the ConfigMap written. Once a delete is confirmed, `listOutstanding` runs again: the Lease stops
 * listing the finished recreation at once. Without a key no record is written.
 */
export function recordedInLedger(
  cluster: RecreationCluster, ledger: RecordLedger, listOutstanding: () => Promise<void>, key: RecordKey | undefined,
  now: () => Date = () => new Date(),
): RecreationCluster {
  return {
    replaceStatefulSet: (target, options) => cluster.replaceStatefulSet(target, options),
    getStatefulSet: (namespace, name) => cluster.getStatefulSet(namespace, name),
    deleteStatefulSetOrphan: (namespace, name, uid, resourceVersion) => cluster.deleteStatefulSetOrphan(namespace, name, uid, resourceVersion),
    createStatefulSet: (target) => cluster.createStatefulSet(target),
    saveRecreationRecord: async (record, options) => {
      if (key === undefined) throw new RecordKeyMissingError();
      const sealed = sealRecord(record, key, now());
      ledger.saving(sealed);
      await listOutstanding();
      await cluster.saveRecreationRecord(sealed, options);
      ledger.saved(sealed);
    },
    deleteRecreationRecord: async (recordNamespace, recordName) => {
      await cluster.deleteRecreationRecord(recordNamespace, recordName);
      ledger.deleted(recordNamespace, recordName);
      await listOutstanding();
    },
  };
}
