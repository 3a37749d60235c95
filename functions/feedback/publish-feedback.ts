// Feedback for one pass: PR checks before merge, progress after merge. Called by the edges after each pass.
import type { ClusterPort, GitHistoryPort, ReviewHost } from '../engine/ports.ts';
import type { PassReport, PassTarget } from '../engine/run-pass.ts';
import type { RepoLinks } from './render-plan-comment.ts';
import type { UsageSource } from '../usage/size-proposals.ts';
import type { RecoveryNotes } from './render-progress.ts';
import { reportProgress, type ProgressReport } from './report-progress.ts';
import { validateMergeGroup, type MergeGroupCheck } from './validate-merge-group.ts';
import { validatePullRequests, type FeedbackFailure, type PullRequestCheck, type WriteBackLinks } from './validate-pull-requests.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';

export interface FeedbackResult {
  checks: PullRequestCheck[];
  progress: ProgressReport[];
  /** The checks and comments of changes Git replaced before they were reached, saying how each ended. */
  endings: ProgressReport[];
  /** What could not be published (each isolated: everything else was). */
  failures: FeedbackFailure[];
  /** Items left for the next pass because the invocation ran short of time. */
  deferred: string[];
  /** Every write this step made to the review host, in order. */
  writes: string[];
  /** The check of a merge queue's commit, when the pass was asked for one. */
  mergeGroup?: MergeGroupCheck;
}

export async function publishFeedback(input: {
  host: ReviewHost; repository: GitHistoryPort; branch: string; links: RepoLinks; target: PassTarget;
  cluster: ClusterPort;
  /** The pass's report (progress after merge comes from it); none for a validate of one pull request or queue commit. */
  report?: PassReport; validatePullRequests: boolean; recoveryLinks?: ReadonlyMap<string, string>;
  /** Pull requests from forks: not planned (default) or planned with a verdict only. */
  forkPullRequests?: 'neutral' | 'validate';
  /** Whether there is time for one more pull request or StatefulSet (the budget the pass shares). */
  hasTime?: () => boolean;
  /** Why no recovery PR was opened, per `namespace/statefulset/template` and kind. */
  recoveryNotes?: RecoveryNotes;
  /** `namespace/statefulset/template` -> its write-back pull request (Git set to a size grown outside it). */
  writeBackLinks?: ReadonlyMap<string, string>;
  /** The pass's proposal outcomes, every kind: each template's open pull requests listed in its progress (render-progress.ts). */
  proposals?: readonly ProposalOutcome[];
  /** The same for the pull requests' checks, read only when a plan has a blocked "decrease" to link. */
  readWriteBackLinks?: WriteBackLinks;
  /** A merge queue's commit to check instead of the open pull requests (GitHub's `merge_group` delivery, nothing else). */
  mergeGroup?: { headSha: string; baseSha: string };
  /** Check this open pull request alone (a webhook event of its own). */
  onlyPullRequest?: number;
  /** The target's Prometheus: a size change's check shows its replicas' usage (one read for all the checks). */
  usage?: UsageSource;
  now?: () => Date;
}): Promise<FeedbackResult> {
  const { host, repository } = input;
  const writesBefore = host.writes.length;
  const failures: FeedbackFailure[] = [];
  const deferred: string[] = [];
  const budget = input.hasTime ? { hasTime: input.hasTime, deferred } : {};
  const usage = { ...(input.usage ? { usage: input.usage } : {}), ...(input.now ? { now: input.now } : {}) };
  const report = input.report;
  const endings: ProgressReport[] = [];
  const progress = report?.mode === 'apply'
    ? await reportProgress({ host, repository, target: input.target, branch: input.branch, report, failures, endings, ...budget, ...(input.recoveryLinks ? { recoveryLinks: input.recoveryLinks } : {}), ...(input.recoveryNotes ? { recoveryNotes: input.recoveryNotes } : {}), ...(input.writeBackLinks ? { writeBackLinks: input.writeBackLinks } : {}), ...(input.proposals ? { proposals: input.proposals } : {}) })
    : [];
  if (input.mergeGroup) {
    // A target that checks no pull request has no check for a queue to require either.
    const mergeGroup = input.validatePullRequests
      ? await validateMergeGroup({ host, repository, target: input.target, cluster: input.cluster, links: input.links, branch: input.branch, mergeGroup: input.mergeGroup, failures, ...usage })
      : undefined;
    return { checks: [], progress, endings, failures, deferred, writes: host.writes.slice(writesBefore), ...(mergeGroup ? { mergeGroup } : {}) };
  }
  const checks = input.validatePullRequests
    ? await validatePullRequests({ host, repository, target: input.target, cluster: input.cluster, branch: input.branch, links: input.links, failures, ...budget, ...usage, forks: input.forkPullRequests ?? 'neutral', ...(input.onlyPullRequest !== undefined ? { only: input.onlyPullRequest } : {}), writeBackLinks: input.readWriteBackLinks })
    : [];
  return { checks, progress, endings, failures, deferred, writes: host.writes.slice(writesBefore) };
}
