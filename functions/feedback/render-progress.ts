// After merge: the commit status and the progress comment for one StatefulSet, per template and per PVC. Pure.
import type { StatefulSetReport, TemplateReport } from '../engine/run-pass.ts';
import type { WriteOutcome } from '../engine/ports.ts';
import { stalledWords } from '../engine/volumes/node-expansion.ts';
import { templateKey, type ProposalKindName } from '../proposals/lifecycle/identity.ts';
import { openProposalsLine } from '../proposals/outcome-line.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';
import { changeKind, changeTitle, changeVerb, goingTo, replicasAt } from './change-words.ts';
import { codeBlock, codeSpan, escapeMarkdown, fitDescription } from './escape-markdown.ts';
import { reasonLines } from './write-back-words.ts';
import { failureQuotes, failureSince } from './failure-quotes.ts';
import { doneCount, isHeldByBlock, outcomeWords, pvcWords } from './glossary.ts';
import { fitComment } from './render-plan-comment.ts';
import { atMaximumAdvice } from './at-maximum-texts.ts';
import { printable } from '../domain/printable.ts';
import { reportedQuantity } from '../domain/quantity.ts';

export interface ProgressSummary {
  state: 'pending' | 'success' | 'failure';
  /** The commit status's description (cut to 140 characters). */
  description: string;
  /** The check run's title: the same, whole (plain text, printable). */
  title: string;
  /** Where the check links, when not the comment: the write-back pull request of volumes grown outside Git since. */
  link?: string;
  markdown: string;
}

/** What was written for one StatefulSet's progress (or a replaced change's ending) in a pass. */
export interface ProgressReport {
  statefulSet: string;
  commitSha: string;
  pullRequest: number | undefined;
  state: 'pending' | 'success' | 'failure';
  description: string;
  markdown: string;
  status: WriteOutcome;
  comment: WriteOutcome | undefined;
}

/** The icon before each PVC state's words (glossary.ts) in the progress table. */
const stateIcons: Record<TemplateReport['pvcs'][number]['state'], string> = {
  'missing': '⏳', 'waiting-for-pod': '⏳', 'to-patch': '⏳', 'patched': '⏳', 'resizing-controller': '🔄', 'waiting-for-node': '⏳',
  'resizing-node': '🔄', 'stalled-on-node': '⚠️', 'retrying': '🔁', 'waiting-for-window': '⏳', 'in-progress-other-size': '⏸️', 'modifying': '🔄', 'class-pending': '⏳',
  'done': '✅', 'failed': '❌',
};

/** A PVC a blocked change would patch is held (⏸️), not waiting for this tool (⏳). */
function pvcIcon(sts: StatefulSetReport, template: TemplateReport, pvc: TemplateReport['pvcs'][number]): string {
  return pvc.state === 'to-patch' && isHeldByBlock(sts, template) ? '⏸️' : stateIcons[pvc.state];
}

/** Blocked, failed or stalled (a volume waits for its node longer than `stalledAfter`): a person must act. */
export function progressState(sts: StatefulSetReport, writeBackLinks?: ReadonlyMap<string, string>): ProgressSummary['state'] {
  return stateOf(sts, grownOutsideGit(sts, writeBackLinks));
}

/** progressState, the templates grown outside Git already found. */
function stateOf(sts: StatefulSetReport, grown: readonly GrownOutsideGit[] | undefined): ProgressSummary['state'] {
  if (grown) return grown.every((g) => g.reached) && sts.templates.every((t) => t.action === 'blocked' || t.finished) ? 'success' : 'pending';
  if (sts.outcome === 'blocked' || sts.outcome === 'failed' || sts.outcome === 'stalled') return 'failure';
  return sts.templates.every((t) => t.finished) ? 'success' : 'pending';
}

/** A template blocked only because its volumes were grown outside Git since, and the write-back pull request proposing their size. */
interface GrownOutsideGit {
  template: TemplateReport;
  url: string;
  /** The largest size a volume has or asks for. */
  size: string;
  /** Every volume has at least what Git asks (nothing of this change is left to do). */
  reached: boolean;
}

