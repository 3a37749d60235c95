// What one pass is given: the target's settings and the ports it reads and writes through. Its own module so that
// the pass and the record resumption it calls both depend on it, not on each other.
import type { GuardrailsConfig, PriceConfig } from '../domain/config.ts';
import type { DesiredStatefulSet } from '../domain/desired-state.ts';
import type { ClusterSnapshot } from '../domain/live-state.ts';
import type { ModificationLimit } from '../domain/modification-limit.ts';
import type { GrowthDecision, UsageReport, WriteBackDecision } from '../domain/volume-usage.ts';
import type { StatefulSetPlan } from './plan/plan-types.ts';
import type { WriteBackHolds } from './plan/write-back-hold.ts';
import type { SizeSource } from '../domain/size-sources.ts';
import type { NamespaceScope } from './plan/allowed-namespaces.ts';
import type { LeaseClock, LeaseTiming } from './lease/lazy-lease.ts';
import type { ClusterPort, GitSourcePort } from './ports.ts';
import type { PassMode } from './report/pass-report.ts';
import type { RecreationTiming } from './records/recreate-statefulset.ts';
import type { RecordKey } from './records/authenticity.ts';
import type { RememberedMaximum } from './volumes/remembered-maximum.ts';

export interface PassTarget {
  name: string;
  globs: readonly string[];
  defaultNamespace: string;
  allowedNamespaces: readonly string[];
  /** Sizes mapped from values files (Helm values, Kustomize patches) to StatefulSet templates. */
  sizeSources?: readonly SizeSource[];
  /** Size limits of every template change (engine/plan/guardrails.ts). */
  guardrails?: GuardrailsConfig;
  /** Price per GiB-month per StorageClass, for the cost of a change. */
  prices?: PriceConfig;
  /** Where the Lease and the recreation records live (`namespaces.state`): never a workload namespace. */
  stateNamespace: string;
  /** How long a volume may wait for its node before it is stalled (`stalledAfter`; engine/volumes/node-expansion.ts). */
  stalledAfterSeconds?: number;
  /** Each CSI driver's modification limit over the defaults (`drivers.<name>.modificationLimit`; domain/modification-limit.ts). */
  modificationLimits?: Readonly<Record<string, ModificationLimit>>;
}

/** Which namespaces the target may resize in: the one reading the plan, its dry runs and the records all use. */
export function namespaceScopeOf(target: Pick<PassTarget, 'allowedNamespaces' | 'stateNamespace'>): NamespaceScope {
  return { allow: target.allowedNamespaces, state: target.stateNamespace };
}

export interface PassContext {
  target: PassTarget;
  git: GitSourcePort;
  cluster: ClusterPort;
  mode: PassMode;
  /** Who holds the Lease while this pass writes (Lambda request id, hostname+pid). */
  holderIdentity: string;
  /** How the Lease is held (lazy-lease.ts; client-go leader election's 15 s, 10 s and 2 s by default). */
  leaseTiming?: LeaseTiming;
  /** The renewals' clock (tests play one); the process's monotonic clock by default. */
  leaseClock?: LeaseClock;
  timing: RecreationTiming;
  /** Signs the recreation records this pass writes and authenticates those it finds; without it none is written or trusted. */
  recordKey?: RecordKey;
  /** Milliseconds left before the caller must stop; no new StatefulSet is started when it runs short. */
  remainingMs?: () => number;
  /** Timeline of what the pass does, for the CLI and the demo. */
  onEvent?: (line: string) => void;
  now?: () => Date;
  apiConcurrency?: number;
  /**
   * Reads the volumes' usage and decides growth and write-back from the plan (functions/usage/size-proposals.ts):
   * the read starts as soon as the namespaces are known (beside the cluster's), the decisions once the plan is made;
   * read-only, and never failing the pass (a failed read is a report line).
   */
  proposeSizes?: SizeProposalStep;
  /** Which live templates grown outside Git to hold for their write-back, not shrink (write-back-hold.ts); none without. */
  writeBackHolds?: WriteBackHolds;
}

/** What the size proposals are decided from: the pass's final plans and the snapshot they were made over. */
export interface PlannedPass {
  plans: readonly StatefulSetPlan[];
  snapshot: ClusterSnapshot;
  /** Per driver, the maximum it stated, as the plan used it (plan-driver-maximum.ts `knownMaxima`). */
  driverMaxima: ReadonlyMap<string, RememberedMaximum>;
}

/** The usage read and the sizes proposed from it and from the live sizes (each absent when there is nothing to say). */
export interface SizeProposals {
  usage?: UsageReport;
  growth?: GrowthDecision[];
  writeBack?: WriteBackDecision[];
}

/**
 * What is known of the sets before the cluster is read: those Git has (their growth annotations set how full a volume
 * must be to matter), and whether size sources add sets whose annotations are the live objects' (known only later).
 */
export interface SetsBeforeCluster {
  statefulSets: readonly DesiredStatefulSet[];
  liveAnnotated: boolean;
}

/** Starts reading the namespaces' usage at `at`; the function it returns decides from the plan once it is made. */
export type SizeProposalStep = (namespaces: readonly string[], at: Date, sets: SetsBeforeCluster) => (planned: PlannedPass) => Promise<SizeProposals>;

/** The pass's clock: the one it was given (tests), else the real time. Sealing and checking records read the same one. */
export function passNow(ctx: Pick<PassContext, 'now'>): Date {
  return ctx.now ? ctx.now() : new Date();
}
