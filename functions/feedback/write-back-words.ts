// The blocked "decrease" and its way out: when the volumes were grown outside Git, Git's smaller size is blocked on
// every pass (KEP-1790 lowers a request only to a value strictly above the capacity); the line that says so links the
// write-back pull request that sets Git to the live size. Shared by the progress comment, the check, plan's output and
// the pass report. Pure.
import type { TemplateReport } from '../engine/report/pass-report.ts';
import { escapeMarkdown } from './escape-markdown.ts';

const lead = 'the volumes were grown outside Git: a write-back pull request sets Git to their size';

/**
 * A live template grown outside Git, held for its write-back (engine/plan/write-back-hold.ts), in plain text: `the live
 * template asks for 40Gi, more than Git's 30Gi: held, not shrunk back, while write-back pull request <url> proposes it
 * (...)`; undefined for a template not held.
 */
export function heldWords(template: Pick<TemplateReport, 'heldForWriteBack' | 'desiredSize'>, url: string | undefined): string | undefined {
  if (template.heldForWriteBack === undefined) return undefined;
  return `the live template asks for ${template.heldForWriteBack}, more than Git's ${template.desiredSize}: held, not shrunk back, while `
    + `${url === undefined ? 'a write-back pull request' : `write-back pull request ${url}`} proposes it (merged, Git says it; closed unmerged, Git's size is applied)`;
}

/** Whether reason `index` of a template is the blocked "decrease" (Git below a volume's capacity). */
function isDecrease(template: Pick<TemplateReport, 'reasonCodes'>, index: number): boolean {
  return template.reasonCodes?.[index] === 'below-capacity';
}

/** A template's block reasons, each as `say` puts it, the blocked "decrease" followed by the write-back link. */
function reasonsWith(template: Pick<TemplateReport, 'reasons' | 'reasonCodes'>, writeBack: string | undefined, say: (text: string) => string): string[] {
  const link = writeBack === undefined ? undefined : `${say(lead)}: ${writeBack}`;
  const reasons = template.reasons.map((reason, index) => (link !== undefined && isDecrease(template, index) ? `${say(`${reason};`)} ${link}` : say(reason)));
  const linked = template.reasons.some((_, index) => isDecrease(template, index));
  return link !== undefined && !linked ? [...reasons, link] : reasons;
}

/** Plain text (plan and reconcile in a terminal). */
export function reasonsWithWriteBack(template: Pick<TemplateReport, 'reasons' | 'reasonCodes'>, writeBack: string | undefined): string[] {
  return reasonsWith(template, writeBack, (text) => text);
}

/** Markdown (the progress comment, the check): the URL left as GitHub links it. */
export function reasonLines(template: Pick<TemplateReport, 'reasons' | 'reasonCodes'>, writeBack: string | undefined): string[] {
  return reasonsWith(template, writeBack, escapeMarkdown);
}