/**
 * A set blocked only by the "decrease" below its volumes' capacity (reason code `below-capacity`: they were grown
 * outside Git after this change, by an autoscaler or a person) while a write-back pull request proposes their size:
 * not a failure of this change, which Git's next value (the write-back, merged) supersedes. Undefined otherwise.
 */
function grownOutsideGit(sts: StatefulSetReport, writeBackLinks: ReadonlyMap<string, string> | undefined): GrownOutsideGit[] | undefined {
  if (sts.outcome !== 'blocked' || !writeBackLinks) return undefined;
  const blocked = sts.templates.filter((t) => t.action === 'blocked');
  const grown = blocked.flatMap((template) => {
    const url = writeBackLinks.get(templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName }));
    const codes = template.reasonCodes ?? [];
    if (url === undefined || codes.length === 0 || codes.some((c) => c !== 'below-capacity')) return [];
    const desired = reportedQuantity(template.desiredSize);
    const sizes = template.pvcs.flatMap((p) => [reportedQuantity(p.capacity), reportedQuantity(p.request)]).filter((q) => q !== undefined);
    const largest = sizes.reduce<(typeof sizes)[number] | undefined>((a, b) => (a === undefined || b.bytes > a.bytes ? b : a), undefined);
    const reached = desired !== undefined && template.pvcs.every((p) => (reportedQuantity(p.capacity)?.bytes ?? 0n) >= desired.bytes);
    return [{ template, url, size: largest?.text ?? '?', reached }];
  });
  return blocked.length > 0 && grown.length === blocked.length ? grown : undefined;
}

/** `data: grown outside Git to 30Gi since, beyond 20Gi; write-back pull request #7 proposes it` (in Markdown, `#7` linked). */
function grownWords(grown: readonly GrownOutsideGit[], markdown = false): string {
  return grown.map((g) => {
    const lead = `${g.template.templateName}: grown outside Git to ${g.size} since, beyond ${g.template.desiredSize}; write-back pull request`;
    // `#7` as a link's text is not linked again by GitHub; a URL a pull request number could not be read from is shown as is.
    return markdown ? `${escapeMarkdown(lead)} [${pullNumber(g.url)}](${g.url}) proposes it` : `${lead} ${pullNumber(g.url)} proposes it`;
  }).join('; ');
}

/** `#7` of a pull request's address, or the address itself. */
function pullNumber(url: string): string {
  const number = /\/pull\/(\d+)$/.exec(url)?.[1];
  return number === undefined ? url : `#${number}`;
}

/**
 * What a person must know first, whole: the sizes reached, or the first template's reason (a blocked change, a
 * failed claim's driver message, a stall). A check run's title; a commit status gets it cut to 140 characters.
 */
function progressTitle(sts: StatefulSetReport): string {
  const state = progressState(sts);
  const sizes = sts.templates.map(replicasAt).join(', ');
  if (state === 'failure') {
    const failed = sts.templates.find((t) => t.action === 'blocked' || t.pvcs.some((p) => p.state === 'failed'));
    if (!failed) {
      const stalled = stalledTemplates(sts).map((t) => `${t.templateName}: ${stalledWords(t.pvcs) ?? ''}`);
      if (stalled.length > 0) return stalled.join('; ');
    }
    const driverWords = failed?.pvcs.find((p) => p.state === 'failed')?.message;
    const atMaximum = failed?.atDriverMaximum ? `${failed.atDriverMaximum.noSizeCanSucceed}${driverWords ? `; ${driverWords}` : ''}` : undefined;
    const reason = failed?.reasons[0] ?? atMaximum ?? driverWords ?? sts.outcome;
    return `${failed?.templateName ?? ''}: ${reason}`;
  }
  if (state === 'success') return sizes;
  // A busy pass's: nothing moves until the other pass lets go of the target, and when its Lease lapses is known.
  if (sts.waitingFor !== undefined) return `waiting: ${sts.waitingFor}; ${changeVerb(changeKind(sts.templates))}: ${sizes}`;
  // These wait for their node's kubelet (its next sync of a running pod, or a pod's start): the status names them, the
  // comment says what the kubelet is doing.
  const onNode = sts.templates.flatMap((t) => t.pvcs.filter((p) => p.state === 'waiting-for-node').map((p) => p.name));
  const waiting = onNode.length === 0 ? '' : `; ${onNode.join(', ')} ${onNode.length === 1 ? 'waits for its' : 'wait for their'} node to expand the file system`;
  return `${changeVerb(changeKind(sts.templates))}: ${sizes}${waiting}`;
}

