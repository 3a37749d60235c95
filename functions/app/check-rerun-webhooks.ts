// "Re-run" on one of this tool's check runs (`check_run` `rerequested`) or "Re-run all checks" on a commit
// (`check_suite` `rerequested`): GitHub resets the suite to queued and leaves the runs as they were, waiting for the App
// to answer. The answer is the check again, now: a pull request's check plans that pull request again (a quota raised
// since is seen at once, not at the next schedule), a progress check runs a pass. Only this tool's own runs count: the
// App that made them is the target's App (a repository webhook also hears other Apps' suites), and their names are
// this tool's (`sts-volume-gitops/validate (<target>)`, `sts-volume-gitops/<target>/<namespace>/<name>`). A merge
// queue commit's check is not re-run from here: the body names no base commit GitHub vouches for (only `merge_group`
// does, merge-queue-webhooks.ts), and GitHub checks the commit again when the pull request is queued again. The
// message carries which run to answer (`rerun`), so the pass writes a new run of it even when the verdict is unchanged.
// Pure, over deliveries whose shape webhook-payloads.ts has checked.
import type { TargetConfig } from '../domain/config.ts';
import { isProgressContextOf, validateContext } from '../feedback/check-names.ts';
import { queuedMessage, type QueuedTargetMessage, type RerunRef, type TargetMessage } from './target-messages.ts';
import type { CheckRunDelivery, CheckSuiteDelivery } from './webhook-payloads.ts';

export type CheckRerunDecision = { kind: 'enqueue'; messages: QueuedTargetMessage[] } | { kind: 'ignore'; reason: string };

const queueBranchPrefix = 'gh-readonly-queue/';

const queueCheckNotRerun = 'a merge queue commit\'s check runs again when its pull request is queued again (GitHub then sends merge_group, '
  + 'naming the queue\'s base commit); a re-run names no base commit GitHub vouches for';

function branchOf(target: TargetConfig): string {
  return 'github' in target.source ? target.source.github.branch : '';
}

function appIdOf(target: TargetConfig): number | undefined {
  return 'github' in target.source ? target.source.github.app?.appId : undefined;
}

/**
 * What re-checking `sha` for `target` takes: a validation of each pull request GitHub lists into its branch; a pass when
 * the commit is on the branch itself; with neither, a validation of every open pull request (a fork's pull request is
 * never listed on a check suite), unless the commit is a merge queue's.
 */
function recheck(target: TargetConfig, delivery: CheckRunDelivery | CheckSuiteDelivery, rerun: RerunRef, wantPass: boolean): TargetMessage[] | string {
  const branch = branchOf(target);
  const pulls = delivery.pullRequests.filter((pr) => pr.baseRef === branch);
  const trigger = delivery.event;
  if (pulls.length > 0) return pulls.map((pr) => ({ target: target.name, action: 'validate', trigger, pullRequest: pr.number, rerun }));
  if (wantPass && delivery.headBranch === branch) return [{ target: target.name, action: 'pass', trigger, rerun }];
  if (delivery.headBranch?.startsWith(queueBranchPrefix) === true) return queueCheckNotRerun;
  if (delivery.headBranch !== null) return `no open pull request into ${branch} has ${delivery.headSha.slice(0, 7)} (${delivery.headBranch}) as its head`;
  return [{ target: target.name, action: 'validate', trigger, rerun }];
}

export function checkRerunMessages(targets: readonly TargetConfig[], delivery: CheckRunDelivery | CheckSuiteDelivery, deliveryId: string): CheckRerunDecision {
  if (delivery.action !== 'rerequested') {
    return { kind: 'ignore', reason: delivery.action === 'requested_action' ? 'this tool offers no actions on its check runs' : `${delivery.event} ${delivery.action} asks for no check` };
  }
  const ours = targets.filter((t) => appIdOf(t) === delivery.appId);
  if (ours.length === 0) return { kind: 'ignore', reason: `the ${delivery.event === 'check_run' ? 'check run' : 'check suite'} is GitHub App ${delivery.appId}'s, which no target of ${delivery.repository} runs as` };
  // A redelivery of the same delivery is the same request; another click on Re-run is a new one.
  const key = `rerun-${delivery.headSha}-${deliveryId}`;
  const messages: QueuedTargetMessage[] = [];
  const reasons: string[] = [];
  for (const target of ours) {
    let found: TargetMessage[] | string;
    if (delivery.event === 'check_suite') {
      found = recheck(target, delivery, { sha: delivery.headSha }, true);
    } else if (delivery.name === validateContext(target.name)) {
      found = recheck(target, delivery, { sha: delivery.headSha, check: delivery.name }, false);
    } else if (isProgressContextOf(target.name, delivery.name)) {
      // Progress is what a pass reports: the pass reads the cluster again and rewrites the check.
      found = [{ target: target.name, action: 'pass', trigger: delivery.event, rerun: { sha: delivery.headSha, check: delivery.name } }];
    } else {
      continue;
    }
    if (typeof found === 'string') reasons.push(found);
    else messages.push(...found.map((body) => queuedMessage(target, body, `${key}${body.pullRequest === undefined ? '' : `-pr-${body.pullRequest}`}`)));
  }
  if (messages.length > 0) return { kind: 'enqueue', messages };
  if (reasons.length > 0) return { kind: 'ignore', reason: reasons.join('; ') };
  return { kind: 'ignore', reason: `check run ${JSON.stringify(delivery.event === 'check_run' ? delivery.name : '')} is not one of this tool's checks` };
}
