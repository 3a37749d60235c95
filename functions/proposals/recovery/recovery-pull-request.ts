// A recovery pull request's lifecycle, whatever it proposes (a size after a failed expansion, a class after a refused
// modification): one deterministic branch per template, one commit that changes one value's bytes, the proposal
// marked in the body so that it is updated only when it changes and never re-proposed after a person declined it.
import type { ReviewHost } from '../../engine/ports.ts';
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';
import type { RecoveryDecision } from './choose-recovery-size.ts';

export type RecoveryAction = 'opened' | 'updated' | 'unchanged' | 'left-alone' | 'declined-before' | 'impossible' | 'closed' | 'failed';

export interface RecoveryOutcome {
  key: string;
  action: RecoveryAction;
  decision: RecoveryDecision | undefined;
  pullRequestUrl: string | undefined;
  title?: string;
  body?: string;
  /** The one-line change, as a unified diff fragment. */
  diff?: string;
  reason?: string;
}

export function recoveryBranch(target: string, namespace: string, statefulSet: string, template: string): string {
  return `sts-volume-gitops/recover/${target}/${namespace}/${statefulSet}/${template}`;
}

export function marker(key: string, failed: string, proposed: string): string {
  return `<!-- sts-volume-gitops:recovery key=${key} failed=${failed} proposed=${proposed} -->`;
}

/** The one-line change of a recovery, as a unified diff fragment. */
export function oneLineDiff(path: string, line: number, before: string, after: string): string {
  return `--- a/${path}\n+++ b/${path}\n@@ line ${line} @@\n-${before.split('\n')[line - 1] ?? ''}\n+${after.split('\n')[line - 1] ?? ''}`;
}

/**
 * A recovery pull request's lifecycle, whatever it proposes: never re-proposed after being closed unmerged, never
 * over a person's push, rewritten only when the proposal changes.
 */
export async function publishRecovery(args: {
  host: ReviewHost; branch: string; base: string; headSha: string; key: string; path: string; proposed: string; proposalMarker: string;
  title: string; body: string; diff: string; updated: string; message: string;
}): Promise<Omit<RecoveryOutcome, 'decision'>> {
  const { host, branch, key, title, body, diff } = args;
  const existing = await host.pullRequestsFrom(branch);
  if (existing.some((p) => p.state === 'closed' && !p.merged && !p.closedByTool && p.body.includes(args.proposalMarker))) {
    return { key, action: 'declined-before', pullRequestUrl: undefined, reason: `a recovery to ${args.proposed} was closed without merging; it is not proposed again` };
  }
  const open = existing.find((p) => p.state === 'open');
  if (open) {
    if (await host.branchHeadIsOurs(branch) !== true) {
      await host.ensureComment(open.number, `recovery-human:${key}`,
        `sts-volume-gitops would now propose **${escapeMarkdown(args.proposed)}**, but someone else pushed to \`${escapeMarkdown(branch)}\`, so the branch is left alone. Merge, edit or close this pull request as you see fit.`);
      return { key, action: 'left-alone', pullRequestUrl: open.htmlUrl, title, body, diff };
    }
    if (open.body.includes(args.proposalMarker)) return { key, action: 'unchanged', pullRequestUrl: open.htmlUrl, title, body, diff };
    await host.commitFile(branch, args.headSha, args.path, args.updated, args.message);
    await host.updatePullRequest(open.number, title, body);
    return { key, action: 'updated', pullRequestUrl: open.htmlUrl, title, body, diff };
  }
  await host.commitFile(branch, args.headSha, args.path, args.updated, args.message);
  const created = await host.createPullRequest(branch, args.base, title, body);
  return { key, action: 'opened', pullRequestUrl: created.htmlUrl, title, body, diff };
}

