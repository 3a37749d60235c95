// The plan: for each StatefulSet in Git and each of its volumeClaimTemplates, what a pass would do and why not.
// Pure over plain data; the KEP-0661 validation section and the KEP-1790 "only above capacity" rule live here.
import type { DesiredStatefulSet, DesiredTemplate } from '../domain/desired-state.ts';
import type {
  ClusterSnapshot, ControllerOwner, LivePvc, LiveStatefulSet, LiveStorageClass, LiveTemplate, NamespaceSnapshot,
} from '../domain/live-state.ts';
import { compareQuantities, formatBytesLike, type Quantity } from '../domain/quantity.ts';
import type { GuardrailsConfig, PriceConfig } from '../domain/config.ts';
import { costOfGrowth, growthOfReplicas, type VolumeCost } from '../domain/volume-cost.ts';
import { ownershipOf, type OwnershipCode } from './controller-owner.ts';
import { guardrailReasons, type GuardrailCode } from './guardrails.ts';
import { describeDifference, diffTemplates } from './template-diff.ts';
import { lowerRequestNote } from '../domain/server-capabilities.ts';
import { mapsClass } from '../domain/size-sources.ts';
import {
  classBlockReasons, classChangeOf, classQuotaChecks, pvcNeedsClass, wantedClass, type ClassBlockCode, type ClassChange,
} from './plan-volume-attributes.ts';

export type BlockCode =
  | 'namespace-not-allowed'
  | 'template-not-in-cluster'
  | 'template-changed'
  | 'template-list-changed'
  | 'storage-class-missing'
  | 'storage-class-not-expandable'
  | 'below-capacity'
  | 'quota-exceeded'
  | 'dry-run-rejected'
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
  /** Namespace allowlist; `*` allows every namespace. */
  allowedNamespaces: readonly string[];
  /** Server-side dry-run rejections of PVC patches, keyed `namespace/pvcName`, worded as the API server words them. */
  dryRunRejections?: ReadonlyMap<string, string>;
  /** Set by planTarget: the server and its VolumeAttributesClasses, for the class checks. */
  snapshot?: ClusterSnapshot;
  /** The target's size limits (a size source may override them); the default growth factor applies without. */
  guardrails?: GuardrailsConfig;
  /** Price per GiB-month per StorageClass: the cost of each change. */
  prices?: PriceConfig;
}

const emptySnapshot: ClusterSnapshot = { namespaces: new Map(), storageClasses: [] };

export function isNamespaceAllowed(namespace: string, allowed: readonly string[]): boolean {
  return allowed.includes('*') || allowed.includes(namespace);
}

export function pvcName(templateName: string, statefulSetName: string, ordinal: number): string {
  return `${templateName}-${statefulSetName}-${ordinal}`;
}

export function pvcKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function planTarget(
  desired: readonly DesiredStatefulSet[], snapshot: ClusterSnapshot, options: PlanOptions,
): StatefulSetPlan[] {
  const plans = desired.map((sts) => planStatefulSet(sts, snapshot, { ...options, snapshot }));
  for (const plan of plans) applyGuards(plan, options);
  applyQuotaHeadroom(plans, snapshot);
  return plans;
}

/** Who writes the live set, then the size and cost limits (controller-owner.ts, guardrails.ts): each blocks like any other reason. */
function applyGuards(sts: StatefulSetPlan, options: PlanOptions): void {
  const live = sts.live;
  if (sts.outcome !== 'planned' || !live) return;
  const ownership = ownershipOf(live, sts.desired.sizedBy);
  if (ownership.kind === 'operator') sts.templateOwner = ownership.owner;
  for (const template of sts.templates) {
    if (ownership.kind === 'operator' && template.templateNeedsUpdate) {
      template.templateNeedsUpdate = false; // the operator's to write
      if (template.action === 'resize' && template.pvcsToPatch.length === 0) template.action = 'unchanged';
    }
    if (!template.templateNeedsUpdate && template.pvcsToPatch.length === 0) continue;
    template.cost = costOfGrowth(growthOfReplicas(template.to.bytes, template.from?.bytes, live.replicas, template.pvcs), template.storageClassName, options.prices);
    const change = {
      statefulSet: `${sts.namespace}/${sts.name}`, templateName: template.templateName, from: currentSize(template), to: template.to,
      location: template.desired.storageLocation, cost: template.cost, sizeSource: sts.desired.sizedBy?.find((s) => s.template === template.templateName && !mapsClass(s)),
    };
    const reasons: BlockReason[] = ownership.kind === 'blocked' ? [{ code: ownership.code, message: ownership.message }] : [];
    template.reasons.push(...reasons, ...guardrailReasons(change, options.guardrails));
    if (template.reasons.length > 0) template.action = 'blocked';
  }
}

