// Write-back pull requests: one per template whose live size is larger than Git for good (the pass's
// `report.writeBack`, usage/write-back.ts), through the proposals lifecycle (lifecycle/manage-proposals.ts): updated
// in place when Git or the live size moves, never duplicated, closed with a comment once Git says at least the live
// size, a person's close respected until the live size grows further (write-back-kind.ts).
import type { ProposalPullRequest, ReviewHost } from '../../engine/ports.ts';
import { manageProposals, type ProposalsResult } from '../lifecycle/manage-proposals.ts';
import { proposalBranch } from '../lifecycle/identity.ts';
import type { OpenProposal } from '../lifecycle/pull-requests.ts';
import { proposeWriteBack, type WriteBackContext } from './propose-write-back.ts';
import { writeBackKind } from './write-back-kind.ts';

export async function manageWriteBackPullRequests(input: WriteBackContext & {
  host: ReviewHost;
  branch: string;
  /** The target's open proposals, listed once for the pass (lifecycle/pull-requests.ts). */
  open: readonly OpenProposal[];
  /** The write-back branches' pull requests this pass's holds already read (write-back-holds.ts): not listed again. */
  listed?: ReadonlyMap<string, readonly ProposalPullRequest[]>;
  /** Whether there is time for one more template (a proposal makes up to six GitHub calls). */
  hasTime?: () => boolean;
}): Promise<ProposalsResult> {
  const { report } = input;
  const candidates = (report.writeBack ?? []).map((decision) => {
    const identity = { kind: 'write-back' as const, namespace: decision.namespace, statefulSet: decision.statefulSet, template: decision.template };
    const template = report.statefulSets.find((s) => s.namespace === decision.namespace && s.name === decision.statefulSet)?.templates.find((t) => t.templateName === decision.template);
    return { identity, propose: () => proposeWriteBack(input, identity, decision, template), pulls: input.listed?.get(proposalBranch(input.target.name, identity)) };
  });
  return manageProposals({
    host: input.host, place: { target: input.target.name, base: input.branch, headSha: report.commitSha }, report, kinds: [writeBackKind], candidates, open: input.open, hasTime: input.hasTime,
  });
}
