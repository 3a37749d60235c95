// One proposal's pull request, made to say what the proposal says (Renovate's ensurePr, without per-kind code): found
// by its branch; opened when there is none; updated in place (the branch rewritten with the new one-line commit on the
// current head, the title and body edited) when the proposal changed; its title and body alone rewritten when only
// the evidence they show moved (evidence-refresh.ts); left as it is when nothing did; never written
// over a person's push; never proposed again after a person closed it unmerged, until the proposal changes in a way
// its kind says matters.
import type { ProposalPullRequest, ReviewHost } from '../../engine/ports.ts';
import { codeSpan, escapeMarkdown } from '../../feedback/escape-markdown.ts';
import { composeBody } from '../body/compose-body.ts';
import { footerSection } from '../body/footer.ts';
import { oneLineDiff } from '../edits/editable-value.ts';
import type { Proposal, ProposalKind, ProposalOutcome } from '../proposal.ts';
import { isClosedByTool, proposalBranch, proposalLabels, proposalNoun, templateKey, type ProposalIdentity } from './identity.ts';
import { evidenceRefresh } from './evidence-refresh.ts';
import { readEvidenceStamp, readMarker, sameValues, writeEvidenceStamp, writeMarker, type ProposalMark, type ProposalValues } from './marker.ts';

/** Where a proposal goes: the target (its branch names), the branch it is proposed into, and the commit it starts from. */
export interface ProposalPlace {
  target: string;
  base: string;
  headSha: string;
  /** When the pass read what its proposals show (growth: usage's read time); the invocation's clock when absent. */
  evidenceAt?: string | undefined;
}

/** A cap on pull requests open at once (growth's `openAtOnce`): whether one more may be opened, and why not. */
export interface OpenLimit {
  allows(): boolean;
  reason: string;
}

/** The marker of one of this tool's pull requests for `identity` (its kind and template), or undefined. */
function proposalMarkOf(pull: ProposalPullRequest, identity: ProposalIdentity): ProposalMark | undefined {
  const mark = readMarker(pull.body);
  return mark && mark.identity.kind === identity.kind && templateKey(mark.identity) === templateKey(identity) ? mark : undefined;
}

/** A pull request of this proposal a person closed unmerged, for values the kind says have not changed since: declined. */
export function declinedAmong(pulls: readonly ProposalPullRequest[], identity: ProposalIdentity, kind: ProposalKind, values: ProposalValues): ProposalPullRequest | undefined {
  return pulls.find((p) => {
    const mark = p.state === 'closed' && !p.merged && !isClosedByTool(p) ? proposalMarkOf(p, identity) : undefined;
    return mark !== undefined && !kind.changedSinceDeclined(mark.values, values);
  });
}

/**
 * `listed`: the pull requests from the proposal's branch when this pass already read them (write-back's holds,
 * write-back/write-back-holds.ts), so the branch is not listed twice in one pass.
 */
export async function ensureProposal(
  host: ReviewHost, proposal: Proposal, kind: ProposalKind, place: ProposalPlace, limit?: OpenLimit, listed?: readonly ProposalPullRequest[],
): Promise<ProposalOutcome> {
  const { identity, values, edit, title } = proposal;
  const key = templateKey(identity);
  const noun = proposalNoun(identity.kind);
  const branch = proposalBranch(place.target, identity);
  const evidenceAt = place.evidenceAt ?? new Date().toISOString();
  const bodyAt = (at: string): string => composeBody(proposal.body, {
    marker: `${writeMarker({ identity, values })}\n${writeEvidenceStamp({ at, ...(proposal.basis === undefined ? {} : { basis: proposal.basis }) })}`,
    edit, footer: footerSection(kind.reproposedWhen, at),
  });
  const body = bodyAt(evidenceAt);
  const said = { key, kind: identity.kind, change: { from: edit.from, to: edit.to }, title, body, diff: oneLineDiff(edit.path, edit.line, edit.before, edit.after) };
  const existing = listed ?? await host.pullRequestsFrom(branch);
  const ours = (pull: ProposalPullRequest): ProposalMark | undefined => proposalMarkOf(pull, identity);
  if (declinedAmong(existing, identity, kind, values)) {
    return {
      key, kind: identity.kind, action: 'declined-before', pullRequestUrl: undefined, change: said.change,
      reason: `a ${noun} to ${edit.to} was closed without merging; it is not proposed again until ${kind.reproposedWhen}`,
    };
  }
  const open = existing.find((p) => p.state === 'open');
  if (open) {
    const shown = { ...said, pullRequest: open.number, pullRequestUrl: open.htmlUrl };
    if (await host.branchHeadIsOurs(branch) !== true) {
      await host.ensureComment(open.number, `${noun}-human:${key}`,
        `sts-volume-gitops would now propose **${escapeMarkdown(edit.to)}**, but someone else pushed to ${codeSpan(branch)}, so the branch is left alone. Merge, edit or close this pull request as you see fit.`);
      return { ...shown, action: 'left-alone' };
    }
    const mark = ours(open);
    if (mark && sameValues(mark.values, values)) {
      // The same proposal: its title and body are rewritten only when what they show moved, as evidence-refresh.ts rules.
      const stamp = readEvidenceStamp(open.body);
      const refresh = evidenceRefresh({
        shown: { title: open.title, body: open.body, stamp }, rendered: { title, body: bodyAt(stamp?.at ?? evidenceAt), basis: proposal.basis }, now: evidenceAt,
      });
      if (refresh.action === 'unchanged') return { ...shown, action: 'unchanged' };
      if (refresh.action === 'wait') return { ...shown, action: 'unchanged', reason: `its evidence moved; it is refreshed from ${refresh.from}` };
      await host.updatePullRequest(open.number, { title, body, kind: noun });
      return { ...shown, action: 'refreshed', reason: refresh.why };
    }
    await host.commitFile(branch, place.headSha, edit.path, edit.after, proposal.commitMessage);
    await host.updatePullRequest(open.number, { title, body, kind: noun });
    return { ...shown, action: 'updated' };
  }
  if (limit && !limit.allows()) return { ...said, action: 'waiting', pullRequestUrl: undefined, reason: limit.reason };
  await host.commitFile(branch, place.headSha, edit.path, edit.after, proposal.commitMessage);
  const created = await host.createPullRequest({ branch, base: place.base, title, body, labels: proposalLabels(identity.kind), kind: noun });
  return { ...said, action: 'opened', pullRequest: created.number, pullRequestUrl: created.htmlUrl };
}