/** The commit status's description: the title, cut to GitHub's 140 characters. */
export function progressDescription(sts: StatefulSetReport): string {
  return fitDescription(progressTitle(sts));
}

/**
 * The comment's and the check's first sentence: what happened, short (the reason is in the table and the driver's
 * words below it, never repeated cut): `data: the resize to 100Gi failed for good`, `data: data-web-0, data-web-1 stalled`.
 */
function progressHeadline(sts: StatefulSetReport): string {
  if (progressState(sts) !== 'failure') return progressTitle(sts);
  const blocked = sts.templates.find((t) => t.action === 'blocked');
  if (blocked) return `${blocked.templateName}: blocked`;
  const failed = sts.templates.find((t) => t.pvcs.some((p) => p.state === 'failed'));
  if (failed) {
    const onClass = failedOnClassOnly(failed);
    const what = onClass ? `the class change to ${failed.desiredClass ?? '(none)'}` : `the resize to ${failed.desiredSize}`;
    return `${failed.templateName}: ${what} failed for good${failed.atDriverMaximum ? `; ${failed.atDriverMaximum.noSizeCanSucceed}` : ''}`;
  }
  const stalled = stalledTemplates(sts).map((t) => `${t.templateName}: ${t.pvcs.filter((p) => p.state === 'stalled-on-node').map((p) => p.name).join(', ')} stalled`);
  return stalled.length > 0 ? stalled.join('; ') : outcomeWords[sts.outcome];
}

/** The templates with a claim stalled on its node: each is named in the title and the headline, with every such claim. */
function stalledTemplates(sts: StatefulSetReport): TemplateReport[] {
  return sts.templates.filter((t) => t.pvcs.some((p) => p.state === 'stalled-on-node'));
}

/** A template whose only terminal failure is a refused class: its recovery proposes a class, not a size. */
export function failedOnClassOnly(template: TemplateReport): boolean {
  const failed = template.pvcs.filter((p) => p.state === 'failed');
  return failed.length > 0 && failed.every((p) => p.failedOn === 'class');
}

/** The way out a failure links: at the driver's maximum (`volumes`, the size they have) no size can succeed, so Git goes back. */
export function recoveryLinkLine(onClass: boolean, url: string, atMaximumVolumes?: string): string {
  if (onClass) return `A recovery pull request proposes the VolumeAttributesClass the volumes still have: ${url}`;
  return atMaximumVolumes !== undefined ? `A recovery pull request puts Git back at ${escapeMarkdown(atMaximumVolumes)}, the size the volumes have: ${url}`
    : `A recovery pull request proposes a size that can succeed: ${url}`;
}

/** Why no recovery pull request was opened, per template key and kind of recovery. */
export type RecoveryNotes = ReadonlyMap<string, Partial<Record<ProposalKindName, string>>>;

