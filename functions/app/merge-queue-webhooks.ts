// The deliveries that ask for checks outside a pull request's own pushes: a merge queue's merge commit
// (`merge_group` `checks_requested`, or the push of its `gh-readonly-queue/<base>/pr-<n>-<sha>` branch, whichever
// arrives) and a pull request whose base branch was changed (`pull_request` `edited` with `changes.base`). A required
// check that never lands on the queue's commit stalls the queue. Pure.
import type { TargetConfig } from '../domain/config.ts';
import { queuedMessage, type QueuedTargetMessage } from './target-messages.ts';

interface MergeGroupPayload { action?: string; merge_group?: { head_sha?: string; base_sha?: string; base_ref?: string } }
interface QueuePushPayload { ref?: string; before?: string; after?: string; deleted?: boolean }

/** GitHub names the queue's branches `gh-readonly-queue/<base branch>/pr-<number>-<SHA of the commit it is built on>`. */
const queueBranch = /^refs\/heads\/gh-readonly-queue\/(.+)\/pr-\d+-([0-9a-f]{40})$/;
const sha = /^[0-9a-f]{40}$/;

export type MergeQueueDecision = { kind: 'enqueue'; messages: QueuedTargetMessage[] } | { kind: 'ignore'; reason: string };

/** Whether a delivery is a merge queue's: a `merge_group`, or a push to a queue branch. */
export function isMergeQueueDelivery(event: string, payload: unknown): boolean {
  return event === 'merge_group' || (event === 'push' && queueBranch.test((payload as QueuePushPayload).ref ?? ''));
}

/** A validate of the queue's merge commit for each target following its base branch (one message per commit). */
export function mergeQueueMessages(targets: readonly TargetConfig[], event: string, payload: unknown): MergeQueueDecision {
  let base: string | undefined;
  let headSha: string | undefined;
  let baseSha: string | undefined;
  if (event === 'merge_group') {
    const group = payload as MergeGroupPayload;
    if (group.action !== 'checks_requested') return { kind: 'ignore', reason: `merge_group ${group.action ?? '?'} asks for no check` };
    base = group.merge_group?.base_ref?.replace(/^refs\/heads\//, '');
    headSha = group.merge_group?.head_sha;
    baseSha = group.merge_group?.base_sha;
  } else {
    const push = payload as QueuePushPayload;
    if (push.deleted === true) return { kind: 'ignore', reason: `${push.ref ?? '?'} was deleted (the queue is done with it)` };
    const match = queueBranch.exec(push.ref ?? '');
    base = match?.[1];
    baseSha = match?.[2];
    headSha = push.after;
  }
  if (headSha === undefined || !sha.test(headSha) || baseSha === undefined || !sha.test(baseSha)) {
    return { kind: 'ignore', reason: `${event}: the merge queue's head or base commit is not a SHA` };
  }
  const matched = targets.filter((t) => 'github' in t.source && t.source.github.branch === base);
  if (matched.length === 0) return { kind: 'ignore', reason: `no target follows ${base ?? '?'}, the merge queue's base` };
  const mergeGroup = { headSha, baseSha };
  // Both deliveries of one queue entry share the deduplication key: the queue gets one check.
  return { kind: 'enqueue', messages: matched.map((t) => queuedMessage(t, { target: t.name, action: 'validate', trigger: event, mergeGroup }, `merge-group-${headSha}`)) };
}

/** `pull_request` `edited` with `changes.base`: the pull request now merges elsewhere and is checked again. */
export function isBaseChange(action: string | undefined, payload: unknown): boolean {
  return action === 'edited' && typeof (payload as { changes?: { base?: unknown } }).changes?.base === 'object';
}
