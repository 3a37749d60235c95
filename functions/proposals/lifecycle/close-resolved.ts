// Closing the proposals no longer needed: an open pull request of a kind this pass manages, for a template it did not
// propose for, is closed with a comment saying why, when its kind finds the reason in the pass (positive evidence
// only), and labelled so that its closure is never read as a person declining it. One that cannot be closed (locked,
// a 403) is reported; the others are still closed.
import type { PassReport } from '../../engine/report/pass-report.ts';
import type { ReviewHost } from '../../engine/ports.ts';
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';
import { forEachItem } from '../../feedback/for-each-item.ts';
import type { ProposalKind, ProposalOutcome } from '../proposal.ts';
import { closedByToolLabel, proposalNoun, templateKey } from './identity.ts';
import type { OpenProposal } from './pull-requests.ts';

export async function closeNoLongerNeeded(input: {
  host: ReviewHost; report: PassReport; kinds: readonly ProposalKind[];
  /** The open proposals of the target (lifecycle/pull-requests.ts) this pass did not propose for. */
  others: readonly OpenProposal[];
}): Promise<ProposalOutcome[]> {
  const { host, report } = input;
  const resolved = input.others.flatMap((open) => {
    const kind = input.kinds.find((k) => k.name === open.mark.identity.kind);
    const reason = kind?.resolution(report, open.mark);
    return reason === undefined ? [] : [{ ...open, reason }];
  });
  return forEachItem(resolved, {
    onDeferred: () => undefined,
    onFailed: ({ pull, mark, reason }, error): ProposalOutcome => ({
      key: templateKey(mark.identity), kind: mark.identity.kind, action: 'failed', pullRequest: pull.number, pullRequestUrl: pull.htmlUrl,
      reason: `could not close it (${reason}): ${error}`,
    }),
  }, async ({ pull, mark, reason }): Promise<ProposalOutcome> => {
    const noun = proposalNoun(mark.identity.kind);
    await host.closePullRequest(pull.number, { comment: `Closing: ${escapeMarkdown(reason)}, so this ${noun} is no longer needed.`, branch: pull.headRef, label: closedByToolLabel, kind: noun });
    return { key: templateKey(mark.identity), kind: mark.identity.kind, action: 'closed', pullRequest: pull.number, pullRequestUrl: pull.htmlUrl, reason };
  });
}
