// The sections of recovery pull requests' bodies (composed by body/compose-body.ts): what failed, in the driver's own words (the failed claims' conditions, then the
// Events of the attempt that failed), why the proposal, and what else a person can do that holds for the real CSI
// external-resizer (v1.12 and later; v2.0.0 recorded in ../shared/conformance/csi-v1.34.9/). Pure.
import type { PriceConfig } from '../../domain/config.ts';
import { claimsLastingStateWords, waysOutAtMaximum } from '../../engine/volumes/at-driver-maximum.ts';
import type { StatefulSetReport, TemplateReport } from '../../engine/report/pass-report.ts';
import { codeSpan, escapeMarkdown } from '../../feedback/escape-markdown.ts';
import { failureQuotes, failureSince } from '../../feedback/failure-quotes.ts';
import type { ProposalBody } from '../body/compose-body.ts';
import { evidenceSection } from '../body/evidence.ts';
import { headerSection } from '../body/header.ts';
import { notesSection } from '../body/notes.ts';
import { onMergeSection } from '../body/on-merge.ts';
import type { RecoveryDecision } from './choose-recovery-size.ts';
import { failedForGood } from './failed-claims.ts';
import { recoveryChangeSection } from './recovery-cost.ts';

/**
 * How the real resizer retries a claim it found infeasible: it keeps it in a slow-retry set held in memory and tries
 * the same request again only once `--retry-interval-max` has passed (expand_and_recover.go, modify_volume.go).
 */
const slowRetry = (what: string): string => `The external-resizer keeps a claim whose ${what} it found infeasible in a slow-retry set and tries the same `
  + 'request again only once its `--retry-interval-max` has passed (5 minutes by default); to have it retried at once, restart the '
  + 'external-resizer (the `csi-resizer` container of the CSI driver\'s controller pod): that set is kept in its memory.';

/**
 * How a size refused on the node is retried: the kubelet marks it NodeResizeInfeasible, the resizer hands it back at
 * once (expand_and_recover.go "case 3"), and the kubelet's volume operations back off up to 2m2s (goroutinemap).
 */
const nodeRetry = 'The kubelet tries the node expansion again by itself: the external-resizer hands a claim refused on the node back to it at once, '
  + 'and it retries with a backoff of up to about two minutes.';

/** KEP-1790: the resizer takes a lower request after a node's refusal only from a driver without controller expansion. */
const nodeLowering = 'Lowering a size refused on the node recovers a driver that expands volumes on the node alone (KEP-1790 case 2); one that '
  + 'expanded the volume on its controller first keeps that size, and only a node expansion that succeeds finishes it.';

export function sizeRecoveryBody(args: {
  sts: StatefulSetReport; template: TemplateReport; failed: string; decision: Extract<RecoveryDecision, { kind: 'propose' }>;
  prices?: PriceConfig | undefined;
  /** What Git asks now, when not `failed`: a size above the driver's maximum, blocked (nothing was written for it). */
  inGit?: string;
}): ProposalBody {
  const { sts, template, failed, decision } = args;
  const inGit = args.inGit ?? failed;
  const gitMovedOn = inGit === failed ? '' : ` Git asks for ${escapeMarkdown(inGit)} now, above the driver's maximum: that change is blocked and nothing was written for it; this pull request replaces it.`;
  const failedPvcs = failedForGood(template);
  const since = failureSince(template, 'size');
  // The kubelet's refusal (engine/volumes/pvc-progress.ts): no slow-retry set, and lowering helps only a node-only driver.
  const onNode = failedPvcs.some((p) => p.condition?.type === 'NodeResizeError');
  const retried = onNode ? nodeRetry : slowRetry('expansion');
  const header = headerSection(`The expansion of ${escapeMarkdown(`${sts.namespace}/${sts.name}`)} ${codeSpan(template.templateName)} to ${escapeMarkdown(failed)} failed for good`,
    `${failedPvcs.length} of ${template.replicas} PVCs cannot grow to ${escapeMarkdown(failed)}${since ? ` (since ${since})` : ''}${gitMovedOn ? `.${gitMovedOn} The claims:` : ':'}`);
  const evidence = evidenceSection(failedPvcs.map((p) => `${escapeMarkdown(p.name)}: capacity ${escapeMarkdown(p.capacity ?? '?')}, request ${escapeMarkdown(p.request ?? '?')}`),
    { intro: 'What the storage driver said:', text: failureQuotes(template, 'size').join('\n') || failedPvcs.flatMap((p) => (p.message ? [`${p.name}: ${p.message}`] : [])).join('\n') || '(no message was recorded)' });
  if (decision.rule === 'at-driver-maximum') return { header, evidence, ...atMaximumSections({ failed, inGit, size: decision.size, explanation: decision.explanation, onNode }) };
  const cost = recoveryChangeSection({ template, failed, proposed: decision.size, prices: args.prices });
  return {
    header, evidence,
    own: [{
      heading: `Why ${escapeMarkdown(decision.size)}`,
      lines: [`${escapeMarkdown(decision.explanation)}. Kubernetes lets a failed request go down only to a value strictly above the PVC's capacity (KEP-1790), so the original size can never be requested again; ${escapeMarkdown(decision.size)} is accepted and the expansion restarts at that size.${onNode ? ` ${nodeLowering}` : ''}`],
    }],
    ...(cost ? { cost } : {}),
    notes: notesSection('Alternatives', [
      `Raise the limit that made the expansion fail (the provider's maximum volume size or quota), then close this pull request (closed unmerged, it is not proposed again). ${retried}`,
      'Choose another size above the current capacity by editing this branch.',
    ]),
    onMerge: onMergeSection(`The next pass patches the PVCs down to this size, the resizer expands them to it at once${onNode ? '' : ' (a new request leaves the slow-retry set)'}; this merge's check turns green once they reach it, and the failed change's check and comment then say it was recovered by this pull request. This pull request is closed automatically if the failure resolves another way.`),
  };
}

