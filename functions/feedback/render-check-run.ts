// A plan as a check: the plan table as its summary, and an annotation on the storage line (the class's, for a class
// change alone) of each template that changes (failure for blocked, with the reasons; notice for a planned resize,
// from -> to) and on each located error.
// Annotations are plain text, shown on the line in "Files changed" as written: what they quote is made printable, a
// reason to a line. Pure.
import type { LocatedError } from '../domain/desired-state.ts';
import type { StatefulSetReport } from '../engine/report/pass-report.ts';
import type { CheckAnnotation, CommitCheck } from '../engine/ports.ts';
import { changeLocation } from './change-location.ts';
import { willChange } from './change-words.ts';
import { windowWarning, type PlanSummary } from './render-plan-comment.ts';
import { requestChangeWords, sizeChangeWords, volumesGrowFrom } from './size-change-words.ts';
import { change, count, monthly, showSize } from '../domain/spelling.ts';
import { printable } from '../domain/printable.ts';
import { templateKey } from '../proposals/lifecycle/identity.ts';
import { reasonsWithWriteBack } from './write-back-words.ts';

export function planAnnotations(statefulSets: readonly StatefulSetReport[], errors: readonly LocatedError[], writeBackLinks?: ReadonlyMap<string, string>): CheckAnnotation[] {
  const annotations: CheckAnnotation[] = [];
  for (const sts of statefulSets) {
    for (const template of sts.templates) {
      const { path, line } = changeLocation(template);
      const name = printable(`${sts.namespace}/${sts.name} ${template.templateName}`);
      if (template.action === 'blocked') {
        const writeBack = writeBackLinks?.get(templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName }));
        const reasons = reasonsWithWriteBack(template, writeBack);
        annotations.push({ path, line, level: 'failure', title: `${name}: blocked`, message: reasons.length > 0 ? reasons.map(printable).join('\n') : 'blocked' });
      } else if (template.action === 'resize') {
        annotations.push({ path, line, level: 'notice', ...resizeNotice(template, name) });
        const windows = template.modificationWindows ?? [];
        if (windows.length > 0) annotations.push({ path, line, level: 'warning', title: `${name}: waits for the driver's window`, message: printable(windowWarning(windows)) });
      }
    }
  }
  for (const error of errors) annotations.push({ path: error.path, line: error.line, level: 'failure', title: 'not a valid size or manifest', message: printable(error.message) });
  return annotations;
}

/** The notice of a planned change: what changes on how many PVCs, in which class, at what cost; a template catching up, that. */
function resizeNotice(template: StatefulSetReport['templates'][number], name: string): { title: string; message: string } {
  if (template.catchesUp === true) return { title: `${name}: will update the template`, message: printable(sizeChangeWords(template, 'github')) };
  const klass = template.volumeAttributesClass;
  const classWords = klass ? `VolumeAttributesClass ${change(klass.from ?? '(none)', klass.to ?? '(none)', 'github')}` : undefined;
  const sizeWords = change(volumesGrowFrom(template) ?? '?', template.desiredSize, 'github');
  const what = template.change === 'class' && classWords ? classWords : template.change === 'size-and-class' && classWords ? `${sizeWords} and ${classWords}` : sizeWords;
  return {
    title: `${name}: ${willChange(template.change)}`,
    message: printable(`${what} on ${count(template.pvcs.length, 'PVC')}`
      + `${template.storageClassName ? ` (StorageClass ${template.storageClassName})` : ''}${costWords(template)}${requestWords(template)}`),
  };
}

/** `, +7.50 USD a month`: what the change adds, when prices are configured. */
function costWords(template: StatefulSetReport['templates'][number]): string {
  const cost = template.cost;
  if (!cost) return '';
  return cost.monthlyIncrease === undefined ? `, ${showSize(cost.growth)} more, no price for the class` : `, ${monthly(cost.monthlyIncrease, cost.currency)}`;
}

/** `; request lowered from 100Gi` when the volumes grow from their capacity, not from the live request. */
function requestWords(template: StatefulSetReport['templates'][number]): string {
  const words = requestChangeWords(template);
  return words ? `; ${words}` : '';
}

/** The check for a plan: the same verdict as the status, its whole headline as the title (a status cuts it), the table as its summary. */
export function planCheck(input: {
  context: string; plan: PlanSummary; statefulSets: readonly StatefulSetReport[]; errors: readonly LocatedError[]; targetUrl?: string | undefined;
  /** Template key -> its open write-back pull request, linked on the blocked "decrease". */
  writeBackLinks?: ReadonlyMap<string, string> | undefined;
}): CommitCheck {
  const { context, plan } = input;
  return {
    context, state: plan.state, description: plan.description, title: plan.headline, summary: plan.markdown,
    annotations: planAnnotations(input.statefulSets, input.errors, input.writeBackLinks), ...(input.targetUrl ? { targetUrl: input.targetUrl } : {}),
  };
}

/** A verdict with nothing more to show (a fork's pull request): no table, no annotations, nothing of the cluster. */
export function verdictCheck(context: string, state: 'success' | 'failure' | 'error', description: string): CommitCheck {
  return { context, state, description, title: description, summary: description, annotations: [] };
}