function planStatefulSet(sts: DesiredStatefulSet, snapshot: ClusterSnapshot, options: PlanOptions): StatefulSetPlan {
  const base = { namespace: sts.namespace, name: sts.name, desired: sts };
  if (!isNamespaceAllowed(sts.namespace, options.allowedNamespaces)) {
    const reason: BlockReason = {
      code: 'namespace-not-allowed',
      message: `namespace ${sts.namespace} is not in this target's allowlist (${options.allowedNamespaces.join(', ')})`,
    };
    return {
      ...base, live: undefined, outcome: 'namespace-not-allowed',
      templates: sts.templates.map((t) => blockedWithoutLive(t, [reason])),
    };
  }
  const namespace = snapshot.namespaces.get(sts.namespace);
  const live = namespace?.statefulSets.find((s) => s.name === sts.name && !s.deleting)
    ?? namespace?.statefulSets.find((s) => s.name === sts.name);
  if (!namespace || !live) return { ...base, live: undefined, outcome: 'missing-in-cluster', templates: [] };
  const templates = sts.templates.map((t) => planTemplate(t, live, namespace, snapshot.storageClasses, options, sts.sizedBy !== undefined));
  // A set sized by size sources names only its mapped templates; the others stay as they live.
  const listChange = sts.sizedBy ? undefined : templateListChange(sts, live);
  if (listChange) {
    // The set can never be applied as written: resizing the templates that do match would recreate it for nothing.
    for (const plan of templates) {
      plan.action = 'blocked';
      plan.templateNeedsUpdate = false;
      plan.pvcsToPatch = [];
      plan.reasons.push({ code: 'template-list-changed', message: listChange });
    }
  }
  return { ...base, live, outcome: 'planned', templates };
}

/** The size a change grows from: the largest of the live template's and its PVCs' requests and capacities. */
function currentSize(template: TemplatePlan): Quantity | undefined {
  const sizes = [template.from, ...template.pvcs.flatMap((p) => [p.request, p.capacity])].filter((q): q is Quantity => q !== undefined);
  return sizes.reduce<Quantity | undefined>((largest, size) => (largest === undefined || size.bytes > largest.bytes ? size : largest), undefined);
}

/** Why the template list in Git cannot be applied to the live set (templates added, removed or renamed), if it cannot. */
function templateListChange(sts: DesiredStatefulSet, live: LiveStatefulSet): string | undefined {
  const desired = sts.templates.map((t) => t.name);
  const current = live.templates.map((t) => t.name);
  const added = desired.filter((name) => !current.includes(name));
  const removed = current.filter((name) => !desired.includes(name));
  if (added.length === 0 && removed.length === 0) return undefined;
  const parts = [...(added.length > 0 ? [`added ${added.join(', ')}`] : []), ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : [])];
  return `the volumeClaimTemplates of ${live.namespace}/${live.name} in Git differ from the live list (${parts.join('; ')}); `
    + 'Kubernetes cannot add or remove templates, so no template of this StatefulSet is resized until Git lists the live ones';
}

function blockedWithoutLive(desired: DesiredTemplate, reasons: BlockReason[]): TemplatePlan {
  return {
    templateName: desired.name, desired, live: undefined, action: 'blocked', from: undefined, to: desired.storage,
    storageClassName: desired.storageClassName, storageClassExpandable: undefined, templateNeedsUpdate: false,
    pvcsToPatch: [], pvcs: [], quotaChecks: [], reasons,
  };
}

