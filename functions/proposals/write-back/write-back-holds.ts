// Which live templates grown outside Git a pass holds for their write-back (engine/plan/write-back-hold.ts): each template
// the plan would shrink back whose write-back decision (usage/write-back.ts) finds the live template grown, unless a
// person closed that write-back unmerged for this size (declined, as the lifecycle reads it: Git wins, and the pass
// applies Git as before). One listing of the template's write-back branch per such template, none for the others,
// kept in `read` for the pass's write-back step (manage-write-back-pull-requests.ts), which does not list it again.
import type { ProposalPullRequest, ReviewHost } from '../../engine/ports.ts';
import { shrinksLiveTemplate, type HeldTemplate, type WriteBackHolds } from '../../engine/plan/write-back-hold.ts';
import { decideWriteBack } from '../../usage/write-back.ts';
import { declinedAmong } from '../lifecycle/ensure-proposal.ts';
import { proposalBranch, type ProposalIdentity } from '../lifecycle/identity.ts';
import { writeBackKind } from './write-back-kind.ts';

/** The pull requests from write-back branches (by branch) a pass's holds read. */
export type WriteBackBranchPulls = Map<string, readonly ProposalPullRequest[]>;

export function writeBackHolds(host: ReviewHost, target: string, read: WriteBackBranchPulls, onEvent?: (line: string) => void): WriteBackHolds {
  return async (plans) => {
    const held: HeldTemplate[] = [];
    for (const sts of plans) {
      for (const template of sts.templates) {
        if (!shrinksLiveTemplate(template)) continue;
        const decision = decideWriteBack(sts, template);
        if (!decision?.found.some((f) => f.where === 'template')) continue;
        const identity: ProposalIdentity = { kind: 'write-back', namespace: sts.namespace, statefulSet: sts.name, template: template.templateName };
        const branch = proposalBranch(target, identity);
        const pulls = await host.pullRequestsFrom(branch).then((listed) => {
          read.set(branch, listed);
          return listed;
        }, (error: unknown) => {
          // Not known whether a person declined it: the template is held (nothing written) and the next pass reads again.
          onEvent?.(`write-back pull requests not read: ${error instanceof Error ? error.message : String(error)}; ${sts.namespace}/${sts.name} ${template.templateName} held`);
          return [];
        });
        if (declinedAmong(pulls, identity, writeBackKind, { from: decision.git, to: decision.to })) continue;
        held.push({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName });
      }
    }
    return held;
  };
}
