// The shape of a plan (what a pass would do to each StatefulSet and template, and why not), apart from planTarget so
// the modules that apply one rule to a plan (quota-headroom.ts, plan-guards.ts) can name it without importing plan.ts.
import type { DesiredStatefulSet, DesiredTemplate } from '../../domain/desired-state.ts';
import type { ClusterSnapshot, ControllerOwner, LivePvc, LiveStatefulSet, LiveTemplate } from '../../domain/live-state.ts';
import type { ModificationLimit } from '../../domain/modification-limit.ts';
import type { Quantity } from '../../domain/quantity.ts';
import type { GuardrailsConfig, PriceConfig } from '../../domain/config.ts';
import type { VolumeCost } from '../../domain/volume-cost.ts';
import type { RememberedMaximum } from '../volumes/remembered-maximum.ts';
import type { OwnershipCode } from './controller-owner.ts';
import type { GuardrailCode } from './guardrails.ts';
import type { ClassBlockCode, ClassChange } from './plan-volume-attributes.ts';

export type BlockCode =
  | 'namespace-not-allowed'
  | 'statefulset-not-in-cluster'
  | 'template-not-in-cluster'
  | 'template-changed'
  | 'template-list-changed'
  | 'storage-class-missing'
  | 'storage-class-not-expandable'
  | 'below-capacity'
  | 'implausible-size'
  | 'quota-exceeded'
  | 'dry-run-rejected'
  | 'above-driver-maximum'
  | ClassBlockCode
  | GuardrailCode
  | OwnershipCode;

export interface BlockReason {
  code: BlockCode;
  /** A sentence for people: what is wrong and, where we know, what to do. */
  message: string;
}

export interface QuotaCheck {
  quotaName: string;
  resource: string;
  limit: bigint;
  usedBefore: bigint;
  growth: bigint;
}

export type TemplateAction = 'unchanged' | 'resize' | 'blocked';

export interface TemplatePlan {
  templateName: string;
  desired: DesiredTemplate;
  live: LiveTemplate | undefined;
  action: TemplateAction;
  /** The live template's size (undefined when the template is missing in the cluster). */
  from: Quantity | undefined;
  to: Quantity;
  storageClassName: string | undefined;
  storageClassExpandable: boolean | undefined;
  /** The CSI driver of the StorageClass (its provisioner), when the class exists. */
  driver?: string;
  /** The live StatefulSet's template must be rewritten to the desired size. */
  templateNeedsUpdate: boolean;
  /** Names of the PVCs (ordinal < replicas) whose request differs from the desired size, or their class from Git's. */
  pvcsToPatch: string[];
  /** The volumeAttributesClassName Git asks for: the PVCs are done when their volumes have it (KEP-3751). */
  volumeAttributesClassName?: string;
  /** Set when the template's volumeAttributesClassName, or a replica PVC's, differs from Git's. */
  volumeAttributesClass?: ClassChange;
  /** What this API server will do that another version would not (said, not blocking: the dry run decides). */
  serverNotes?: string[];
  /** The PVCs of the replicas that count (ordinal < replicas), by ordinal; missing ones are absent. */
  pvcs: LivePvc[];
  quotaChecks: QuotaCheck[];
  reasons: BlockReason[];
  /** What the change adds a month, when the target has prices (domain/volume-cost.ts). */
  cost?: VolumeCost;
  /**
   * The template is raised to a size every replica's volume already has (committedBytes): only the template changes,
   * nothing grows and nothing is added to the bill (a write-back merged after an autoscaler grew the volumes).
   */
  catchesUp?: true;
  /** The live template's size, left as it lives for the write-back that proposes it (write-back-hold.ts). */
  heldForWriteBack?: string;
  /** Volumes within their CSI driver's modification window (modification-windows.ts): a change to them waits. */
  modificationWindows?: VolumeWindow[];
}

export type StatefulSetOutcome = 'planned' | 'missing-in-cluster' | 'namespace-not-allowed';

export interface StatefulSetPlan {
  namespace: string;
  name: string;
  desired: DesiredStatefulSet;
  live: LiveStatefulSet | undefined;
  outcome: StatefulSetOutcome;
  templates: TemplatePlan[];
  /** An operator writes this set (declared on its size source): its PVCs are grown, the set itself is never written. */
  templateOwner?: ControllerOwner;
}

export interface PlanOptions {
  /** Namespace allowlist; `*` allows every namespace but `stateNamespace` (engine/plan/allowed-namespaces.ts). */
  allowedNamespaces: readonly string[];
  /** The target's state namespace (its Lease and recreation records): never a workload namespace. */
  stateNamespace?: string;
  /** Server-side dry-run rejections of PVC patches, keyed `namespace/pvcName`, worded as the API server words them. */
  dryRunRejections?: ReadonlyMap<string, string>;
  /** Set by planTarget: the server and its VolumeAttributesClasses, for the class checks. */
  snapshot?: ClusterSnapshot;
  /** The target's size limits (a size source may override them); the default growth factor applies without. */
  guardrails?: GuardrailsConfig;
  /** Price per GiB-month per StorageClass: the cost of each change. */
  prices?: PriceConfig;
  /** The caller's clock: a driver's maximum remembered longer ago is forgotten (remembered-maximum.ts); none forgets nothing. */
  now?: Date;
  /** Per driver, the maximum it stated (plan-driver-maximum.ts `knownMaxima`), when the caller already has them. */
  driverMaxima?: ReadonlyMap<string, RememberedMaximum>;
}

/**
 * One volume within its CSI driver's window (modification-windows.ts marks them on the plan): a change to it waits,
 * until `until` when it used the driver's `limit.count` modifications within the window (`modifiedAt`, oldest first,
 * ISO), or until a modification under way completes, a time nobody knows beforehand.
 */
export type VolumeWindow =
  | { claim: string; driver: string; limit: ModificationLimit; reason: 'limit'; modifiedAt: string[]; until: string }
  | { claim: string; driver: string; limit: ModificationLimit; reason: 'under-way'; since?: string };