function planTemplate(
  desired: DesiredTemplate, live: LiveStatefulSet, namespace: NamespaceSnapshot,
  storageClasses: readonly LiveStorageClass[], options: PlanOptions, sizedBy = false,
): TemplatePlan {
  const liveTemplate = live.templates.find((t) => t.name === desired.name);
  if (!liveTemplate && sizedBy) {
    return blockedWithoutLive(desired, [{
      code: 'template-not-in-cluster',
      message: `the size source ${desired.storageLocation.path}:${desired.storageLocation.line} names volumeClaimTemplate ${desired.name}, which the live StatefulSet `
        + `${live.namespace}/${live.name} does not have (it has ${live.templates.map((t) => t.name).join(', ') || 'none'}); fix the mapping's template`,
    }]);
  }
  if (!liveTemplate) {
    return blockedWithoutLive(desired, [{
      code: 'template-not-in-cluster',
      message: `volumeClaimTemplate ${desired.name} is not in the live StatefulSet ${live.namespace}/${live.name}; `
        + 'templates cannot be added or renamed, only their storage request can change',
    }]);
  }
  const pvcs = replicaPvcs(desired.name, live, namespace);
  const needsSize = (p: LivePvc): boolean => !p.request || compareQuantities(p.request, desired.storage) !== 0;
  const wanted = wantedClass(desired, liveTemplate, sizedBy);
  const pvcsToPatch = pvcs.filter((p) => needsSize(p) || pvcNeedsClass(p, wanted)).map((p) => p.name);
  const classChange = classChangeOf(liveTemplate, wanted, pvcs);
  const templateNeedsUpdate = !liveTemplate.storage || compareQuantities(liveTemplate.storage, desired.storage) !== 0
    || (classChange !== undefined && classChange.from !== classChange.to);
  const className = desired.storageClassName ?? liveTemplate.storageClassName ?? storageClasses.find((c) => c.isDefault)?.name;
  const storageClass = className === undefined ? undefined : storageClasses.find((c) => c.name === className);
  const plan: TemplatePlan = {
    templateName: desired.name, desired, live: liveTemplate, action: 'unchanged', from: liveTemplate.storage,
    to: desired.storage, storageClassName: className, storageClassExpandable: storageClass?.allowVolumeExpansion,
    templateNeedsUpdate, pvcsToPatch, pvcs, quotaChecks: [], reasons: [],
    ...(wanted !== undefined ? { volumeAttributesClassName: wanted } : {}),
    ...(classChange ? { volumeAttributesClass: classChange } : {}),
  };

  const differences = diffTemplates(liveTemplate.templateWithoutStorage, desired.templateWithoutStorage);
  if (differences.length > 0) {
    plan.reasons.push({
      code: 'template-changed',
      message: `volumeClaimTemplate ${desired.name} changes more than its storage request, which Kubernetes keeps `
        + `immutable: ${differences.map(describeDifference).join('; ')}`,
    });
  }
  if (!templateNeedsUpdate && pvcsToPatch.length === 0) {
    plan.action = plan.reasons.length > 0 ? 'blocked' : 'unchanged';
    return plan;
  }

  // PVCs patched for their class alone keep their size: the size rules below are not theirs.
  const sizePatches = pvcs.filter((p) => pvcsToPatch.includes(p.name) && needsSize(p));
  if (className === undefined) {
    plan.reasons.push({ code: 'storage-class-missing', message: `volumeClaimTemplate ${desired.name} names no StorageClass and the cluster has no default class` });
  } else if (!storageClass) {
    plan.reasons.push({ code: 'storage-class-missing', message: `StorageClass ${className} does not exist in the cluster` });
  } else if (!storageClass.allowVolumeExpansion && sizePatches.length > 0) {
    plan.reasons.push({
      code: 'storage-class-not-expandable',
      message: `StorageClass ${className} does not allow volume expansion (allowVolumeExpansion is not true)`,
    });
  }
  const atOrAboveTarget = sizePatches.filter((p) => p.capacity && compareQuantities(desired.storage, p.capacity) <= 0);
  if (atOrAboveTarget.length > 0) {
    plan.reasons.push({
      code: 'below-capacity',
      message: `${desired.storageText} is not above the current capacity of `
        + atOrAboveTarget.map((p) => `${p.name} (${p.capacity ? formatBytesLike(p.capacity.bytes, desired.storage) : '?'})`).join(', ')
        + '; a request can only be lowered to a value strictly above status.capacity (KEP-1790)',
    });
  }
  if (classChange) plan.reasons.push(...classBlockReasons({ templateName: desired.name, change: classChange, storageClass, snapshot: options.snapshot ?? emptySnapshot }));
  if (wanted !== undefined && (classChange || sizePatches.length > 0)) {
    const { checks, reasons } = classQuotaChecks({
      quotas: namespace.quotas, namespacePvcs: namespace.pvcs, templatePvcs: pvcs, to: wanted, size: desired.storage, usageOf: quotaUsageOf,
    });
    plan.quotaChecks.push(...checks);
    plan.reasons.push(...reasons.map((message) => ({ code: 'quota-exceeded' as const, message })));
  }
  const lowered = sizePatches.filter((p) => p.request && compareQuantities(desired.storage, p.request) < 0).map((p) => p.name);
  const loweringNote = options.snapshot?.server && lowered.length > 0 ? lowerRequestNote(options.snapshot.server, lowered) : undefined;
  if (loweringNote) plan.serverNotes = [loweringNote];
  for (const name of pvcsToPatch) {
    const rejection = options.dryRunRejections?.get(pvcKey(live.namespace, name));
    if (rejection !== undefined) plan.reasons.push({ code: 'dry-run-rejected', message: `dry run of the patch to ${name} was rejected: ${rejection}` });
  }
  plan.action = plan.reasons.length > 0 ? 'blocked' : 'resize';
  return plan;
}

