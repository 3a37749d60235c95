// The limits applied to a plan after its templates are planned: who writes the live set (controller-owner.ts), then
// the size and cost guardrails (guardrails.ts). Apart from plan.ts, which applies it in order with the other rules.
import type { Quantity } from '../../domain/quantity.ts';
import { costOfGrowth, growthOfReplicas } from '../../domain/volume-cost.ts';
import { ownershipOf } from './controller-owner.ts';
import { guardrailReasons } from './guardrails.ts';
import type { BlockReason, PlanOptions, StatefulSetPlan, TemplatePlan } from './plan-types.ts';
import { mapsClass } from '../../domain/size-sources.ts';
import { changesSize } from '../report/template-status.ts';
import { aboveDriverMaximum } from './plan-driver-maximum.ts';
import type { RememberedMaximum } from '../volumes/remembered-maximum.ts';

/**
 * Who writes the live set, then the size and cost limits (controller-owner.ts, guardrails.ts), then the maximum the
 * template's driver stated (plan-driver-maximum.ts): each blocks like any other reason.
 */
export function applyGuards(sts: StatefulSetPlan, options: PlanOptions, maxima: ReadonlyMap<string, RememberedMaximum> = new Map()): void {
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
    // A class change alone adds no storage: it has no cost to show (a resize that adds nothing still says +0.00), nor
    // has a template catching up with its volumes. A template whose live size is unknown is measured as growing, as
    // the guardrails do.
    const growth = growthOfReplicas(template.to.bytes, template.from?.bytes, live.replicas, template.pvcs);
    if (catchesUp(template, growth)) template.catchesUp = true;
    else if (template.from === undefined || changesSize(template)) template.cost = costOfGrowth(growth, template.storageClassName, options.prices);
    const change = {
      from: currentSize(template), to: template.to, cost: template.cost,
      sizeSource: sts.desired.sizedBy?.find((s) => s.template === template.templateName && !mapsClass(s)),
    };
    const reasons: BlockReason[] = ownership.kind === 'blocked' ? [{ code: ownership.code, message: ownership.message }] : [];
    const driverMaximum = aboveDriverMaximum(template, maxima);
    template.reasons.push(...reasons, ...guardrailReasons(change, options.guardrails), ...(driverMaximum ? [driverMaximum] : []));
    if (template.reasons.length > 0) template.action = 'blocked';
  }
}

/** A template raised to what its volumes already have: no PVC to patch, no class to change, and no byte added. */
function catchesUp(template: TemplatePlan, growth: bigint): boolean {
  return template.from !== undefined && template.from.bytes < template.to.bytes && template.pvcs.length > 0 && template.pvcsToPatch.length === 0
    && template.volumeAttributesClass === undefined && growth === 0n;
}

/** The size a change grows from: the largest of the live template's and its PVCs' requests and capacities. */
export function currentSize(template: TemplatePlan): Quantity | undefined {
  const sizes = [template.from, ...template.pvcs.flatMap((p) => [p.request, p.capacity])].filter((q): q is Quantity => q !== undefined);
  return sizes.reduce<Quantity | undefined>((largest, size) => (largest === undefined || size.bytes > largest.bytes ? size : largest), undefined);
}
