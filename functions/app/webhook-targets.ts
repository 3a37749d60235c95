// Which targets a GitHub delivery concerns, and what to do: a pull request into a target's branch asks for a
// `validate` (checks only: reads and dry runs), a push to a target's branch for a `pass` (which applies: a merged size
// change is resized right away rather than at the next schedule). A fork's pull request asks for nothing unless the
// target validates forks (`pullRequests.forks: validate`): under `neutral` it is never planned, so a delivery for it
// must not make the worker read the cluster or spend the App's rate limit. A merge queue's commit gets its own
// `validate` from GitHub's `merge_group` delivery alone (merge-queue-webhooks.ts: a push to a queue-named branch is
// ignored), and a pull request whose base changed is checked again; a check's Re-run checks again (check-rerun-webhooks.ts).
// Pure: the delivery is only a key, so the message carries the target and the commit (for deduplication), never the
// payload.
import type { Config, TargetConfig } from '../domain/config.ts';
import { checkRerunMessages } from './check-rerun-webhooks.ts';
import { isMergeQueueDelivery, mergeQueueMessages } from './merge-queue-webhooks.ts';
import { queuedMessage, type QueuedTargetMessage } from './target-messages.ts';
import type { PullRequestDelivery, PushDelivery, WebhookDelivery } from './webhook-payloads.ts';

export const pullRequestActions = ['opened', 'synchronize', 'reopened', 'ready_for_review'] as const;

export type WebhookDecision =
  | { kind: 'enqueue'; messages: QueuedTargetMessage[] }
  /** Nothing to do: an action or branch no target cares about, a repository no target names, a fork not validated. */
  | { kind: 'ignore'; reason: string };

function targetsOf(config: Config, repository: string): TargetConfig[] {
  return config.targets.filter((t) => 'github' in t.source && `${t.source.github.owner}/${t.source.github.repo}`.toLowerCase() === repository);
}

function branchOf(target: TargetConfig): string {
  return 'github' in target.source ? target.source.github.branch : '';
}

/** `deliveryId` (X-GitHub-Delivery) tells a check's second Re-run from a redelivery of the first. */
export function decideWebhook(config: Config, delivery: WebhookDelivery, deliveryId = ''): WebhookDecision {
  const targets = targetsOf(config, delivery.repository);
  if (targets.length === 0) return { kind: 'ignore', reason: `no target reads ${delivery.repository}` };
  if (delivery.event === 'check_run' || delivery.event === 'check_suite') return checkRerunMessages(targets, delivery, deliveryId);
  if (isMergeQueueDelivery(delivery)) return mergeQueueMessages(targets, delivery);
  return delivery.event === 'pull_request' ? decidePullRequest(targets, delivery) : decidePush(targets, delivery);
}

function decidePullRequest(targets: TargetConfig[], pr: PullRequestDelivery): WebhookDecision {
  if (!(pullRequestActions as readonly string[]).includes(pr.action) && !pr.baseChanged) return { kind: 'ignore', reason: `pull_request ${pr.action} changes nothing to check` };
  const following = targets.filter((t) => branchOf(t) === pr.baseRef);
  if (following.length === 0) return { kind: 'ignore', reason: `no target of ${pr.repository} follows ${pr.baseRef}` };
  const matched = pr.fromFork ? following.filter((t) => t.pullRequests.forks === 'validate') : following;
  if (matched.length === 0) {
    return { kind: 'ignore', reason: `pull request #${pr.number} comes from a fork and no target validates forks (pullRequests.forks: neutral); the scheduled pass marks it not validated` };
  }
  // A new base is checked even when the same head was checked against the old one minutes ago.
  const key = `pr-${pr.number}-${pr.headSha}${pr.baseChanged ? `-base-${pr.baseRef}` : ''}`;
  return { kind: 'enqueue', messages: matched.map((t) => queuedMessage(t, { target: t.name, action: 'validate', trigger: 'pull_request', pullRequest: pr.number }, key)) };
}

function decidePush(targets: TargetConfig[], push: PushDelivery): WebhookDecision {
  if (push.deleted) return { kind: 'ignore', reason: `${push.ref} was deleted` };
  const matched = targets.filter((t) => push.ref === `refs/heads/${branchOf(t)}`);
  if (matched.length === 0) return { kind: 'ignore', reason: `no target of ${push.repository} follows ${push.ref}` };
  return { kind: 'enqueue', messages: matched.map((t) => queuedMessage(t, { target: t.name, action: 'pass', trigger: 'push' }, `push-${push.after}`)) };
}
