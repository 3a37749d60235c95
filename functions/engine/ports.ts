// The ports the engine, feedback and recovery talk through. Adapters (functions/adapters/*) implement them with
// client-node and Octokit; the engine never sees HTTP, and every value crossing a port is plain data.
import type {
  ClusterSnapshot, JsonObject, LiveStatefulSet, LiveVolumeAttributesClass, PvcEvent, RecreationRecord,
} from '../domain/live-state.ts';
import type { VolumeAttributesClassApi } from '../domain/server-capabilities.ts';

/** What stood between a request and a Kubernetes answer (adapters/kube/network-failure.ts), for a fix that fits. */
export type ClusterFailureCause = 'dns' | 'refused' | 'timeout' | 'tls' | 'reset' | 'unreachable' | 'blocked-port' | 'not-kubernetes';

/** An API failure, classified the way KEP-0661's loop needs: transient errors stop the set and are retried next pass. */
export class ClusterError extends Error {
  constructor(
    message: string,
    /** HTTP status, undefined for network failures and timeouts. */
    readonly status: number | undefined,
    /** The Status reason (`Invalid`, `Forbidden`, `Conflict`, `AlreadyExists`, `NotFound`, ...). */
    readonly reason: string | undefined,
    /** Why no API server answered, when none did: a network failure by kind, or a server that is not Kubernetes. */
    readonly failure?: ClusterFailureCause,
  ) {
    super(message);
    this.name = 'ClusterError';
  }

  /** Network failures, timeouts, 5xx, 429 and 409 conflicts: the next pass may well succeed. */
  get transient(): boolean {
    return this.status === undefined || this.status >= 500 || this.status === 429 || this.status === 409;
  }
}

/**
 * A failure of the Git host behind GitSourcePort, GitHistoryPort and ReviewHost that callers must tell apart, as
 * Renovate's platform layer says `PLATFORM_RATE_LIMIT_EXCEEDED`: a rate limit not waited out stops a whole GitHub step
 * until the next pass (one item's failure costs only that item). Adapters turn their host's own errors into it.
 */
export class GitHostError extends Error {
  constructor(
    message: string,
    /** HTTP status, when the host answered. */
    readonly status: number | undefined,
    /** The host refused for its rate limit (primary or secondary): the step waits for the next pass. */
    readonly rateLimited: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'GitHostError';
  }
}

/** Whether `error` is the Git host refusing for its rate limit. */
export function isRateLimited(error: unknown): error is GitHostError {
  return error instanceof GitHostError && error.rateLimited;
}

export interface InvolvedObject {
  apiVersion: string;
  kind: string;
  namespace: string;
  name: string;
  uid: string;
}

/**
 * What the Lease says of the old record locations (its `sts-volume-gitops.io/recreation-records` annotation): a mark
 * (`none` = no recreation outstanding, `outstanding` = some may be) says the old per-namespace locations of versions
 * before the state namespace were looked at and hold none of our records; no mark (an older version's Lease, no Lease,
 * or a record found there) = list them too. The state namespace is listed by every pass whatever it says.
 */
export type RecordsMark = 'none' | 'outstanding';

/**
 * The two marks a pass leaves on the Lease: the old locations' (above), and `outstanding`, the signed list of the
 * recreations in progress (engine/records/outstanding.ts), as the text of its annotation; undefined removes either.
 */
export interface LeaseMarks {
  records: RecordsMark | undefined;
  outstanding: string | undefined;
}

export interface LeaseState {
  holder: string | undefined;
  /** When the holder took it (kept while it renews): since when a busy pass has waited for it. */
  acquireTime?: string | undefined;
  renewTime: string | undefined;
  durationSeconds: number;
  resourceVersion: string | undefined;
  recreationRecords: RecordsMark | undefined;
  /** The text of the signed list of outstanding recreations, as found (untrusted until verified). */
  outstandingRecords: string | undefined;
}

