// The two ports the engine talks through. Adapters (functions/adapters/*) implement them with client-node and Octokit;
// the engine never sees HTTP, and every value crossing a port is plain data.
import type { ClusterSnapshot, JsonObject, LiveStatefulSet, PvcEvent, RecreationRecord } from '../domain/live-state.ts';

/** An API failure, classified the way KEP-0661's loop needs: transient errors stop the set and are retried next pass. */
export class ClusterError extends Error {
  constructor(
    message: string,
    /** HTTP status, undefined for network failures and timeouts. */
    readonly status: number | undefined,
    /** The Status reason (`Invalid`, `Forbidden`, `Conflict`, `AlreadyExists`, `NotFound`, ...). */
    readonly reason: string | undefined,
  ) {
    super(message);
    this.name = 'ClusterError';
  }

  /** Network failures, timeouts, 5xx, 429 and 409 conflicts: the next pass may well succeed. */
  get transient(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || this.status === 409;
  }
}

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/**
 * What the Lease says of the target's recreation records (its `sts-volume-gitops.io/recreation-records` annotation):
 * `none` = none outstanding anywhere; `outstanding` = some may be in the Lease namespace, none in the old per-namespace
 * location; no mark (an older version's Lease, or a holder that had not scanned the old location) = look everywhere.
 * Only a released Lease (no holder) is believed: a holder that died never wrote its last word.
 */
export type RecordsMark = 'none' | 'outstanding';

export interface LeaseState {
  holder: string | undefined;
  renewTime: string | undefined;
  durationSeconds: number;
  resourceVersion: string | undefined;
  recreationRecords: RecordsMark | undefined;
}

export interface ClusterPort {
  /** One LIST per kind per namespace, StorageClasses once. */
  readSnapshot(namespaces: readonly string[]): Promise<ClusterSnapshot>;
  /** The recreation records `target` wrote in `namespace` (its Lease namespace): one LIST. */
  listRecreationRecords(namespace: string, target: string): Promise<RecreationRecord[]>;
  /** Records an older version wrote in a StatefulSet's own namespace (no owning target): one LIST. */
  listLegacyRecreationRecords(namespace: string): Promise<RecreationRecord[]>;
  /** VolumeResizeFailed and other warning events of PVCs in a namespace (read only when something failed). */
  listPvcWarningEvents(namespace: string): Promise<PvcEvent[]>;
  /** Server-side dry run of the storage patch: the API server's rejection message, or undefined when accepted. */
  dryRunPvcStorage(namespace: string, name: string, storage: string): Promise<string | undefined>;
  /** Merge-patches the request with a resourceVersion precondition. */
  patchPvcStorage(namespace: string, name: string, storage: string, resourceVersion: string): Promise<void>;
  getStatefulSet(namespace: string, name: string): Promise<LiveStatefulSet | undefined>;
  /** PUT of a whole StatefulSet; with dryRun nothing is stored (used to learn if in-place template updates work). */
  replaceStatefulSet(target: JsonObject, options: { dryRun: boolean }): Promise<void>;
  deleteStatefulSetOrphan(namespace: string, name: string, uid: string): Promise<void>;
  createStatefulSet(target: JsonObject): Promise<void>;
  /** Creates or replaces the record's ConfigMap in `record.recordNamespace`. */
  saveRecreationRecord(record: RecreationRecord): Promise<void>;
  /** Deletes a record's ConfigMap (`recordNamespace`); one already gone is fine. */
  deleteRecreationRecord(recordNamespace: string, recordName: string): Promise<void>;
  /** Sets (or with null removes) one annotation with a merge patch. */
  annotateStatefulSet(namespace: string, name: string, key: string, value: string | null): Promise<void>;
  recordEvent(involved: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  readLease(namespace: string, name: string): Promise<LeaseState | undefined>;
  /**
   * Takes or renews the lease with `records` as its mark (none: no mark); throws ClusterError 409 when someone else
   * changed it since `seen`.
   */
  writeLease(
    namespace: string, name: string, holder: string, durationSeconds: number, seen: LeaseState | undefined, records?: RecordsMark,
  ): Promise<LeaseState>;
  /**
   * Clears the holder and sets the records mark (none: removes it), only if the Lease is still as `held` (the state
   * writeLease returned): a holder that took over after ours expired keeps it.
   */
  releaseLease(namespace: string, name: string, held: LeaseState, records?: RecordsMark): Promise<void>;
  /**
   * Writes the Lease free (no holder) with `records` as its mark, only if it is still as `seen` (created when `seen` is
   * undefined); throws ClusterError 409 when it changed since.
   */
  markLeaseFree(namespace: string, name: string, seen: LeaseState | undefined, records: RecordsMark): Promise<void>;
}

/** The files of one commit the target reads: those its globs match and those its size sources map. */
export interface GitSnapshot {
  commitSha: string;
  files: Map<string, string>;
}

export interface GitSourcePort {
  readBranchHead(): Promise<GitSnapshot>;
}