export function renderProgressComment(input: {
  target: string; sts: StatefulSetReport; commitSha: string; recoveryLinks?: ReadonlyMap<string, string>;
  recoveryNotes?: RecoveryNotes;
  /** Template key -> its write-back pull request: linked on the blocked "decrease" (feedback/write-back-words.ts). */
  writeBackLinks?: ReadonlyMap<string, string>;
  /** The pass's proposal outcomes, every kind: a template's open pull requests not linked above are listed in one line. */
  proposals?: readonly ProposalOutcome[];
}): ProgressSummary {
  const { target, sts, commitSha } = input;
  const grown = grownOutsideGit(sts, input.writeBackLinks);
  const state = stateOf(sts, grown);
  const icon = state === 'success' ? '✅' : state === 'failure' ? '❌' : '🔄';
  const lines: string[] = [];
  lines.push(`### ${icon} ${changeTitle(changeKind(sts.templates))} of ${escapeMarkdown(`${sts.namespace}/${sts.name}`)} (${escapeMarkdown(target)})`);
  lines.push('');
  lines.push(`Desired state from commit ${commitSha.slice(0, 7)}. ${grown ? grownWords(grown, true) : escapeMarkdown(progressHeadline(sts))}.`);
  for (const template of sts.templates) {
    const sectionStart = lines.length;
    lines.push('');
    lines.push(`#### ${codeSpan(template.templateName)} → ${goingTo(template, escapeMarkdown)}: ${doneCount(template)}${template.finished ? ` (finished at generation ${template.finishedReconciliationGeneration ?? '?'})` : ''}`);
    const writeBack = input.writeBackLinks?.get(templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName }));
    // Volumes grown outside Git since are no failure of this change: the write-back pull request says what comes next.
    lines.push(...reasonLines(template, writeBack).map((line) => `- ${grown?.some((g) => g.template === template) === true ? 'ℹ️' : '❌'} ${line}`));
    if (template.pvcs.length > 0) {
      lines.push('');
      lines.push('| PVC | Request | Capacity | State | Since |');
      lines.push('| --- | --- | --- | --- | --- |');
      for (const pvc of template.pvcs) {
        const vac = pvc.volumeAttributesClass;
        const volumeClass = vac ? ` (volume in class ${escapeMarkdown(vac.current ?? 'none')}${vac.modifyStatus ? `, ${escapeMarkdown(vac.modifyStatus)}` : ''})` : '';
        lines.push(`| ${escapeMarkdown(pvc.name)} | ${escapeMarkdown(pvc.request ?? '—')} | ${escapeMarkdown(pvc.capacity ?? '—')} | ${pvcIcon(sts, template, pvc)} ${pvcWords(sts, template, pvc)}${volumeClass}${pvc.message ? `: ${escapeMarkdown(pvc.message)}` : ''} | ${pvc.since ?? '—'} |`);
      }
    }
    const quotes = failureQuotes(template);
    if (quotes.length > 0) {
      const since = failureSince(template);
      lines.push('');
      lines.push(`The driver said${since ? ` (since ${since})` : ''}:`);
      lines.push(codeBlock(quotes.join('\n')));
    }
    const key = templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName });
    const onClass = failedOnClassOnly(template);
    const recovery = input.recoveryLinks?.get(key);
    const atMaximum = template.atDriverMaximum;
    if (recovery) lines.push('', recoveryLinkLine(onClass, recovery, atMaximum?.volumes));
    if (atMaximum) lines.push('', ...atMaximumAdvice(template.desiredSize, atMaximum, template.pvcs.some((p) => p.condition?.type === 'NodeResizeError')));
    const note = input.recoveryNotes?.get(key)?.['size-recovery'];
    if (note) {
      lines.push('', `No recovery pull request: ${escapeMarkdown(note)}.`, '', 'Ways out: raise the storage provider\'s maximum volume size or quota (the external-resizer '
        + 'retries the same size once its `--retry-interval-max` has passed, 5 minutes by default, or at once when it is restarted), or scale the '
        + 'StatefulSet down so that only replicas at one size remain.');
    }
    const classNote = input.recoveryNotes?.get(key)?.['class-recovery'];
    if (classNote) {
      lines.push('', `No recovery pull request for the class: ${escapeMarkdown(classNote)}.`, '', 'Ways out: have the driver accept the class (the '
        + 'external-resizer retries it once its `--retry-interval-max` has passed, or at once when it is restarted), or name in Git the class the '
        + 'volumes have, or another class of the same driver.');
    }
    // Every other open proposal of the template (a growth, a write-back not linked on a blocked "decrease"), one line.
    const section = lines.slice(sectionStart).join('\n');
    const others = openProposalsLine((input.proposals ?? []).filter((o) => o.key === key && !(o.pullRequestUrl !== undefined && section.includes(o.pullRequestUrl))));
    if (others) lines.push('', others);
  }
  lines.push('');
  lines.push('<sub>Updated by sts-volume-gitops on every pass that changes something.</sub>');
  if (grown) {
    const words = grownWords(grown);
    return { state, description: fitDescription(words), title: printable(words), markdown: fitComment(lines), ...(grown[0] ? { link: grown[0].url } : {}) };
  }
  const title = progressTitle(sts);
  return { state, description: fitDescription(title), title: printable(title), markdown: fitComment(lines) };
}
