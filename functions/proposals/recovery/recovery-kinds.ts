// The two kinds of recovery, as the proposals lifecycle sees them: when an open recovery is no longer needed (positive
// evidence only; a new value in Git only once it is reached or blocked, so that one recovery pull request per template
// follows failure after failure), and when one a person declined may come back (another failed or proposed value).
import { sameSize } from '../../domain/quantity.ts';
import type { PassReport, TemplateReport } from '../../engine/report/pass-report.ts';
import { templateKey } from '../lifecycle/identity.ts';
import { sameValues, type ProposalMark } from '../lifecycle/marker.ts';
import { templateInPass } from '../lifecycle/template-in-pass.ts';
import type { ProposalKind } from '../proposal.ts';

export const sizeRecovery: ProposalKind = {
  name: 'size-recovery',
  resolution: (report, open) => resolution(report, open, (template, failed) => {
    if (!sameSize(template.desiredSize, failed)) return settled(template) ? `the template changed in Git (now ${template.desiredSize}, was ${failed})` : undefined;
    if (template.finished) return `the expansion to ${template.desiredSize} completed`;
    return undefined; // still in flight without a terminal failure (e.g. retrying): keep the proposal open
  }),
  changedSinceDeclined: (declined, now) => !sameValues(declined, now),
  reproposedWhen: 'another size fails or another size is proposed',
};

export const classRecovery: ProposalKind = {
  name: 'class-recovery',
  resolution: (report, open) => resolution(report, open, (template, failed) => {
    if (template.desiredClass !== failed) return settled(template) ? `the class changed in Git (now ${template.desiredClass ?? 'none'}, was ${failed})` : undefined;
    if (template.finished) return `the modification to ${failed} completed`;
    return undefined;
  }),
  changedSinceDeclined: (declined, now) => !sameValues(declined, now),
  reproposedWhen: 'another class is refused or another class is proposed',
};

export const recoveryKinds: readonly ProposalKind[] = [sizeRecovery, classRecovery];

/**
 * Whether what Git asks now has come to an end: reached, or blocked before it began. Until then (patched, resizing,
 * retrying) an open recovery of what Git asked before is kept: should the new value fail too, the same pull request is
 * updated in place to recover it, rather than closed and another opened a pass later (issue 35 item 3).
 */
function settled(template: TemplateReport): boolean {
  return template.finished || template.action === 'blocked';
}

/**
 * Why a recovery PR is no longer needed, only on positive evidence: what the template in the pass says (`ofTemplate`:
 * done, or Git asks for something else), or a complete pass over manifests that all read cleanly no longer has the
 * template (lifecycle/template-in-pass.ts).
 */
function resolution(report: PassReport, open: ProposalMark, ofTemplate: (template: TemplateReport, failed: string) => string | undefined): string | undefined {
  const found = templateInPass(report, open.identity);
  if (found === 'gone') return `${templateKey(open.identity)} is no longer in Git`;
  return found === 'unknown' ? undefined : ofTemplate(found.template, open.values.from ?? '');
}
