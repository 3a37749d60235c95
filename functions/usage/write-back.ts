// The write-back decision for one template (pure): when the live template or a replica's PVC is larger than Git (grown
// by hand, by an autoscaler that patches PVCs, by a recovery done outside the tool), Git should say the live size, the
// largest found, since volumes never shrink. What counts:
// - a PVC's request above Git that Git can no longer reach (KEP-1790 lowers a request only strictly above the
//   capacity: Git at or below it is the "decrease" a plan blocks for ever); a request the driver refused for good never
//   counts (it is never provisioned), nor one above Git that Git may still lower (an expansion Git changed its mind on);
// - the live template's size above Git, unless a Git change put it there (the size the tool's status annotation says it
//   applied): Git lowering a template it grew, with its PVCs not grown yet, is Git's to do.
// A capacity above the request (a driver rounds up: 10G asked, 10Gi given) is evidence, not a size someone chose.
import { expansionFailedForGood, type LivePvc } from '../domain/live-state.ts';
import { sameSize, type Quantity } from '../domain/quantity.ts';
import type { LiveSizeFinding, WriteBackDecision } from '../domain/volume-usage.ts';
import { pvcName, type StatefulSetPlan, type TemplatePlan } from '../engine/plan/plan.ts';
import { readStatusAnnotation } from '../engine/report/template-status.ts';
import { templateRefOf } from './template-usage.ts';

/** The size the tool last applied to this template from Git (its status annotation, wherever the set keeps it). */
function appliedFromGit(sts: StatefulSetPlan, template: TemplatePlan): string | undefined {
  const live = sts.live;
  if (!live) return undefined;
  // A set its operator writes keeps the annotation on its first template's replica-0 PVC (engine/report/status-carrier.ts).
  const [first] = sts.templates;
  const annotations = live.controllerOwner === undefined ? live.annotations
    : first?.pvcs.find((p) => p.name === pvcName(first.templateName, live.name, 0))?.annotations ?? {};
  return readStatusAnnotation({ ...live, annotations }).find((s) => s.templateName === template.templateName)?.desiredSize;
}

/** Whether the live size is the one the tool applied from Git. */
function fromGit(applied: string | undefined, liveSize: Quantity): boolean {
  return applied !== undefined && sameSize(applied, liveSize.text);
}

/** A PVC whose request is above Git for good: not a refused size, and Git at or below its capacity (cannot be lowered to). */
function grownBeyondGit(pvc: LivePvc, git: Quantity): boolean {
  if (!pvc.request || pvc.request.bytes <= git.bytes) return false;
  if (expansionFailedForGood({ resizeStatus: pvc.resizeStatus, conditions: pvc.conditions })) return false;
  return pvc.capacity !== undefined && pvc.capacity.bytes >= git.bytes;
}

export function decideWriteBack(sts: StatefulSetPlan, template: TemplatePlan): WriteBackDecision | undefined {
  if (sts.outcome !== 'planned' || !sts.live || !template.live) return undefined;
  const git = template.to;
  const found: LiveSizeFinding[] = [];
  const liveSize = template.from;
  // The status annotation is read only for a live template above Git (most are not: no parse per template per pass).
  if (liveSize && liveSize.bytes > git.bytes && !fromGit(appliedFromGit(sts, template), liveSize)) {
    found.push({ where: 'template', name: template.templateName, size: liveSize.text });
  }
  for (const pvc of template.pvcs) {
    if (!grownBeyondGit(pvc, git) || !pvc.request) continue;
    found.push({ where: 'pvc', name: pvc.name, size: pvc.request.text, ...(pvc.capacity ? { capacity: pvc.capacity.text } : {}) });
  }
  if (found.length === 0) return undefined;
  const sizes: Quantity[] = [
    ...(found.some((f) => f.where === 'template') && liveSize ? [liveSize] : []),
    ...template.pvcs.filter((p) => found.some((f) => f.where === 'pvc' && f.name === p.name)).flatMap((p) => (p.request ? [p.request] : [])),
  ];
  const largest = sizes.reduce((a, b) => (b.bytes > a.bytes ? b : a));
  const where = found.map((f) => (f.where === 'template' ? `the live template asks for ${f.size}` : `${f.name} asks for ${f.size}${f.capacity !== undefined && !sameSize(f.capacity, f.size) ? ` (capacity ${f.capacity})` : ''}`));
  return {
    ...templateRefOf(sts, template), git: git.text, to: largest.text, found,
    sentence: `Git says ${git.text}, but the volumes were grown outside Git (${where.join('; ')}): propose ${largest.text}, the largest, since volumes never shrink`,
  };
}
