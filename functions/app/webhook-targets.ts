// Which targets a GitHub delivery concerns, and what to do: a pull request into a target's branch asks for a
// `validate` (checks only), a push to a target's branch for a `pass`, a merge queue's commit for its own `validate`
// (merge-queue-webhooks.ts). Pure: the delivery is only a key, so the
// message carries the target and the commit (for deduplication), never the payload.
import type { Config, TargetConfig } from '../domain/config.ts';
import { isBaseChange, isMergeQueueDelivery, mergeQueueMessages } from './merge-queue-webhooks.ts';
import { queuedMessage, type QueuedTargetMessage } from './target-messages.ts';

export const pullRequestActions = ['opened', 'synchronize', 'reopened', 'ready_for_review'] as const;

export type WebhookDecision =
  | { kind: 'enqueue'; messages: QueuedTargetMessage[] }
  /** Nothing to do: an event, action or branch no target cares about, or a repository no target names. */
  | { kind: 'ignore'; reason: string };

interface RepositoryPayload { repository?: { full_name?: string; name?: string; owner?: { login?: string } } }
interface PullRequestPayload extends RepositoryPayload { action?: string; number?: number; pull_request?: { number?: number; base?: { ref?: string }; head?: { sha?: string } } }
interface PushPayload extends RepositoryPayload { ref?: string; after?: string; deleted?: boolean }

function repositoryOf(payload: RepositoryPayload): string | undefined {
  const full = payload.repository?.full_name ?? (payload.repository?.owner?.login && payload.repository.name ? `${payload.repository.owner.login}/${payload.repository.name}` : undefined);
  return full?.toLowerCase();
}

function targetsOf(config: Config, repository: string): TargetConfig[] {
  return config.targets.filter((t) => 'github' in t.source && `${t.source.github.owner}/${t.source.github.repo}`.toLowerCase() === repository);
}

function branchOf(target: TargetConfig): string {
  return 'github' in target.source ? target.source.github.branch : '';
}

export function decideWebhook(config: Config, event: string, payload: unknown): WebhookDecision {
  if (event !== 'pull_request' && event !== 'push' && event !== 'merge_group') return { kind: 'ignore', reason: `event ${event} is not used` };
  const repository = repositoryOf(payload as RepositoryPayload);
  if (repository === undefined) return { kind: 'ignore', reason: 'the payload names no repository' };
  const targets = targetsOf(config, repository);
  if (targets.length === 0) return { kind: 'ignore', reason: `no target reads ${repository}` };
  if (isMergeQueueDelivery(event, payload)) return mergeQueueMessages(targets, event, payload);
  if (event === 'pull_request') {
    const pr = payload as PullRequestPayload;
    const baseChanged = isBaseChange(pr.action, payload);
    if (!(pullRequestActions as readonly string[]).includes(pr.action ?? '') && !baseChanged) return { kind: 'ignore', reason: `pull_request ${pr.action ?? '?'} changes nothing to check` };
    const base = pr.pull_request?.base?.ref;
    const matched = targets.filter((t) => branchOf(t) === base);
    if (matched.length === 0) return { kind: 'ignore', reason: `no target of ${repository} follows ${base ?? '?'}` };
    // A new base is checked even when the same head was checked against the old one minutes ago.
    const key = `pr-${pr.pull_request?.number ?? pr.number ?? '?'}-${pr.pull_request?.head?.sha ?? '?'}${baseChanged ? `-base-${base ?? '?'}` : ''}`;
    const number = pr.pull_request?.number ?? pr.number;
    const only = typeof number === 'number' ? { pullRequest: number } : {};
    return { kind: 'enqueue', messages: matched.map((t) => queuedMessage(t, { target: t.name, action: 'validate', trigger: 'pull_request', ...only }, key)) };
  }
  const push = payload as PushPayload;
  if (push.deleted === true) return { kind: 'ignore', reason: `${push.ref ?? '?'} was deleted` };
  const matched = targets.filter((t) => push.ref === `refs/heads/${branchOf(t)}`);
  if (matched.length === 0) return { kind: 'ignore', reason: `no target of ${repository} follows ${push.ref ?? '?'}` };
  return { kind: 'enqueue', messages: matched.map((t) => queuedMessage(t, { target: t.name, action: 'pass', trigger: 'push' }, `push-${push.after ?? '?'}`)) };
}
