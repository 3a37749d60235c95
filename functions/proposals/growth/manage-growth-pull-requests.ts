// Growth pull requests for a target's pass: one per template whose growth decision says grow (PassReport.growth),
// through the proposals lifecycle (updated in place, never duplicated, a person's close respected, closed when usage
// fell: growth-kind.ts). Chosen fullest first, at most `openAtOnce` open at once; a template whose size a person's open
// pull request already changes gets a comment there instead of a rival pull request.
import type { ReviewHost, GitHistoryPort, OpenPullRequest } from '../../engine/ports.ts';
import { escapeMarkdown } from '../../feedback/escape-markdown.ts';
import { forEachItem } from '../../feedback/for-each-item.ts';
import { editableValueIn } from '../edits/editable-value.ts';
import { proposalBranchRoot, templateKey, type ProposalIdentity } from '../lifecycle/identity.ts';
import type { OpenProposal } from '../lifecycle/pull-requests.ts';
import { manageProposals, type ProposalCandidate, type ProposalsResult } from '../lifecycle/manage-proposals.ts';
import type { ProposalOutcome } from '../proposal.ts';
import { growthKind } from './growth-kind.ts';
import { growthPath, proposeGrowth, type GrowthContext } from './growth-proposal.ts';
import { causeWords, type Growth } from './growth-texts.ts';

export async function manageGrowthPullRequests(input: GrowthContext & {
  host: ReviewHost;
  /** The branch proposals go into (the target's). */
  branch: string;
  /** Growth pull requests open at once for the target (the target's `growth.openAtOnce`). */
  openAtOnce: number;
  /** The target's open proposals, listed once for the pass (lifecycle/pull-requests.ts). */
  open: readonly OpenProposal[];
  hasTime?: () => boolean;
}): Promise<ProposalsResult> {
  const { host, report } = input;
  // The evidence a growth pull request shows is usage as read this pass: its stamp is that read's time.
  const place = { target: input.target.name, base: input.branch, headSha: report.commitSha, evidenceAt: report.usage?.at };
  const growths = fullestFirst(input, (report.growth ?? []).filter((g): g is Growth => g.action === 'grow'));
  const rivals = growths.length === 0 ? new Map<string, OpenPullRequest>() : await rivalPullRequests(host, input.repository, input.branch, growths, input.target);
  const candidates: ProposalCandidate[] = [];
  const rivalled: Array<{ decision: Growth; pull: OpenPullRequest }> = [];
  for (const decision of growths) {
    const identity: ProposalIdentity = { kind: 'growth', namespace: decision.namespace, statefulSet: decision.statefulSet, template: decision.template };
    const rival = rivals.get(templateKey(identity));
    if (rival) rivalled.push({ decision, pull: rival });
    else candidates.push({ identity, propose: () => proposeGrowth(input, identity, decision) });
  }
  const result = await manageProposals({ host, place, report, kinds: [growthKind], candidates, open: input.open, hasTime: input.hasTime, openAtOnce: input.openAtOnce });
  const writesBefore = host.writes.length;
  const commented = await forEachItem(rivalled, {
    hasTime: input.hasTime,
    onDeferred: ({ decision }) => result.deferred.push(`growth comment for ${templateKey(decision)}`),
    onFailed: ({ decision, pull }, error): ProposalOutcome => ({
      key: templateKey(decision), kind: 'growth', action: 'failed', pullRequestUrl: undefined, change: { from: decision.from, to: decision.to },
      reason: `could not comment on pull request #${pull.number}, which already changes this size: ${error}`,
    }),
  }, async ({ decision, pull }): Promise<ProposalOutcome> => {
    await host.ensureComment(pull.number, `growth:${templateKey(decision)}`, rivalComment(decision));
    return {
      key: templateKey(decision), kind: 'growth', action: 'left-alone', pullRequestUrl: undefined, change: { from: decision.from, to: decision.to },
      reason: `pull request #${pull.number} already changes this size (${pull.htmlUrl}); a comment there says what growth would propose`,
    };
  });
  result.writes.push(...host.writes.slice(writesBefore));
  return { ...result, outcomes: [...result.outcomes, ...commented] };
}

/** Fullest first: the triggering replica's share used (bytes or inodes), then the one filling soonest. */
function fullestFirst(input: GrowthContext, growths: Growth[]): Growth[] {
  const fullness = (g: Growth): number => {
    const replica = input.report.usage?.templates.find((t) => t.namespace === g.namespace && t.statefulSet === g.statefulSet && t.template === g.template)
      ?.replicas.find((r) => r.claim === g.because.claim);
    return Math.max(replica?.usedPercent ?? 0, replica?.inodesPercent ?? 0);
  };
  return [...growths].sort((a, b) => fullness(b) - fullness(a));
}

/**
 * The open pull requests (a person's: not a proposal's branch of ours) that already change a growing template's size:
 * they touch the file it lives in, and at their head it is another value than the one growth grows from.
 */
async function rivalPullRequests(
  host: ReviewHost, repository: GitHistoryPort, base: string, growths: readonly Growth[], target: GrowthContext['target'],
): Promise<Map<string, OpenPullRequest>> {
  const rivals = new Map<string, OpenPullRequest>();
  const paths = new Set(growths.map(growthPath));
  for (const pull of await host.openPullRequests(base)) {
    if (!pull.fromFork && pull.headRef.startsWith(proposalBranchRoot)) continue;
    const touched = (await host.changedFiles(pull.number)).filter((path) => paths.has(path));
    for (const path of touched) {
      const text = await repository.fileAt(pull.headSha, path);
      for (const decision of growths.filter((g) => growthPath(g) === path && !rivals.has(templateKey(g)))) {
        const value = text === undefined ? undefined : editableValueIn(text, path, decision, 'storage', target);
        if (value?.value !== decision.from) rivals.set(templateKey(decision), pull);
      }
    }
  }
  return rivals;
}

function rivalComment(decision: Growth): string {
  return `sts-volume-gitops would propose growing ${escapeMarkdown(`${decision.namespace}/${decision.statefulSet}`)} \`${decision.template}\` `
    + `to **${escapeMarkdown(decision.to)}** (${escapeMarkdown(causeWords(decision.because))}), but this pull request already changes that size, `
    + 'so no growth pull request is opened beside it. Merge this one, or set the size you want here.';
}
