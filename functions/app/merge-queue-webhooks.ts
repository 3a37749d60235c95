// The deliveries that ask for checks outside a pull request's own pushes: a merge queue's merge commit
// (`merge_group` `checks_requested`, or the push of its `gh-readonly-queue/<base>/pr-<n>-<sha>` branch, whichever
// arrives). A required check that never lands on the queue's commit stalls the queue. Pure, over deliveries whose
// shape webhook-payloads.ts has checked.
import type { TargetConfig } from '../domain/config.ts';
import { queuedMessage, type QueuedTargetMessage } from './target-messages.ts';
import type { MergeGroupDelivery, PushDelivery, WebhookDelivery } from './webhook-payloads.ts';

/** GitHub names the queue's branches `gh-readonly-queue/<base branch>/pr-<number>-<SHA of the commit it is built on>`. */
const queueBranch = /^refs\/heads\/gh-readonly-queue\/(.+)\/pr-\d+-([0-9a-f]{40})$/;

export type MergeQueueDecision = { kind: 'enqueue'; messages: QueuedTargetMessage[] } | { kind: 'ignore'; reason: string };

/** Whether a delivery is a merge queue's: a `merge_group`, or a push to a queue branch. */
export function isMergeQueueDelivery(delivery: WebhookDelivery): delivery is MergeGroupDelivery | PushDelivery {
  return delivery.event === 'merge_group' || (delivery.event === 'push' && queueBranch.test(delivery.ref));
}

/** A validate of the queue's merge commit for each target following its base branch (one message per commit). */
export function mergeQueueMessages(targets: readonly TargetConfig[], delivery: MergeGroupDelivery | PushDelivery): MergeQueueDecision {
  let base: string | undefined;
  let headSha: string;
  let baseSha: string | undefined;
  if (delivery.event === 'merge_group') {
    if (delivery.action !== 'checks_requested') return { kind: 'ignore', reason: `merge_group ${delivery.action} asks for no check` };
    ({ baseRef: base, headSha, baseSha } = delivery);
  } else {
    if (delivery.deleted) return { kind: 'ignore', reason: `${delivery.ref} was deleted (the queue is done with it)` };
    const match = queueBranch.exec(delivery.ref);
    base = match?.[1];
    baseSha = match?.[2];
    headSha = delivery.after;
  }
  if (baseSha === undefined) return { kind: 'ignore', reason: `${delivery.event}: the merge queue's base commit is not a SHA` };
  const matched = targets.filter((t) => 'github' in t.source && t.source.github.branch === base);
  if (matched.length === 0) return { kind: 'ignore', reason: `no target follows ${base ?? '?'}, the merge queue's base` };
  const mergeGroup = { headSha, baseSha };
  // Both deliveries of one queue entry share the deduplication key: the queue gets one check.
  return { kind: 'enqueue', messages: matched.map((t) => queuedMessage(t, { target: t.name, action: 'validate', trigger: delivery.event, mergeGroup }, `merge-group-${headSha}`)) };
}
