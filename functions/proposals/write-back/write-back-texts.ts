// The sections of a write-back pull request's body (composed by body/compose-body.ts): what Git says and what was found
// live where (the template and each PVC: request, capacity), that it costs nothing new (the volumes already have the
// size: it is already being paid), and that merging it writes nothing in the cluster. Each volume counts once, at its
// committed size (domain/volume-cost.ts: its capacity, or the size an expansion under way will reach): what is beyond
// Git there is already paid for, what is below the proposed size is what merging grows. Pure.
import type { PriceConfig } from '../../domain/config.ts';
import { formatBytesLike, parseQuantity, reportedQuantity, sameSize } from '../../domain/quantity.ts';
import { count, monthly, showSize } from '../../domain/spelling.ts';
import { committedBytes, costOfGrowth, reportedVolume } from '../../domain/volume-cost.ts';
import type { WriteBackDecision } from '../../domain/volume-usage.ts';
import type { TemplateReport } from '../../engine/report/pass-report.ts';
import { codeSpan, escapeMarkdown } from '../../feedback/escape-markdown.ts';
import type { ProposalBody } from '../body/compose-body.ts';
import { evidenceSection } from '../body/evidence.ts';
import { headerSection } from '../body/header.ts';
import { notesSection } from '../body/notes.ts';
import { onMergeSection } from '../body/on-merge.ts';
import type { BodySection } from '../body/section.ts';

export function writeBackBody(args: {
  decision: WriteBackDecision; git: string; template: TemplateReport | undefined; prices: PriceConfig | undefined;
}): ProposalBody {
  const { decision, git, template } = args;
  const set = `${decision.namespace}/${decision.statefulSet}`;
  const liveTemplate = decision.found.find((f) => f.where === 'template')?.size ?? template?.from;
  return {
    header: headerSection(`${escapeMarkdown(set)} ${codeSpan(decision.template)} was grown outside Git`,
      `Git says ${escapeMarkdown(git)}, but the cluster has more: this sets Git to ${escapeMarkdown(decision.to)}, the largest size found, so Git and the `
      + 'cluster agree again (volumes never shrink: Git below their size is a "decrease" every pass blocks). What was found where:'),
    evidence: evidenceSection([
      `the live StatefulSet's template ${codeSpan(decision.template)}: ${escapeMarkdown(liveTemplate ?? '?')}`,
      ...(template?.pvcs ?? []).map((p) => `${escapeMarkdown(p.name)}: request ${escapeMarkdown(p.request ?? '?')}, capacity ${escapeMarkdown(p.capacity ?? '?')}${decision.found.some((f) => f.where === 'pvc' && f.name === p.name) ? ' (grown outside Git)' : ''}`),
    ]),
    cost: alreadyPaid(decision, git, template, args.prices),
    notes: notesSection('If the volumes should not have grown', [
      'Close this pull request: it is not proposed again until the live size grows beyond it. Git then stays below the volumes, and every pass reports the "decrease" as blocked: Kubernetes lowers a request only to a value strictly above the volume\'s capacity (KEP-1790), so the volumes cannot go back.',
      'Stop what grew them (an autoscaler patching PVCs, a person), or have it write to Git instead.',
    ]),
    onMerge: onMergeSection(onMerge(decision, liveTemplate, lagging(decision, template))),
  };
}

/** A replica's volume at its committed size: an expansion under way (an autoscaler's, not finished) counts at its end. */
function committedOf(pvc: TemplateReport['pvcs'][number]): bigint {
  return committedBytes(reportedVolume({ request: pvc.request, capacity: pvc.capacity, failed: pvc.terminal && pvc.failedOn !== 'class' }));
}

/** Replicas whose volume, expansions under way included, is below the proposed size (an autoscaler grew the others): merged, they grow to it. */
function lagging(decision: WriteBackDecision, template: TemplateReport | undefined): Array<{ name: string; size: string; bytes: bigint }> {
  const to = parseQuantity(decision.to);
  return (template?.pvcs ?? []).flatMap((p) => {
    if (p.request === undefined && p.capacity === undefined) return [];
    const bytes = committedOf(p);
    return bytes < to.bytes ? [{ name: p.name, size: formatBytesLike(bytes, to), bytes }] : [];
  });
}

function onMerge(decision: WriteBackDecision, liveTemplate: string | undefined, behind: ReadonlyArray<{ name: string; size: string }>): string {
  const to = escapeMarkdown(decision.to);
  const templateDone = liveTemplate !== undefined && sameSize(liveTemplate, decision.to);
  const writes = [
    ...(templateDone ? [] : [`updates the StatefulSet's template from ${escapeMarkdown(liveTemplate ?? '?')} to ${to} (the StatefulSet is recreated, its pods and volumes left as they are), so new replicas get it too`]),
    ...(behind.length > 0 ? [`grows ${behind.map((b) => `${escapeMarkdown(b.name)} (${escapeMarkdown(b.size)})`).join(', ')} to ${to}, the size the others already have`] : []),
  ];
  const closing = ', and the blocked "decrease" (in plans, checks and progress) is gone. This pull request is closed automatically if Git catches up another way.';
  return writes.length === 0
    ? `Nothing is written in the cluster: Git then says what the cluster already has. The next pass finds nothing to change${closing}`
    : `The volumes already at ${to} are not written. The next pass only ${writes.join(', and ')}; after that, nothing${closing}`;
}

/**
 * No new cost: the volumes already have the size. With prices, what the growth beyond Git already costs a month, and
 * what the replicas below the proposed size add; each volume at its committed size, so none is counted twice.
 */
function alreadyPaid(decision: WriteBackDecision, git: string, template: TemplateReport | undefined, prices: PriceConfig | undefined): BodySection {
  const gitSize = parseQuantity(git);
  const pvcs = template?.pvcs ?? [];
  const beyond = pvcs.reduce((sum, p) => {
    const committed = committedOf(p);
    return committed > gitSize.bytes ? sum + (committed - gitSize.bytes) : sum;
  }, 0n);
  const underWay = pvcs.some((p) => committedOf(p) > (reportedQuantity(p.capacity)?.bytes ?? 0n));
  const cost = beyond > 0n ? costOfGrowth(beyond, template?.storageClassName, prices) : undefined;
  const paid = cost?.monthlyIncrease === undefined ? ''
    : ` The ${showSize(formatBytesLike(beyond, gitSize))} beyond Git's ${git} across ${count(pvcs.length, 'volume')} already cost${underWay ? 's (once the expansion under way finishes)' : ''} ${monthly(cost.monthlyIncrease, cost.currency)}.`;
  const behind = lagging(decision, template);
  if (behind.length === 0) return { heading: 'What it costs', lines: [escapeMarkdown(`Nothing new: the volumes already have this size, and it is already being paid.${paid}`)] };
  const to = parseQuantity(decision.to);
  const more = behind.reduce((sum, b) => sum + (to.bytes - b.bytes), 0n);
  const added = costOfGrowth(more, template?.storageClassName, prices);
  const addedWords = added?.monthlyIncrease === undefined ? '' : `, ${monthly(added.monthlyIncrease, added.currency)} more`;
  return {
    heading: 'What it costs',
    lines: [escapeMarkdown(`Nothing new for the volumes already at ${decision.to}: that is already being paid.${paid} `
      + `${behind.map((b) => b.name).join(', ')} ${behind.length === 1 ? 'grows' : 'grow'} to ${decision.to} (${showSize(formatBytesLike(more, to))} in all${addedWords}).`)],
  };
}
