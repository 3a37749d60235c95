// Which open pull requests are this tool's proposals for a target: one listing of open pull requests from this
// repository's branches under the proposals' root, each kept only when its body's marker names a proposal whose
// branch, for this target, is the one it comes from (a fork's, another target's or a person's look-alike is not ours).
import type { ProposalPullRequest, ReviewHost } from '../../engine/ports.ts';
import type { ProposalOutcome } from '../proposal.ts';
import { proposalBranch, proposalBranchRoot, templateKey, type ProposalKindName } from './identity.ts';
import { readMarker, type ProposalMark } from './marker.ts';

export interface OpenProposal {
  pull: ProposalPullRequest;
  mark: ProposalMark;
}

export async function openProposals(host: ReviewHost, target: string): Promise<OpenProposal[]> {
  return (await host.openPullRequestsFromPrefix(proposalBranchRoot)).flatMap((pull) => {
    const mark = readMarker(pull.body);
    return mark && pull.headRef === proposalBranch(target, mark.identity) ? [{ pull, mark }] : [];
  });
}

/**
 * The open pull requests of `kinds` among a target's open proposals, as a pass that writes nothing (`plan`) reports
 * them: after a failure, the pull request that proposes a way out is what a person looks for next.
 */
export function openProposalOutcomes(open: readonly OpenProposal[], kinds: readonly ProposalKindName[]): ProposalOutcome[] {
  return open.filter(({ mark }) => kinds.includes(mark.identity.kind)).map(({ pull, mark }) => {
    const { from, to } = mark.values;
    return {
      key: templateKey(mark.identity), kind: mark.identity.kind, action: 'open', pullRequest: pull.number, pullRequestUrl: pull.htmlUrl,
      ...(from !== undefined && to !== undefined ? { change: { from, to } } : {}), title: pull.title,
    };
  });
}
