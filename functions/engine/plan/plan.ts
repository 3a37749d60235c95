// The plan: for each StatefulSet in Git and each of its volumeClaimTemplates, what a pass would do and why not.
// Pure over plain data; the KEP-0661 validation section and the KEP-1790 "only above capacity" rule live here.
import type { DesiredStatefulSet, DesiredTemplate } from '../../domain/desired-state.ts';
import type {
  ClusterSnapshot, LivePvc, LiveStatefulSet, LiveStorageClass, NamespaceSnapshot,
} from '../../domain/live-state.ts';
import { compareQuantities, formatBytesLike, implausibleSize } from '../../domain/quantity.ts';
import { closestName } from '../../domain/similar-names.ts';
import { describeDifference, diffTemplates } from './template-diff.ts';
import { lowerRequestNote } from '../../domain/server-capabilities.ts';
import {
  classBlockReasons, classChangeOf, classQuotaChecks, pvcNeedsClass, wantedClass,
} from './plan-volume-attributes.ts';
import type { BlockReason, PlanOptions, StatefulSetPlan, TemplatePlan } from './plan-types.ts';
import { applyGuards } from './plan-guards.ts';
import { knownMaxima } from './plan-driver-maximum.ts';
import { keepsRefusedRequest } from '../volumes/at-driver-maximum.ts';
import { isNamespaceAllowed, namespaceNotAllowedReason } from './allowed-namespaces.ts';
import { applyQuotaHeadroom, quotaUsageOf } from './quota-headroom.ts';
import { mappedRefOf, missingStatefulSet, missingTemplate, mistakeSentence, type MappedRef } from '../desired/size-source-mistakes.ts';

export type {
  BlockCode, BlockReason, PlanOptions, QuotaCheck, StatefulSetOutcome, StatefulSetPlan, TemplateAction, TemplatePlan,
} from './plan-types.ts';
export { quotaUsageOf } from './quota-headroom.ts';

const emptySnapshot: ClusterSnapshot = { namespaces: new Map(), storageClasses: [] };

export function pvcName(templateName: string, statefulSetName: string, ordinal: number): string {
  return `${templateName}-${statefulSetName}-${ordinal}`;
}