/** PVCs of the replicas that count: ordinals below `spec.replicas` (leftovers of scaled-down replicas are ignored). */
function replicaPvcs(templateName: string, live: LiveStatefulSet, namespace: NamespaceSnapshot): LivePvc[] {
  const result: LivePvc[] = [];
  for (let ordinal = 0; ordinal < live.replicas; ordinal++) {
    const found = namespace.pvcs.find((p) => p.name === pvcName(templateName, live.name, ordinal));
    if (found) result.push(found);
  }
  return result;
}

/** What quota counts for a PVC: max(spec request, allocatedResources) (KEP-1790). */
export function quotaUsageOf(pvc: LivePvc): bigint {
  const request = pvc.request?.bytes ?? 0n;
  const allocated = pvc.allocated?.bytes ?? 0n;
  return request > allocated ? request : allocated;
}

const classQuotaSuffix = '.storageclass.storage.k8s.io/requests.storage';

/**
 * Blocks resizes whose growth does not fit in the ResourceQuota headroom. Resizes in the same namespace share it,
 * so they are admitted in plan order and each one's growth counts against the next.
 */
function applyQuotaHeadroom(plans: StatefulSetPlan[], snapshot: ClusterSnapshot): void {
  const grown = new Map<string, bigint>(); // `namespace|resource` -> growth already admitted this pass
  for (const sts of plans) {
    const namespace = snapshot.namespaces.get(sts.namespace);
    if (!namespace || namespace.quotas.length === 0) continue;
    for (const template of sts.templates) {
      if (template.action !== 'resize') continue;
      const growth = template.pvcs
        .filter((p) => template.pvcsToPatch.includes(p.name))
        .reduce((sum, p) => sum + maxBig(0n, template.to.bytes - quotaUsageOf(p)), 0n);
      if (growth === 0n) continue;
      for (const quota of namespace.quotas) {
        if (quota.volumeAttributesClasses) continue; // counts claims of its classes only: plan-volume-attributes.ts
        for (const [resource, limit] of Object.entries(quota.hard)) {
          const className = resource.endsWith(classQuotaSuffix) ? resource.slice(0, -classQuotaSuffix.length) : undefined;
          if (resource !== 'requests.storage' && className === undefined) continue;
          if (className !== undefined && className !== template.storageClassName) continue;
          const counted = namespace.pvcs.filter((p) => className === undefined || p.storageClassName === className);
          const key = `${sts.namespace}|${quota.name}|${resource}`;
          const usedBefore = counted.reduce((sum, p) => sum + quotaUsageOf(p), 0n) + (grown.get(key) ?? 0n);
          template.quotaChecks.push({ quotaName: quota.name, resource, limit: limit.bytes, usedBefore, growth });
          if (usedBefore + growth > limit.bytes) {
            const like = template.to;
            template.reasons.push({
              code: 'quota-exceeded',
              message: `growing needs ${formatBytesLike(growth, like)} more ${resource} but ResourceQuota ${quota.name} has `
                + `${formatBytesLike(maxBig(0n, limit.bytes - usedBefore), like)} left (used ${formatBytesLike(usedBefore, like)} `
                + `of ${formatBytesLike(limit.bytes, like)}, counting max(request, allocatedResources))`,
            });
            template.action = 'blocked';
          }
        }
      }
      if (template.action === 'resize') {
        for (const check of template.quotaChecks) {
          const key = `${sts.namespace}|${check.quotaName}|${check.resource}`;
          grown.set(key, (grown.get(key) ?? 0n) + growth);
        }
      }
    }
  }
}

function maxBig(a: bigint, b: bigint): bigint {
  return a > b ? a : b;
}
