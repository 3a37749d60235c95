// A merge queue's merge commit (from GitHub's signed `merge_group` delivery only): planned like a pull request (the
// target's files it changes from the queue's base, against the live cluster, dry runs only) and given the same check
// on its SHA, with no comment (the queued pull requests carry theirs). A commit that changes none of the target's files
// gets a passing check all the same: a required check that never comes stalls the queue. A queue's commit is always
// one GitHub made for the queue, never a pull request's own head: a delivery naming an open pull request's head is
// refused, so a queue's verdict (measured from a base the delivery names) can never stand in for that pull request's.
import type { ClusterPort, GitHistoryPort, ReviewHost, WriteOutcome } from '../engine/ports.ts';
import type { PassTarget } from '../engine/run-pass.ts';
import type { UsageSource } from '../usage/size-proposals.ts';
import { planCheck, verdictCheck } from './render-check-run.ts';
import type { RepoLinks } from './render-plan-comment.ts';
import { planCommit, touchedFiles, validateContext, type FeedbackFailure } from './validate-pull-requests.ts';

export interface MergeGroupCheck {
  headSha: string;
  state: 'success' | 'failure';
  description: string;
  status: WriteOutcome;
}

export const noTargetFilesChanged = 'no volume changes: the merge queue changes none of this target\'s files';

/** The check of the queue's commit; undefined, with the reason in `failures`, when that commit is a pull request's head. */
export async function validateMergeGroup(input: {
  host: ReviewHost; repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; links: RepoLinks;
  /** The target's branch: the queue's base, which the pull requests it holds merge into. */
  branch: string;
  mergeGroup: { headSha: string; baseSha: string };
  failures: FeedbackFailure[];
  /** The target's Prometheus: the check shows the replicas' usage now and after. */
  usage?: UsageSource;
  now?: () => Date;
}): Promise<MergeGroupCheck | undefined> {
  const { host, target, mergeGroup: { headSha, baseSha } } = input;
  const context = validateContext(target.name);
  const pullRequest = (await host.openPullRequests(input.branch)).find((pr) => pr.headSha === headSha);
  if (pullRequest) {
    input.failures.push({
      item: `merge queue commit ${headSha}`,
      error: `refused: it is the head of open pull request #${pullRequest.number}, whose own check stands; GitHub's merge queue checks `
        + 'commits it made, so this delivery did not come from it (check who holds the webhook secret)',
    });
    return undefined;
  }
  const touched = touchedFiles(target, await host.changedFilesBetween(baseSha, headSha));
  if (touched.size === 0) {
    const status = await host.ensureCheck(headSha, verdictCheck(context, 'success', noTargetFilesChanged));
    return { headSha, state: 'success', description: noTargetFilesChanged, status };
  }
  const planned = await planCommit(input, headSha, touched);
  const status = await host.ensureCheck(headSha, planCheck({ context, ...planned }));
  return { headSha, state: planned.plan.state, description: planned.plan.description, status };
}
