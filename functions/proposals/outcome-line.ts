// What became of a proposal, in one line for the CLI's report (`plan`, `reconcile`): its pull request's number, what
// it proposes and where it is, or why there is none; and a template's open proposals of every kind, in one line of
// Markdown for the progress comment and check. Pure.
import { change, type Medium } from '../domain/spelling.ts';
import { escapeMarkdown } from '../feedback/escape-markdown.ts';
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

/** The actions after which a proposal's pull request is open (found open by `plan`, or opened or kept by this pass). */
const stillOpen: ReadonlySet<ProposalOutcome['action']> = new Set(['opened', 'updated', 'refreshed', 'unchanged', 'left-alone', 'open']);

/** This pass's outcomes whose pull request is open, of any kind. */
export function openOutcomes(outcomes: readonly ProposalOutcome[]): ProposalOutcome[] {
  return outcomes.filter((o) => stillOpen.has(o.action) && o.pullRequest !== undefined && o.pullRequestUrl !== undefined);
}

/**
 * A template's open proposals, every kind in one line (`outcomes` already the template's): `Open pull requests:
 * [growth pull request #14](url) proposes 10Gi → 15Gi; [write-back pull request #15](url) proposes 10Gi → 12Gi.`;
 * undefined when none is open.
 */
export function openProposalsLine(outcomes: readonly ProposalOutcome[]): string | undefined {
  const links = openOutcomes(outcomes).map((o) => {
    const aspect = proposalAspect(o.kind);
    const what = o.change ? ` proposes ${aspect === undefined ? '' : `${aspect} `}${escapeMarkdown(change(o.change.from, o.change.to, 'github'))}` : '';
    return `[${proposalNoun(o.kind)} pull request #${o.pullRequest ?? ''}](${o.pullRequestUrl ?? ''})${what}`;
  });
  return links.length === 0 ? undefined : `Open pull requests: ${links.join('; ')}.`;
}
