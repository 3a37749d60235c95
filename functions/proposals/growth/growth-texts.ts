// The words of a growth pull request (composed by body/compose-body.ts): the title, the commit message, and the body's
// sections: why (the fullest replica), the evidence per replica (used / capacity / percent, inodes where they are the
// cause, days to full at the last day's pace, and the share used after the growth), why this size (the limits that cut
// it, saying so), what it costs a month and what happens on merge. Pure.
import type { PriceConfig } from '../../domain/config.ts';
import { parseQuantity } from '../../domain/quantity.ts';
import { change, count, daysSpelled, gib, groupDigits, percent } from '../../domain/spelling.ts';
import type { GrowthDecision, GrowthTrigger, ReplicaUsage, TemplateUsage } from '../../domain/volume-usage.ts';
import type { TemplateReport } from '../../engine/report/pass-report.ts';
import { codeSpan, escapeMarkdown } from '../../feedback/escape-markdown.ts';
import type { ProposalBody } from '../body/compose-body.ts';
import { costSection } from '../body/cost.ts';
import { evidenceSection } from '../body/evidence.ts';
import { headerSection } from '../body/header.ts';
import { onMergeSection } from '../body/on-merge.ts';
import type { BodySection } from '../body/section.ts';

export type Growth = Extract<GrowthDecision, { action: 'grow' }>;

const days = daysSpelled;

/** `data-pg-0 85% full`, `data-pg-0 inodes 92% used`, `data-pg-0 full in 3 days`: the cause, in a few words. */
export function causeWords(trigger: GrowthTrigger): string {
  if (trigger.cause === 'bytes') return `${trigger.claim} ${percent(trigger.value)} full`;
  if (trigger.cause === 'inodes') return `${trigger.claim} inodes ${percent(trigger.value)} used`;
  return `${trigger.claim} full in ${days(trigger.value)}`;
}

export function growthSubject(decision: Growth): string {
  return `Grow ${decision.namespace}/${decision.statefulSet} ${decision.template}: ${change(decision.from, decision.to, 'github')}`;
}

export function growthTitle(decision: Growth): string {
  return `${growthSubject(decision)} (${causeWords(decision.because)})`;
}

export function growthCommitMessage(decision: Growth): string {
  return `${growthSubject(decision)}\n\n${decision.sentence[0]?.toUpperCase() ?? ''}${decision.sentence.slice(1)}.`;
}

/** One replica's evidence: `data-pg-0: 8.5Gi of 10Gi used (85%), full in 3 days at 0.5Gi a day; 57% at 15Gi`. */
export function replicaEvidence(replica: ReplicaUsage, decision: Growth): string {
  const parts = [`${replica.claim}: ${gib(replica.usedBytes)} of ${gib(replica.capacityBytes)} used (${percent(replica.usedPercent)})`];
  if (decision.because.cause === 'inodes' && replica.inodesUsed !== undefined && replica.inodes !== undefined) {
    parts.push(`inodes ${groupDigits(String(replica.inodesUsed))} of ${groupDigits(String(replica.inodes))} used (${percent(replica.inodesPercent ?? 0)})`);
  }
  parts.push(replica.daysToFull !== undefined ? `full in ${days(replica.daysToFull)} at ${gib(replica.bytesPerDay ?? 0)} a day` : 'not filling at the last day\'s pace');
  const after = decision.after.find((a) => a.claim === replica.claim);
  return `${parts.join(', ')}${after ? `; ${percent(after.usedPercent)} at ${decision.to}` : ''}`;
}

function whySize(decision: Growth): BodySection {
  const needed = decision.cuts[0]?.wanted ?? decision.to;
  const cuts = decision.cuts.map((cut) => `${cut.wanted} was needed, but ${cut.setBy} allows ${cut.allowed}`);
  const lines = [
    escapeMarkdown(`${needed} is what the fullest replica needs, in steps of the growth policy: the template is sized for it, so every replica, and any new one, gets it.`),
    ...(cuts.length === 0 ? [] : ['', `**Cut by a limit:** ${escapeMarkdown(`${cuts.join('; then ')}. This proposes ${decision.to}, as far as allowed; raise the limit for more.`)}`]),
  ];
  return { heading: `Why ${escapeMarkdown(decision.to)}`, lines };
}

export function growthBody(args: {
  decision: Growth; usage: TemplateUsage | undefined; template: Pick<TemplateReport, 'replicas' | 'storageClassName'> | undefined; prices: PriceConfig | undefined;
}): ProposalBody {
  const { decision, usage, template } = args;
  const name = `${decision.namespace}/${decision.statefulSet}`;
  const replicas = usage?.replicas ?? [];
  const from = parseQuantity(decision.from);
  const to = parseQuantity(decision.to);
  const volumes = template?.replicas ?? replicas.length;
  const unread = (usage?.unread ?? []).map((claim) => `${escapeMarkdown(claim)}: no usage series (a kubelet reports only the volumes of running pods)`);
  return {
    header: headerSection(`${escapeMarkdown(name)} ${codeSpan(decision.template)} is filling up`,
      `${escapeMarkdown(decision.sentence.replace(/^propose /, 'sts-volume-gitops proposes '))}. What each replica's file system holds, as the kubelet reports it through Prometheus:`),
    evidence: evidenceSection([...replicas.map((r) => escapeMarkdown(replicaEvidence(r, decision))), ...unread]),
    own: [whySize(decision)],
    cost: costSection({
      direction: `The template and its ${count(volumes, 'volume')} grow from ${decision.from} to ${decision.to}.`,
      growth: (to.bytes - from.bytes) * BigInt(volumes), like: to, storageClassName: template?.storageClassName, prices: args.prices,
    }),
    onMerge: onMergeSection(`The next pass applies ${escapeMarkdown(decision.to)} as any change in Git: the StatefulSet's template takes the new size (its pods and claims are kept) and each PVC is expanded online, with progress reported on the merged pull request. Until then this pull request is updated in place when usage calls for another size, and closed with a comment if usage falls below the threshold.`),
  };
}