export function pvcKey(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export function planTarget(
  desired: readonly DesiredStatefulSet[], snapshot: ClusterSnapshot, options: PlanOptions,
): StatefulSetPlan[] {
  // Each set and template against the cluster (below), then who writes the set and the guardrails (plan-guards.ts),
  // then the quota headroom the resizes still standing share (quota-headroom.ts).
  const plans = desired.map((sts) => planStatefulSet(sts, snapshot, { ...options, snapshot }));
  const maxima = options.driverMaxima ?? knownMaxima(snapshot, options.now);
  for (const plan of plans) applyGuards(plan, options, maxima);
  applyQuotaHeadroom(plans, snapshot);
  return plans;
}

function planStatefulSet(sts: DesiredStatefulSet, snapshot: ClusterSnapshot, options: PlanOptions): StatefulSetPlan {
  const base = { namespace: sts.namespace, name: sts.name, desired: sts };
  const scope = { allow: options.allowedNamespaces, state: options.stateNamespace };
  if (!isNamespaceAllowed(sts.namespace, scope)) {
    const reason: BlockReason = { code: 'namespace-not-allowed', message: namespaceNotAllowedReason(sts.namespace, scope) };
    return {
      ...base, live: undefined, outcome: 'namespace-not-allowed',
      templates: sts.templates.map((t) => blockedWithoutLive(t, [reason])),
    };
  }
  const namespace = snapshot.namespaces.get(sts.namespace);
  const live = namespace?.statefulSets.find((s) => s.name === sts.name && !s.deleting)
    ?? namespace?.statefulSets.find((s) => s.name === sts.name);
  if (!live && sts.sizedBy) {
    // A manifest's set may not be created yet; a mapping names a set the chart renders, so one not there is a mistake.
    const templates = sts.templates.map((t) => {
      const ref = mappedRefOf(sts, t);
      return blockedWithoutLive(t, ref ? [{ code: 'statefulset-not-in-cluster', message: mistakeSentence(missingStatefulSet(ref, namespace)) }] : []);
    });
    return { ...base, live: undefined, outcome: 'planned', templates };
  }
  if (!namespace || !live) return { ...base, live: undefined, outcome: 'missing-in-cluster', templates: [] };
  const templates = sts.templates.map((t) => planTemplate(t, live, namespace, snapshot.storageClasses, options, sts.sizedBy ? mappedRefOf(sts, t) : undefined));
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

/** Why the template list in Git cannot be applied to the live set (templates added, removed or renamed), if it cannot. */
function templateListChange(sts: DesiredStatefulSet, live: LiveStatefulSet): string | undefined {
  const desired = sts.templates.map((t) => t.name);
  const current = live.templates.map((t) => t.name);
  const added = desired.filter((name) => !current.includes(name));
  const removed = current.filter((name) => !desired.includes(name));
  if (added.length === 0 && removed.length === 0) return undefined;
  const parts = [...(added.length > 0 ? [`added ${added.join(', ')}`] : []), ...(removed.length > 0 ? [`removed ${removed.join(', ')}`] : [])];
  return `the volumeClaimTemplates in Git differ from the live list (${parts.join('; ')}); `
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
  storageClasses: readonly LiveStorageClass[], options: PlanOptions, mapping: MappedRef | undefined,
): TemplatePlan {
  const sizedBy = mapping !== undefined;
  const liveTemplate = live.templates.find((t) => t.name === desired.name);
  if (!liveTemplate && mapping) {
    return blockedWithoutLive(desired, [{ code: 'template-not-in-cluster', message: mistakeSentence(missingTemplate(mapping, live)) }]);
  }
  if (!liveTemplate) {
    return blockedWithoutLive(desired, [{
      code: 'template-not-in-cluster',
      message: 'the live StatefulSet has no such volumeClaimTemplate; templates cannot be added or renamed, only their storage request can change',
    }]);
  }
  const pvcs = replicaPvcs(desired.name, live, namespace);
  // A claim left asking for a refused size whose volume has Git's size is done: it cannot be lowered to its capacity.
  const needsSize = (p: LivePvc): boolean => (!p.request || compareQuantities(p.request, desired.storage) !== 0) && !keepsRefusedRequest(p, desired.storage);
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
    ...(storageClass?.provisioner !== undefined ? { driver: storageClass.provisioner } : {}), templateNeedsUpdate, pvcsToPatch, pvcs, quotaChecks: [], reasons: [],
    ...(wanted !== undefined ? { volumeAttributesClassName: wanted } : {}),
    ...(classChange ? { volumeAttributesClass: classChange } : {}),
  };

  const differences = diffTemplates(liveTemplate.templateWithoutStorage, desired.templateWithoutStorage);
  if (differences.length > 0) {
    plan.reasons.push({
      code: 'template-changed',
      message: 'the volumeClaimTemplate changes more than its storage request, which Kubernetes keeps '
        + `immutable: ${differences.map(describeDifference).join('; ')}`,
    });
  }
  if (!templateNeedsUpdate && pvcsToPatch.length === 0) {
    plan.action = plan.reasons.length > 0 ? 'blocked' : 'unchanged';
    return plan;
  }

  // A size without its unit (`storage: 20`: 20 bytes) is said as that, not measured against capacities and limits.
  const implausible = implausibleSize(desired.storage);
  if (implausible !== undefined) {
    plan.reasons.push({ code: 'implausible-size', message: implausible });
    plan.action = 'blocked';
    return plan;
  }

  // PVCs patched for their class alone keep their size: the size rules below are not theirs.
  const sizePatches = pvcs.filter((p) => pvcsToPatch.includes(p.name) && needsSize(p));
  if (className === undefined) {
    plan.reasons.push({ code: 'storage-class-missing', message: 'the volumeClaimTemplate names no StorageClass and the cluster has no default class' });
  } else if (!storageClass) {
    const meant = closestName(className, storageClasses.map((c) => c.name));
    plan.reasons.push({ code: 'storage-class-missing', message: `StorageClass ${className} does not exist in the cluster${meant === undefined ? '' : `; did you mean ${meant}?`}` });
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
  if (classChange) plan.reasons.push(...classBlockReasons({ change: classChange, storageClass, snapshot: options.snapshot ?? emptySnapshot }));
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
