// The pull requests a pass's proposals opened and closed, per kind (the Lambda's metrics): read off the outcomes every
// kind's step returns from the lifecycle, so a kind added later is counted without naming it anywhere.
import type { ProposalOutcome } from '../proposal.ts';
import type { ProposalKindName } from './identity.ts';

export interface PullRequestCount {
  kind: ProposalKindName;
  opened: number;
  closed: number;
}

/** Per kind, in the order the kinds first appear; a kind that opened and closed nothing is left out. */
export function pullRequestCounts(outcomes: readonly ProposalOutcome[]): PullRequestCount[] {
  const byKind = new Map<ProposalKindName, PullRequestCount>();
  for (const { kind, action } of outcomes) {
    if (action !== 'opened' && action !== 'closed') continue;
    const count = byKind.get(kind) ?? { kind, opened: 0, closed: 0 };
    count[action] += 1;
    byKind.set(kind, count);
  }
  return [...byKind.values()];
}
