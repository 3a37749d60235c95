// A recovery pull request's lifecycle, whatever it proposes (a size after a failed expansion, a class after a refused
// modification): one deterministic branch per template, one commit that changes one value's bytes, the proposal
// marked in the body so that it is updated only when it changes and never re-proposed after a person declined it.
import type { ReviewHost } from '../../engine/ports.ts';
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';
import {
  isClosedByTool, proposalBranch, proposalLabels, proposalNoun, templateKey, type ProposalIdentity, type ProposalKindName,
} from '../lifecycle/identity.ts';
import { readMarker, sameValues, writeMarker, type ProposalValues } from '../lifecycle/marker.ts';
import type { RecoveryDecision } from './choose-recovery-size.ts';

export type RecoveryAction = 'opened' | 'updated' | 'unchanged' | 'left-alone' | 'declined-before' | 'impossible' | 'closed' | 'failed';

export interface RecoveryOutcome {
  /** The template's `namespace/statefulset/template`. */
  key: string;
  kind: ProposalKindName;
  action: RecoveryAction;
  decision: RecoveryDecision | undefined;
  pullRequestUrl: string | undefined;
  title?: string;
  body?: string;
  /** The one-line change, as a unified diff fragment. */
  diff?: string;
  reason?: string;
}

/** The proposal a pull request's body marks, when it is `identity`'s with `values`. */
function proposes(body: string, identity: ProposalIdentity, values: ProposalValues): boolean {
  const mark = readMarker(body);
  return mark !== undefined && templateKey(mark.identity) === templateKey(identity) && mark.identity.kind === identity.kind && sameValues(mark.values, values);
}

/**
 * A recovery pull request's lifecycle, whatever it proposes: never re-proposed after being closed unmerged, never
 * over a person's push, rewritten only when the proposal changes.
 */
export async function publishRecovery(args: {
  host: ReviewHost; target: string; identity: ProposalIdentity; values: ProposalValues; base: string; headSha: string; path: string; proposed: string;
  title: string; body: string; diff: string; updated: string; message: string;
}): Promise<Omit<RecoveryOutcome, 'decision'>> {
  const { host, identity, title, diff } = args;
  const key = templateKey(identity);
  const kind = proposalNoun(identity.kind);
  const branch = proposalBranch(args.target, identity);
  const body = `${writeMarker({ identity, values: args.values })}\n${args.body}`;
  const existing = await host.pullRequestsFrom(branch);
  if (existing.some((p) => p.state === 'closed' && !p.merged && !isClosedByTool(p) && proposes(p.body, identity, args.values))) {
    return { key, kind: identity.kind, action: 'declined-before', pullRequestUrl: undefined, reason: `a recovery to ${args.proposed} was closed without merging; it is not proposed again` };
  }
  const open = existing.find((p) => p.state === 'open');
  if (open) {
    if (await host.branchHeadIsOurs(branch) !== true) {
      await host.ensureComment(open.number, `recovery-human:${key}`,
        `sts-volume-gitops would now propose **${escapeMarkdown(args.proposed)}**, but someone else pushed to \`${escapeMarkdown(branch)}\`, so the branch is left alone. Merge, edit or close this pull request as you see fit.`);
      return { key, kind: identity.kind, action: 'left-alone', pullRequestUrl: open.htmlUrl, title, body, diff };
    }
    if (proposes(open.body, identity, args.values)) return { key, kind: identity.kind, action: 'unchanged', pullRequestUrl: open.htmlUrl, title, body, diff };
    await host.commitFile(branch, args.headSha, args.path, args.updated, args.message);
    await host.updatePullRequest(open.number, { title, body, kind });
    return { key, kind: identity.kind, action: 'updated', pullRequestUrl: open.htmlUrl, title, body, diff };
  }
  await host.commitFile(branch, args.headSha, args.path, args.updated, args.message);
  const created = await host.createPullRequest({ branch, base: args.base, title, body, labels: proposalLabels(identity.kind), kind });
  return { key, kind: identity.kind, action: 'opened', pullRequestUrl: created.htmlUrl, title, body, diff };
}
