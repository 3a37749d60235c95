// A merge queue's merge commit: planned like a pull request (the target's files it changes from the queue's base,
// against the live cluster, dry runs only) and given the same check on its SHA, with no comment (the queued pull
// requests carry theirs). A commit that changes none of the target's files gets a passing check all the same: a
// required check that never comes stalls the queue.
import type { ClusterPort, GitHistoryPort, ReviewHost, WriteOutcome } from '../engine/ports.ts';
import type { PassTarget } from '../engine/run-pass.ts';
import { planCheck, verdictCheck } from './render-check-run.ts';
import type { RepoLinks } from './render-plan-comment.ts';
import { planCommit, touchedFiles, validateContext } from './validate-pull-requests.ts';

export interface MergeGroupCheck {
  headSha: string;
  state: 'success' | 'failure';
  description: string;
  status: WriteOutcome;
}

export const noTargetFilesChanged = 'no volume changes: the merge queue changes none of this target\'s files';

export async function validateMergeGroup(input: {
  host: ReviewHost; repository: GitHistoryPort; target: PassTarget; cluster: ClusterPort; links: RepoLinks;
  mergeGroup: { headSha: string; baseSha: string };
}): Promise<MergeGroupCheck> {
  const { host, target, mergeGroup: { headSha, baseSha } } = input;
  const context = validateContext(target.name);
  const touched = touchedFiles(target, await host.changedFilesBetween(baseSha, headSha));
  if (touched.size === 0) {
    const status = await host.ensureCheck(headSha, verdictCheck(context, 'success', noTargetFilesChanged));
    return { headSha, state: 'success', description: noTargetFilesChanged, status };
  }
  const planned = await planCommit(input, headSha, touched);
  const status = await host.ensureCheck(headSha, planCheck({ context, ...planned }));
  return { headSha, state: planned.plan.state, description: planned.plan.description, status };
}
