// The last word on a change Git replaced before it was reached, on its commit's check and its pull request's comment:
// how it ended (recovered by the recovery pull request and converged; superseded by a later change, and where that
// stands), instead of the failure or the proposal they said while it was current. Pure.
import type { StatefulSetReport, TemplateReport } from '../engine/report/pass-report.ts';
import type { ReplacedChange } from '../engine/report/template-status.ts';
import { sameSize } from '../domain/quantity.ts';
import { printable } from '../domain/printable.ts';
import { changeKind, changeTitle, goingTo } from './change-words.ts';
import { codeBlock, codeSpan, escapeMarkdown, fitDescription } from './escape-markdown.ts';
import { fitComment } from './render-plan-comment.ts';
import { templateKey } from '../proposals/lifecycle/identity.ts';
import { failedOnClassOnly, progressState, recoveryLinkLine, type ProgressSummary } from './render-progress.ts';

/** A template's value Git replaced, and the template as the pass found it now. */
export interface EndedValue {
  template: TemplateReport;
  replaced: ReplacedChange;
}

/** What replaced it: the commit that introduced what Git asks now, its pull request, the templates it recovered. */
export interface Replacement {
  sha: string;
  pullRequest: number | undefined;
  /** Templates whose recovery pull request (this tool's) that pull request is. */
  recovered: ReadonlySet<string>;
}

export interface EndingSummary extends ProgressSummary {
  /** Nothing is left to do, but the replaced value was never reached: a check run concludes neutral. */
  neutral: boolean;
}

type Text = (text: string) => string;

/** `the resize to 100Gi failed for good`, `the class change to fast was not finished`. */
function whatEnded({ template, replaced }: EndedValue, text: Text): string {
  const onClass = sameSize(replaced.desiredSize, template.desiredSize) && replaced.desiredClass !== template.desiredClass;
  const what = onClass ? `the class change to ${text(replaced.desiredClass ?? 'none')}` : `the resize to ${text(replaced.desiredSize)}`;
  return `${what} ${replaced.failedForGood ? 'failed for good' : 'was not finished'}`;
}

/**
 * How it ended: `recovered by #12, converged at 50Gi`, `superseded by 1a2b3c4 (#15), converged at 80Gi`, or, while the
 * value Git asks now is not reached, where that stands (its own check says the rest).
 */
export function howItEnded(value: EndedValue, by: Replacement, text: Text = (t) => t): string {
  const { template } = value;
  const recovered = by.recovered.has(template.templateName) && by.pullRequest !== undefined;
  const at = goingTo(template, text);
  const later = by.pullRequest !== undefined ? `${by.sha.slice(0, 7)} (#${by.pullRequest})` : by.sha.slice(0, 7);
  if (template.finished) return recovered ? `recovered by #${by.pullRequest ?? ''}, converged at ${at}` : `superseded by ${later}, converged at ${at}`;
  const lead = recovered ? `recovery #${by.pullRequest ?? ''} merged (${at})` : `superseded by ${later} asking ${at}`;
  if (template.pvcs.some((p) => p.state === 'failed')) return `${lead}, which failed for good: see its check`;
  if (template.action === 'blocked') return `${lead}, which is blocked: see its check`;
  return `${lead}, in progress`;
}

/**
 * The check and comment of the commit that introduced the replaced values `ended` (all of one StatefulSet). Its state
 * follows the set now: pending while the value Git asks is on its way, failure while it fails or is blocked (a person
 * must still act, on the later change), and once it is reached a success that is no success of this change (neutral).
 */
export function renderEnding(input: {
  target: string; sts: StatefulSetReport; commitSha: string; ended: readonly EndedValue[]; by: Replacement;
  /** The recovery pull requests this pass kept open, per template key: each linked as the way forward. */
  recoveryLinks?: ReadonlyMap<string, string> | undefined;
  /** Template key -> its write-back pull request: a set grown outside Git since is no failure (render-progress.ts). */
  writeBackLinks?: ReadonlyMap<string, string> | undefined;
}): EndingSummary {
  const { target, sts, commitSha, ended, by } = input;
  const state = progressState(sts, input.writeBackLinks);
  const title = ended.map((e) => `${e.template.templateName}: ${howItEnded(e, by)} (${whatEnded(e, (t) => t)})`).join('; ');
  const icon = state === 'failure' ? '❌' : state === 'pending' ? '🔄' : '↩️';
  const lines = [`### ${icon} ${changeTitle(changeKind(ended.map((e) => e.template)))} of ${escapeMarkdown(`${sts.namespace}/${sts.name}`)} (${escapeMarkdown(target)})`, ''];
  lines.push(`Desired state from commit ${commitSha.slice(0, 7)}, since replaced in Git.`);
  for (const e of ended) {
    lines.push('', `${codeSpan(e.template.templateName)}: ${whatEnded(e, escapeMarkdown)}; ${howItEnded(e, by, escapeMarkdown)}.`);
    if (e.replaced.failedForGood && e.replaced.lastError !== undefined) lines.push('', 'The driver said then:', codeBlock(e.replaced.lastError));
    // The recovery pull request this pass kept open for the template is the way forward, whatever the value Git asks
    // now is doing: the lifecycle (proposals/recovery/recovery-kinds.ts) decided it is still needed, not this text.
    const link = input.recoveryLinks?.get(templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: e.template.templateName }));
    if (link !== undefined) lines.push('', recoveryLinkLine(failedOnClassOnly(e.template), link, e.template.atDriverMaximum?.volumes));
  }
  const followed = by.pullRequest !== undefined ? `#${by.pullRequest}` : `commit ${by.sha.slice(0, 7)}`;
  lines.push('', `<sub>The StatefulSet's progress is followed on ${followed}. Updated by sts-volume-gitops.</sub>`);
  return { state, neutral: state === 'success', description: fitDescription(title), title: printable(title), markdown: fitComment(lines) };
}
