// A live template grown outside Git, held for its write-back (issue 36 item 3): when the target writes sizes back
// (`pullRequests.writeBack`) and Git is below a live template someone grew, the pass proposes the live size back into
// Git; shrinking the template to Git's size in the same pass would undo what it proposes. Such a template is held:
// not updated, not a failure, the set `waiting` until a person merges the write-back (Git then says the live size) or
// closes it unmerged (Git wins: the next pass applies Git as before). Which templates to hold is the caller's to say
// (proposals/write-back/write-back-holds.ts reads the write-back pull requests); this applies it to the plans. Pure.
import type { StatefulSetPlan, TemplatePlan } from './plan-types.ts';

export interface HeldTemplate {
  namespace: string;
  statefulSet: string;
  template: string;
}

/** Which of the plans' templates to hold for their write-back; read once per pass, after the plan is made. */
export type WriteBackHolds = (plans: readonly StatefulSetPlan[]) => Promise<readonly HeldTemplate[]>;

/** Whether the plan would lower the live template's size to Git's (a template grown outside Git, its PVCs not). */
export function shrinksLiveTemplate(template: TemplatePlan): boolean {
  return template.action === 'resize' && template.templateNeedsUpdate && template.from !== undefined && template.from.bytes > template.to.bytes;
}

/** Holds each named template that would shrink: its template is left as it lives; PVC patches Git asks for still go ahead. */
export function holdTemplates(plans: readonly StatefulSetPlan[], held: readonly HeldTemplate[]): void {
  for (const sts of plans) {
    for (const template of sts.templates) {
      if (!shrinksLiveTemplate(template) || !held.some((h) => h.namespace === sts.namespace && h.statefulSet === sts.name && h.template === template.templateName)) continue;
      template.templateNeedsUpdate = false;
      template.heldForWriteBack = template.from?.text ?? '?';
      if (template.pvcsToPatch.length === 0) {
        template.action = 'unchanged';
        delete template.cost;
      }
    }
  }
}
