// Webhook deliveries from the sandbox, as github.com makes them: a JSON POST signed with the subscription's secret
// (X-Hub-Signature-256: HMAC-SHA256 of the body), with X-GitHub-Event and X-GitHub-Delivery, for pull requests
// opened or synchronised and branches pushed. The payloads carry the fields GitHub's do for what a receiver keys on.
import { createHmac, randomUUID } from 'node:crypto';
import type { GitHubState, PullRequest } from './state.ts';

export interface WebhookSubscription {
  url: string;
  secret: string;
}

export interface WebhookDelivery {
  id: string;
  event: string;
  url: string;
  /** The receiver's HTTP status, or the network error. */
  status: number | string;
  payload: Record<string, unknown>;
}

export function signWebhookBody(secret: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

function repositoryPayload(state: GitHubState): Record<string, unknown> {
  return { name: state.repo, full_name: `${state.owner}/${state.repo}`, owner: { login: state.owner }, default_branch: state.defaultBranch, private: true };
}

export function pullRequestPayload(state: GitHubState, pr: PullRequest, action: 'opened' | 'synchronize' | 'reopened' | 'ready_for_review', sender: string): Record<string, unknown> {
  return {
    action, number: pr.number,
    pull_request: {
      number: pr.number, state: pr.state, title: pr.title, draft: false, user: { login: pr.user },
      head: { ref: pr.head, sha: pr.headSha, repo: { full_name: `${pr.headOwner}/${state.repo}` } },
      base: { ref: pr.base, sha: pr.baseSha, repo: { full_name: `${state.owner}/${state.repo}` } },
    },
    repository: repositoryPayload(state), sender: { login: sender },
  };
}

export function pushPayload(state: GitHubState, branch: string, before: string | undefined, after: string, pusher: string): Record<string, unknown> {
  return {
    ref: `refs/heads/${branch}`, before: before ?? '0'.repeat(40), after, created: before === undefined, deleted: false, forced: false,
    repository: repositoryPayload(state), pusher: { name: pusher }, sender: { login: pusher },
  };
}

/** Delivers to every subscription in turn, awaiting each answer (GitHub waits up to 10 s), and keeps a record. */
export class WebhookDeliveries {
  readonly subscriptions: WebhookSubscription[] = [];
  readonly deliveries: WebhookDelivery[] = [];

  subscribe(subscription: WebhookSubscription): void {
    this.subscriptions.push(subscription);
  }

  async deliver(event: string, payload: Record<string, unknown>): Promise<void> {
    for (const { url, secret } of this.subscriptions) {
      const id = randomUUID();
      const body = JSON.stringify(payload);
      let status: number | string;
      try {
        const response = await fetch(url, {
          method: 'POST', body, signal: AbortSignal.timeout(10_000),
          headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/sandbox', 'x-github-event': event, 'x-github-delivery': id, 'x-hub-signature-256': signWebhookBody(secret, body) },
        });
        await response.arrayBuffer();
        status = response.status;
      } catch (error) {
        status = (error as Error).message;
      }
      this.deliveries.push({ id, event, url, status, payload });
    }
  }
}
