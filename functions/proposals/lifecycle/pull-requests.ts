// Which open pull requests are this tool's proposals for a target: one listing of open pull requests from this
// repository's branches under the proposals' root, each kept only when its body's marker names a proposal whose
// branch, for this target, is the one it comes from (a fork's, another target's or a person's look-alike is not ours).
import type { ProposalPullRequest, ReviewHost } from '../../engine/ports.ts';
import { proposalBranch, proposalBranchRoot } from './identity.ts';
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
