// A merge queue's merge commit asks for its check through GitHub's own `merge_group` `checks_requested` delivery, and
// through nothing else: its body (signed with the webhook secret) names the queue's commit and the base commit it is
// built on. A push to a branch named like a queue's (`gh-readonly-queue/<base>/pr-<n>-<sha>`) is never taken for one:
// GitHub does not reserve that prefix, so anyone who may push to the repository can push any commit there, a pull
// request's own head included, with any SHA in the name; trusting it let a collaborator turn a pull request's failing
// required check green ("no volume changes" against a base of their choosing). Such a push validates nothing and
// writes no check. A required check that never lands on the queue's commit stalls the queue, so `merge_group` must be
// subscribed (README). Pure, over deliveries whose shape webhook-payloads.ts has checked.
import type { TargetConfig } from '../domain/config.ts';
import { queuedMessage, type QueuedTargetMessage } from './target-messages.ts';
import type { MergeGroupDelivery, PushDelivery, WebhookDelivery } from './webhook-payloads.ts';

/** The prefix of the branches GitHub's merge queue pushes, which anyone with write access may push too. */
const queueBranchPrefix = 'refs/heads/gh-readonly-queue/';

export type MergeQueueDecision = { kind: 'enqueue'; messages: QueuedTargetMessage[] } | { kind: 'ignore'; reason: string };

/** A merge queue's delivery (`merge_group`), or a push to a branch named like a queue's, which is answered here too. */
export function isMergeQueueDelivery(delivery: WebhookDelivery): delivery is MergeGroupDelivery | PushDelivery {
  return delivery.event === 'merge_group' || (delivery.event === 'push' && delivery.ref.startsWith(queueBranchPrefix));
}

const queueBranchPushIgnored = 'a push to a gh-readonly-queue/ branch validates nothing: anyone who may push to the repository can push '
  + 'there, so merge queue commits are checked only on GitHub\'s merge_group delivery (subscribe the App or webhook to "Merge group")';

/** A validate of the queue's merge commit for each target following its base branch (one message per commit). */
export function mergeQueueMessages(targets: readonly TargetConfig[], delivery: MergeGroupDelivery | PushDelivery): MergeQueueDecision {
  if (delivery.event === 'push') return { kind: 'ignore', reason: queueBranchPushIgnored };
  if (delivery.action !== 'checks_requested') return { kind: 'ignore', reason: `merge_group ${delivery.action} asks for no check` };
  const { baseRef, headSha, baseSha } = delivery;
  const matched = targets.filter((t) => 'github' in t.source && t.source.github.branch === baseRef);
  if (matched.length === 0) return { kind: 'ignore', reason: `no target follows ${baseRef}, the merge queue's base` };
  const mergeGroup = { headSha, baseSha };
  // A redelivery of one queue entry shares the deduplication key: the queue gets one check.
  return { kind: 'enqueue', messages: matched.map((t) => queuedMessage(t, { target: t.name, action: 'validate', trigger: 'merge_group', mergeGroup }, `merge-group-${headSha}`)) };
}
