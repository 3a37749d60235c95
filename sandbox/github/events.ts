// What the sandbox tells its webhook subscribers, as GitHub does, whichever way a change is made (the REST API, a git
// push over HTTP, the test and demo helpers): a branch moved is a `push`, and a `synchronize` for each open pull
// request it is the head of; a pull request opened, closed (merged or not) or reopened; a check run asked for again.
// Each is queued for delivery (webhooks.ts) once the change is made; pull request bodies are taken at that moment.
import { checkRunJson } from './endpoints/check-runs.ts';
import { checkRunRerequestedPayload, checkSuiteRerequestedPayload, pullRequestPayload, pushPayload, type PullRequestAction } from './webhooks.ts';
import type { CheckRun, GitHubServerContext, PullRequest } from './state.ts';

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * `branch` of the repository moved from `before` (undefined: created) to `after` (undefined: deleted), by `pusher`.
 * Resolves when its deliveries are made (callers that answer an API request do not wait for it).
 */
export function branchMoved(ctx: GitHubServerContext, branch: string, before: string | undefined, after: string | undefined, pusher: string): Promise<void> {
  const { state, webhooks } = ctx;
  const delivered = [webhooks.deliver('push', () => pushPayload(ctx, branch, before, after, pusher))];
  if (after !== undefined) {
    for (const pr of state.pulls.filter((p) => p.state === 'open' && p.head === branch && p.headOwner === state.owner && p.headSha !== after)) {
      const previous = pr.headSha;
      pr.headSha = after;
      pr.updatedAt = now();
      delivered.push(webhooks.deliver('pull_request', pullRequestPayload(ctx, pr, 'synchronize', pusher, { before: previous, after })));
    }
  }
  return Promise.all(delivered).then(() => undefined);
}

export function pullRequestChanged(ctx: GitHubServerContext, pr: PullRequest, action: PullRequestAction, sender: string): Promise<void> {
  return ctx.webhooks.deliver('pull_request', pullRequestPayload(ctx, pr, action, sender));
}

/**
 * The branch a commit's check suite was made for: the head branch of the open pull request whose head it is, else a
 * branch pointing at it; a fork's commit has none (null).
 */
async function suiteBranch(ctx: GitHubServerContext, sha: string): Promise<string | null> {
  const { state } = ctx;
  const pull = state.pulls.find((p) => p.state === 'open' && p.headSha === sha);
  if (pull) return pull.headOwner === state.owner ? pull.head : null;
  return (await state.git.refs('refs/heads/')).find((r) => r.sha === sha)?.ref.slice('refs/heads/'.length) ?? null;
}

/** `sender` asked for `run` again ("Re-run"): delivered to the App, which answers with the check. */
export function checkRunRerequested(ctx: GitHubServerContext, run: CheckRun, sender: string): Promise<void> {
  const runJson = checkRunJson(ctx, run);
  return ctx.webhooks.deliver('check_run', async () => checkRunRerequestedPayload(ctx, runJson, run, await suiteBranch(ctx, run.headSha), sender));
}

/** `sender` asked for every check of the App on `sha` again ("Re-run all checks"). */
export function checkSuiteRerequested(ctx: GitHubServerContext, runs: readonly CheckRun[], sender: string): Promise<void> {
  const [first] = runs;
  if (!first) return Promise.resolve();
  const pulls = checkRunJson(ctx, first).pull_requests;
  return ctx.webhooks.deliver('check_suite', async () => checkSuiteRerequestedPayload(ctx, first.headSha, await suiteBranch(ctx, first.headSha), pulls, runs.length, sender));
}
