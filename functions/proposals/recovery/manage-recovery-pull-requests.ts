// Recovery pull requests for terminal failures: a size after a failed expansion (KEP-1790, size-recovery.ts), the class
// the volumes have after a refused modification (KEP-3751, class-recovery.ts), one pull request per template and kind,
// through the proposals lifecycle (lifecycle/manage-proposals.ts): updated in place when the proposal changes, never
// over a person's push, not proposed again after a person closed it unmerged, closed with a reason when no longer
// needed (recovery-kinds.ts).
import type { ReviewHost } from '../../engine/ports.ts';
import { listedProposals, manageProposals, type ProposalCandidate, type ProposalsResult } from '../lifecycle/manage-proposals.ts';
import { templateKey } from '../lifecycle/identity.ts';
import type { OpenProposal } from '../lifecycle/pull-requests.ts';
import type { ProposalAction, ProposalOutcome } from '../proposal.ts';
import type { RecoveryDecision } from './choose-recovery-size.ts';
import { hasClassFailure, proposeClassRecovery } from './class-recovery.ts';
import { recoveryKinds } from './recovery-kinds.ts';
import { hasTerminalFailure } from './failed-claims.ts';
import { proposeSizeRecovery, type RecoveryContext } from './size-recovery.ts';

export type RecoveryAction = ProposalAction;

export interface RecoveryOutcome extends ProposalOutcome {
  /** A size recovery's choice (KEP-1790), when one was made this pass. */
  decision: RecoveryDecision | undefined;
}

export type RecoveryResult = ProposalsResult<RecoveryOutcome>;

export async function manageRecoveryPullRequests(input: RecoveryContext & {
  host: ReviewHost;
  /** The target's open proposals, listed once for the pass (lifecycle/pull-requests.ts). */
  open: readonly OpenProposal[];
  /** Whether there is time for one more template (a proposal makes up to six GitHub calls). */
  hasTime?: () => boolean;
}): Promise<RecoveryResult> {
  const decisions = new Map<string, RecoveryDecision>();
  const candidates: ProposalCandidate[] = [];
  for (const sts of input.report.statefulSets) {
    for (const template of sts.templates) {
      const ref = { namespace: sts.namespace, statefulSet: sts.name, template: template.templateName };
      if (hasTerminalFailure(template)) {
        const identity = { kind: 'size-recovery' as const, ...ref };
        candidates.push({
          identity,
          propose: async () => {
            const { proposing, decision } = await proposeSizeRecovery(input, identity, sts, template);
            if (decision) decisions.set(templateKey(identity), decision);
            return proposing;
          },
        });
      }
      if (hasClassFailure(template)) {
        const identity = { kind: 'class-recovery' as const, ...ref };
        candidates.push({ identity, propose: () => proposeClassRecovery(input, identity, sts, template) });
      }
    }
  }
  const result = await manageProposals({
    host: input.host, place: { target: input.target.name, base: input.branch, headSha: input.report.commitSha }, report: input.report, kinds: recoveryKinds, candidates, open: input.open, hasTime: input.hasTime,
  });
  return { ...result, outcomes: result.outcomes.map((o) => ({ ...o, decision: o.kind === 'size-recovery' ? decisions.get(o.key) : undefined })) };
}

/** The target's open recovery pull requests among its open proposals, for a pass that writes nothing (`plan`). */
export function openRecoveryPullRequests(open: readonly OpenProposal[]): RecoveryResult {
  const listed = listedProposals(open, recoveryKinds.map((k) => k.name));
  return { ...listed, outcomes: listed.outcomes.map((o): RecoveryOutcome => ({ ...o, decision: undefined })) };
}
