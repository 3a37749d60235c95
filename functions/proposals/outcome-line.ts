// What became of a proposal, in one line for the CLI's report (`plan`, `reconcile`): its pull request's number, what
// it proposes and where it is, or why there is none. Pure.
import { change, type Medium } from '../domain/spelling.ts';
import { proposalAspect, proposalNoun } from './lifecycle/identity.ts';
import type { ProposalOutcome } from './proposal.ts';

const shown: Partial<Record<ProposalOutcome['action'], string>> = {
  opened: ' (opened)', updated: ' (updated)', refreshed: ' (evidence refreshed)', 'left-alone': ' (left alone: someone else pushed to its branch)',
};

/** `recovery pull request #12 proposes 100Gi -> 50Gi: https://github.com/acme/gitops/pull/12 (updated)`. */
export function outcomeLine(outcome: ProposalOutcome, medium: Medium): string {
  const noun = `${proposalNoun(outcome.kind)} pull request`;
  const aspect = proposalAspect(outcome.kind);
  if (outcome.pullRequest === undefined || outcome.pullRequestUrl === undefined) {
    return `no ${noun}${aspect === undefined ? '' : ` for the ${aspect}`}: ${outcome.reason ?? outcome.action}`;
  }
  const pull = `${noun} #${outcome.pullRequest}`;
  if (outcome.action === 'closed') return `${pull} closed: ${outcome.reason ?? ''}: ${outcome.pullRequestUrl}`;
  if (outcome.action === 'failed') return `${pull}: ${outcome.reason ?? 'failed'}: ${outcome.pullRequestUrl}`;
  const what = outcome.change ? ` proposes ${aspect === undefined ? '' : `${aspect} `}${change(outcome.change.from, outcome.change.to, medium)}` : '';
  return `${pull}${what}: ${outcome.pullRequestUrl}${shown[outcome.action] ?? ''}`;
}