/**
 * Volumes at their driver's maximum (engine/volumes/at-driver-maximum.ts): no size can succeed, so the proposal puts Git back at
 * the size the volumes have; what becomes of the claims, and what a person can do.
 */
function atMaximumSections(args: { failed: string; inGit: string; size: string; explanation: string; onNode: boolean }): Omit<ProposalBody, 'header' | 'evidence'> {
  const { failed, size } = args;
  return {
    own: [{
      heading: `Why ${escapeMarkdown(size)}`,
      lines: [`${escapeMarkdown(capitalized(args.explanation))}. Every size above the volumes' capacity is above the driver's maximum, and Kubernetes `
        + 'lets a failed request go down only to a size strictly above the capacity (KEP-1790).'],
    }],
    cost: { heading: 'What it changes', lines: [escapeMarkdown(`Git's size goes back from ${args.inGit} to ${size}, the size the volumes have: no volume grows, and nothing is added to the bill.`)] },
    notes: notesSection('Alternatives', waysOutAtMaximum(failed, size).map((way) => escapeMarkdown(way))),
    onMerge: {
      heading: 'After merge',
      lines: [
        escapeMarkdown(`The next pass sets the StatefulSet's volumeClaimTemplate to ${size} (a template update: pods and claims untouched), `
          + `so that new replicas ask for ${size}, a size the driver provides. ${claimsLastingStateWords(failed, size, args.onNode)}`),
        '',
        'The status checks turn green. This pull request is closed automatically if the failure resolves another way.',
      ],
    },
  };
}

function capitalized(text: string): string {
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}`;
}

export function classRecoveryBody(args: {
  sts: StatefulSetReport; template: TemplateReport; failed: string; decision: { className: string; explanation: string };
}): ProposalBody {
  const { sts, template, failed, decision } = args;
  const refused = template.pvcs.filter((p) => p.state === 'failed' && p.failedOn === 'class');
  const since = failureSince(template, 'class');
  return {
    header: headerSection(`The modification of ${escapeMarkdown(`${sts.namespace}/${sts.name}`)} ${codeSpan(template.templateName)} to VolumeAttributesClass ${escapeMarkdown(failed)} is infeasible`,
      `${refused.length} of ${template.replicas} volumes cannot be given the attributes of ${escapeMarkdown(failed)} (\`modifyVolumeStatus: Infeasible\`${since ? `, since ${since}` : ''}):`),
    evidence: evidenceSection(refused.map((p) => `${escapeMarkdown(p.name)}: volume in ${escapeMarkdown(p.volumeAttributesClass?.current ?? 'no class')}, claim asks for ${escapeMarkdown(p.volumeAttributesClass?.requested ?? failed)}`),
      { intro: 'What the storage driver said:', text: failureQuotes(template, 'class').join('\n') || '(no message was recorded)' }),
    own: [{
      heading: `Why ${escapeMarkdown(decision.className)}`,
      lines: [`${escapeMarkdown(decision.explanation)}. Until then the claims keep asking for ${escapeMarkdown(failed)} and the driver keeps refusing it.`],
    }],
    notes: notesSection('Alternatives', [
      `Have the driver accept ${escapeMarkdown(failed)} (a VolumeAttributesClass's parameters cannot be edited: this means changing what the driver or the volume type allows), then close this pull request (closed unmerged, it is not proposed again). ${slowRetry('modification')}`,
      'Name another VolumeAttributesClass of the same driver by editing this branch.',
    ]),
    onMerge: onMergeSection('The next pass recreates the StatefulSet with this class (pods untouched) and sets each claim back to it. This pull request is closed automatically if the failure resolves another way.'),
  };
}

