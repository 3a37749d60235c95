// Volume usage as plain data (issue 36): what the kubelet's statistics say of each claim, why they could not be read,
// and what a pass reports of them and decides from them (growth, write-back). Read by functions/usage/, reported by the
// pass (engine/report/pass-report.ts `PassReport.usage`, `.growth`, `.writeBack`), and consumed by the pull requests that
// propose the sizes. No I/O here.
import type { SourceLocation } from './desired-state.ts';

/** What the kubelet reports of one claim (max over the series a scrape or two may hold), in bytes and inodes. */
export interface ClaimUsage {
  namespace: string;
  claim: string;
  usedBytes: number;
  /** The file system's size as the kubelet reports it (not the claim's size: a file system keeps some for itself). */
  capacityBytes: number;
  inodesUsed?: number;
  inodes?: number;
  /** Used bytes per day at the last day's pace (deriv); absent without two samples in the day. */
  bytesPerDay?: number;
}

/**
 * Why usage could not be read: `unreachable` (no answer: DNS, connection, TLS), `timeout`, `refused` (401/403: the
 * credentials), `server-error` (another non-2xx answer), `query-error` (Prometheus's own error JSON: bad_data,
 * execution, timeout...), `malformed` (an answer that is not the API's JSON), `credentials` (no token or AWS credentials
 * to send), `no-series` (it answered, with no series for any claim asked about).
 */
export type UsageFailureKind = 'unreachable' | 'timeout' | 'refused' | 'server-error' | 'query-error' | 'malformed' | 'credentials' | 'no-series';

export interface UsageReadFailure {
  kind: UsageFailureKind;
  /** A sentence: what happened, with the status, Prometheus's errorType and error, never a credential. */
  message: string;
  status?: number;
  errorType?: string;
}

/** One replica's volume, as read and as the decisions see it. */
export interface ReplicaUsage {
  claim: string;
  ordinal: number;
  usedBytes: number;
  capacityBytes: number;
  /** used / capacity x 100 (the kubelet's capacity). */
  usedPercent: number;
  inodesUsed?: number;
  inodes?: number;
  inodesPercent?: number;
  bytesPerDay?: number;
  /** Days until used reaches capacity at that pace; absent when it is not filling. */
  daysToFull?: number;
}

/** A template's replicas: those with series, and those without (a replica whose pod is not running is not reported). */
export interface TemplateUsage {
  namespace: string;
  statefulSet: string;
  template: string;
  replicas: ReplicaUsage[];
  /** Claims of the replicas that have no series. */
  unread: string[];
}

/** What a pass read of its target's volumes (present when the target configures usage). */
export interface UsageReport {
  /** The Prometheus API read (the configured URL). */
  source: string;
  /** When it was read (ISO time: the pass's clock, sent as the queries' `time`). */
  at: string;
  /** Queries sent: a fixed number per pass, whatever the number of volumes. */
  queries: number;
  outcome: 'read' | 'failed';
  failure?: UsageReadFailure;
  /** Prometheus's warnings (a partial answer from a federated query), as it said them. */
  warnings?: string[];
  templates: TemplateUsage[];
  /** Volumes read at or above their set's growth threshold (bytes or inodes); absent without `growth`. */
  nearFull?: number;
}

/** Why a template is proposed growth: its fullest replica's bytes or inodes, or how soon it fills. */
export interface GrowthTrigger {
  claim: string;
  ordinal: number;
  cause: 'bytes' | 'inodes' | 'fills-soon';
  /** The percent full (bytes or inodes) or the days to full, as the cause says. */
  value: number;
}

/** A limit that cut a proposed size, and what it allowed. */
export interface GrowthCut {
  limit: 'max' | 'driverMaximum' | 'maxSize' | 'maxGrowthFactor' | 'maxMonthlyIncrease';
  /** Where the limit is set: `growth.max` on the target, `sts-volume-gitops.io/growth-max` on the set, a guardrail's place. */
  setBy: string;
  /** The size asked for before this cut, and the size allowed. */
  wanted: string;
  allowed: string;
}

export type NoGrowthCode =
  | 'growth-off' | 'below-threshold' | 'no-usage' | 'change-under-way' | 'blocked' | 'at-max' | 'at-driver-maximum' | 'at-guardrail' | 'guardrail-unknown'
  | 'policy-invalid' | 'not-in-cluster' | 'driver-window';

/** Which template, and where its size is written (a manifest's line or a size source's value). */
export interface TemplateRef {
  namespace: string;
  statefulSet: string;
  template: string;
  /** Where the size lives in Git: the edit a proposal makes. */
  storageLocation: SourceLocation;
  /** Set when a size source maps the size (a values file), not the manifest. */
  sizeSource?: { file: string; path: string };
}

/** The growth decision for one template: a size to propose, or why none. */
export type GrowthDecision = TemplateRef & (
  | {
    action: 'grow';
    /** The template's size now (Git's, which is the live one: growth is decided only for settled templates). */
    from: string;
    /** The size proposed, in whole Gi (or Git's unit when it is exact). */
    to: string;
    because: GrowthTrigger;
    /** Every replica that is a reason to grow, in replica order (`because` is the one that needs the most). */
    triggers: GrowthTrigger[];
    /** Limits that cut the step, in the order applied; empty when the whole step is proposed. */
    cuts: GrowthCut[];
    /** What the growth adds a month across the replicas, with prices configured. */
    monthlyIncrease?: { amount: number; currency: string } | { unpriced: string };
    /** Each replica's used share of its file system after the growth (the evidence "81% -> 41%"). */
    after: Array<{ claim: string; usedPercent: number }>;
    /** A sentence: "propose 20Gi, because data-pg-0 is 85% full". */
    sentence: string;
  }
  | {
    action: 'none';
    code: NoGrowthCode;
    /** A sentence: "no growth: ...". */
    sentence: string;
  }
);

/** Where a live size larger than Git was found. */
export interface LiveSizeFinding {
  /** The live template, or a PVC's request. */
  where: 'template' | 'pvc';
  /** The PVC's name; the template's for `template`. */
  name: string;
  size: string;
  /** A PVC's capacity beside its request, as evidence. */
  capacity?: string;
}

/** A template whose live size is larger than Git (grown by hand, by an autoscaler, by a recovery outside Git). */
export type WriteBackDecision = TemplateRef & {
  /** Git's size now. */
  git: string;
  /** The size proposed for Git: the largest live one. */
  to: string;
  found: LiveSizeFinding[];
  sentence: string;
};