export interface ClusterPort {
  /** One LIST per kind per namespace, StorageClasses once, and the server's `/version`. */
  readSnapshot(namespaces: readonly string[]): Promise<ClusterSnapshot>;
  /** VolumeAttributesClasses through `api` (one LIST; read only when a class changes); undefined when not served. */
  listVolumeAttributesClasses(api: Exclude<VolumeAttributesClassApi, 'none'>): Promise<LiveVolumeAttributesClass[] | undefined>;
  /**
   * Every ConfigMap in `namespace` (the target's state namespace) that claims to be a record of `target`: labelled as a
   * record (of `target`, or of no target), or named like one of its records whatever its labels. One LIST of the
   * namespace, with no label selector, so a planted ConfigMap cannot hide by leaving the label out.
   */
  listRecreationRecords(namespace: string, target: string): Promise<RecreationRecord[]>;
  /** Records an older version wrote in a StatefulSet's own namespace (no owning target): one LIST. */
  listLegacyRecreationRecords(namespace: string): Promise<RecreationRecord[]>;
  /** VolumeResizeFailed and other warning events of PVCs in a namespace (read only when something failed). */
  listPvcWarningEvents(namespace: string): Promise<PvcEvent[]>;
  /**
   * Server-side dry run of the storage patch (with `volumeAttributesClassName` when the class changes too): the API
   * server's rejection message, or undefined when accepted.
   */
  dryRunPvcStorage(namespace: string, name: string, storage: string, volumeAttributesClassName?: string): Promise<string | undefined>;
  /** Merge-patches the request (and the class, when given) with a resourceVersion precondition. */
  patchPvcStorage(namespace: string, name: string, storage: string, resourceVersion: string, volumeAttributesClassName?: string): Promise<void>;
  getStatefulSet(namespace: string, name: string): Promise<LiveStatefulSet | undefined>;
  /** PUT of a whole StatefulSet; with dryRun nothing is stored (used to learn if in-place template updates work). */
  replaceStatefulSet(target: JsonObject, options: { dryRun: boolean }): Promise<LiveStatefulSet>;
  /**
   * Deletes with the orphan policy, only if the object is still the one seen: same uid and resourceVersion (a 409
   * otherwise), so an edit made since it was read is never lost to the recreation.
   */
  deleteStatefulSetOrphan(namespace: string, name: string, uid: string, resourceVersion: string): Promise<void>;
  /** Returns the object as the server stored it (no GET needed after a recreation). */
  createStatefulSet(target: JsonObject): Promise<LiveStatefulSet>;
  /**
   * Creates the record's ConfigMap in `record.recordNamespace`. A ConfigMap of that name already there is a ClusterError
   * 409 (AlreadyExists), never overwritten, unless `replace` (a pass rewriting its own record in progress).
   */
  saveRecreationRecord(record: RecreationRecord, options: { replace: boolean }): Promise<void>;
  /** Deletes a record's ConfigMap (`recordNamespace`); one already gone is fine. */
  deleteRecreationRecord(recordNamespace: string, recordName: string): Promise<void>;
  /** Sets (or with null removes) one annotation with a merge patch. */
  annotateStatefulSet(namespace: string, name: string, key: string, value: string | null): Promise<void>;
  /** The same on a PVC (where the status of a set an operator writes is kept); returns its new resourceVersion. */
  annotatePvc(namespace: string, name: string, key: string, value: string | null): Promise<string>;
  recordEvent(involved: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void>;
  readLease(namespace: string, name: string): Promise<LeaseState | undefined>;
  /**
   * Takes or renews the lease with `marks` on it (a mark left undefined is removed); throws ClusterError 409 when
   * someone else changed it since `seen`. Renewing (`seen` is held by `holder`) keeps its acquireTime.
   */
  writeLease(
    namespace: string, name: string, holder: string, durationSeconds: number, seen: LeaseState | undefined, marks?: LeaseMarks,
  ): Promise<LeaseState>;
  /**
   * Clears the holder and sets the marks (undefined: removed), only if the Lease is still as `held` (the state
   * writeLease returned): a holder that took over after ours expired keeps it. False when it was not released: the
   * Lease changed since `held` (409) or is gone (404).
   */
  releaseLease(namespace: string, name: string, held: LeaseState, marks?: LeaseMarks): Promise<boolean>;
  /**
   * Writes the Lease free (no holder) with `marks`, only if it is still as `seen` (created when `seen` is undefined);
   * throws ClusterError 409 when it changed since.
   */
  markLeaseFree(namespace: string, name: string, seen: LeaseState | undefined, marks: LeaseMarks): Promise<void>;
  /**
   * Replaces only the outstanding-recreations mark (undefined: removed) of a Lease someone else holds, holder and times
   * untouched, only if it is still as `seen`; throws ClusterError 409 when it changed since (404 when it is gone).
   */
  rewriteOutstandingRecords(namespace: string, name: string, seen: LeaseState, outstanding: string | undefined): Promise<void>;
}

/** The files of one commit the target reads: those its globs match and those its size sources map. */
export interface GitSnapshot {
  commitSha: string;
  /** The files read: those the target's paths match and its size sources' values files. */
  files: Map<string, string>;
  /** Every file's path at the commit (read or not), to say where the YAML files are when the paths match none. */
  paths: readonly string[];
  /**
   * Files the paths match (or size sources map) left unread because the listing gave them as over the per-file limit
   * (domain/source-limits.ts): path -> bytes. Never fetched; each is a located error of the pass.
   */
  tooLarge: ReadonlyMap<string, number>;
}

export interface GitSourcePort {
  readBranchHead(): Promise<GitSnapshot>;
}

/** A repository's files and history at any commit: pull request heads, the commit that introduced a size. */
export interface GitHistoryPort extends GitSourcePort {
  readCommit(commitSha: string): Promise<GitSnapshot>;
  /** One file's text at `ref`, or undefined when there is no such file. */
  fileAt(ref: string, path: string): Promise<string | undefined>;
  /** Commits on `branch` touching `path`, newest first (at most `limit`). */
  commitsTouching(branch: string, path: string, limit?: number): Promise<Array<{ sha: string; parent: string | undefined }>>;
}

export type WriteOutcome = 'created' | 'updated' | 'unchanged';

export interface CommitStatus {
  context: string;
  state: 'pending' | 'success' | 'failure' | 'error';
  description: string;
  targetUrl?: string;
}

/** A remark on one line of a file, shown there in the pull request's "Files changed" (a check run's annotation). */
export interface CheckAnnotation {
  path: string;
  line: number;
  level: 'notice' | 'warning' | 'failure';
  /** Plain text, not Markdown. */
  title: string;
  message: string;
}

/**
 * A verdict on a commit. A host that can write check runs (a GitHub App with `checks: write`) writes one, named
 * `context`, with the summary and annotations; otherwise a commit status carries `state`, `description`, `targetUrl`.
 */
export interface CommitCheck extends CommitStatus {
  title: string;
  /** Markdown: the plan or progress table. */
  summary: string;
  annotations: readonly CheckAnnotation[];
}

/**
 * A verdict under this tool's check name that this tool did not write: a commit status of another identity, or a check
 * run of another App (a workflow job named like the check). It meets a required check the branch does not require
 * from this tool's App.
 */
export interface ForeignVerdict {
  kind: 'status' | 'check run';
  /** Who wrote it: the account (a status) or the App (a check run), as GitHub names them. */
  by: string;
  /** The status's state, or the run's conclusion (its status while it runs). */
  state: string;
  /** The status's description, or the run's title. */
  description?: string;
}

export interface OpenPullRequest {
  number: number;
  headSha: string;
  headRef: string;
  title: string;
  htmlUrl: string;
  /** The head branch lives in another repository (a fork; a deleted fork's head repo is null). */
  fromFork: boolean;
}

/**
 * A pull request from one of this repository's branches, as a proposal's lifecycle reads it (functions/proposals/:
 * recovery, and later growth and write-back). Which proposal it is, and whether this tool closed it, is read there
 * from its body and labels.
 */
export interface ProposalPullRequest {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  title: string;
  body: string;
  htmlUrl: string;
  headRef: string;
  labels: string[];
}

/** A proposal's pull request to open: its labels and its kind come from the proposals lifecycle, never the host. */
export interface NewProposalPullRequest {
  branch: string;
  base: string;
  title: string;
  body: string;
  labels: readonly string[];
  /** What it proposes, for the write log: `recovery`. */
  kind: string;
}

/**
 * Everything this tool writes to the code review host, and the review state it reads to decide what to write: commit
 * statuses, comments, proposals' branches and pull requests (in the manner of Renovate's platform interface). `ensure…`
 * writes read first and write only what changed; creates whose reply was lost are not made twice. Files and history
 * are read through GitHistoryPort, not here.
 */
export interface ReviewHost {
  /** Every write made through this host, in order (the report and the demo print them). */
  readonly writes: readonly string[];
  /** Whether verdicts go out as check runs (a GitHub App with `checks: write`) rather than commit statuses. */
  readonly writesCheckRuns: boolean;
  openPullRequests(base: string): Promise<OpenPullRequest[]>;
  /** Paths a pull request changes (a rename gives both names). */
  changedFiles(pullNumber: number): Promise<string[]>;
  /** The merged pull request that brought `sha` into the branch, if any. */
  mergedPullRequestFor(sha: string): Promise<number | undefined>;
  /** Sets the status unless the latest one of its context already says the same. */
  ensureCommitStatus(sha: string, status: CommitStatus): Promise<WriteOutcome>;
  /** A check run on `sha` (created once, updated when it changed), or the commit status where check runs cannot be written. */
  ensureCheck(sha: string, check: CommitCheck): Promise<WriteOutcome>;
  /** Statuses and check runs named `context` on `sha` that this tool did not write. */
  foreignVerdicts(sha: string, context: string): Promise<ForeignVerdict[]>;
  /** Paths changed from `baseSha` to `headSha` (a merge queue's merge commit against its base). */
  changedFilesBetween(baseSha: string, headSha: string): Promise<string[]>;
  /** One comment of ours per `key` on a pull request: created, edited when `body` changed, else left alone. */
  ensureComment(pullNumber: number, key: string, body: string): Promise<{ outcome: WriteOutcome; url: string }>;
  /** Pull requests from `branch` of this repository, in any state. */
  pullRequestsFrom(branch: string): Promise<ProposalPullRequest[]>;
  /** Open pull requests from branches of this repository (never a fork's) whose name starts with `prefix`. */
  openPullRequestsFromPrefix(prefix: string): Promise<ProposalPullRequest[]>;
  /** Whether the last commit on `branch` is this tool's (undefined when there is no such branch). */
  branchHeadIsOurs(branch: string): Promise<boolean | undefined>;
  /**
   * Points `branch` at a new commit of ours on top of `baseSha` that replaces one file (forced: a proposal's branch
   * is rewritten, not added to, when the proposal changes); returns the commit's SHA.
   */
  commitFile(branch: string, baseSha: string, path: string, content: string, message: string): Promise<string>;
  /** Opens a labelled pull request (finding the one a lost reply created). */
  createPullRequest(pull: NewProposalPullRequest): Promise<ProposalPullRequest>;
  updatePullRequest(pullNumber: number, edit: { title: string; body: string; kind: string }): Promise<void>;
  /** Comments why, adds `label` (so the closure is told from a person's), closes it and deletes its branch. */
  closePullRequest(pullNumber: number, closing: { comment: string; branch: string; label: string; kind: string }): Promise<void>;
}
