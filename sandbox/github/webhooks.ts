// The bodies of the sandbox's webhook deliveries, with the fields of GitHub's own for its App (held to
// @octokit/webhooks-examples by test/sandbox/github/webhook-shapes.test.ts): pushes, pull requests opened,
// synchronized, closed and reopened, check runs and suites asked for again. events.ts says when each is sent,
// webhook-deliveries.ts sends them.
import { suiteId } from './endpoints/check-runs.ts';
import { appJson } from './endpoints/installations.ts';
import { htmlUrl, pullJson, repositoryJson, repoUrl, userJson } from './shapes.ts';
import type { CheckRun, GitHubServerContext, Json, PullRequest } from './state.ts';

const zeroSha = '0'.repeat(40);

function installationJson(ctx: GitHubServerContext): Json {
  return { id: ctx.state.installationId, node_id: `MDIzOkludGVncmF0aW9uSW5zdGFsbGF0aW9u${ctx.state.installationId}` };
}

/** The repository as deliveries carry it: the REST shape with its custom properties. */
function webhookRepositoryJson(ctx: GitHubServerContext): Json {
  return { ...repositoryJson(ctx), custom_properties: {} };
}

/** A push's repository: GitHub writes its owner with a name and email, and its times as epoch seconds. */
function pushRepositoryJson(ctx: GitHubServerContext): Json {
  const repository = webhookRepositoryJson(ctx);
  const epoch = (iso: unknown): number => Math.floor(Date.parse(String(iso)) / 1000);
  return {
    ...repository, owner: { name: ctx.state.owner, email: null, ...userJson(ctx.state.owner) },
    created_at: epoch(repository.created_at), pushed_at: Math.floor(Date.now() / 1000),
    stargazers: repository.stargazers_count, master_branch: ctx.state.defaultBranch,
  };
}

export type PullRequestAction = 'opened' | 'synchronize' | 'reopened' | 'closed' | 'ready_for_review';

export function pullRequestPayload(ctx: GitHubServerContext, pr: PullRequest, action: PullRequestAction, sender: string, moved?: { before: string; after: string }): Record<string, unknown> {
  return {
    action, number: pr.number, pull_request: pullJson(ctx, pr), ...(moved ? { before: moved.before, after: moved.after } : {}),
    repository: webhookRepositoryJson(ctx), installation: installationJson(ctx), sender: userJson(sender),
  };
}

/** A commit as a push lists it (`id`, `tree_id`, the files it added, removed and modified). */
async function pushCommitJson(ctx: GitHubServerContext, sha: string): Promise<Json | null> {
  const info = await ctx.state.git.commitInfo(sha);
  if (!info) return null;
  const files = await ctx.state.git.changedFiles(info.parents[0], sha);
  const person = { name: info.authorName, email: info.authorEmail, username: info.authorName };
  return {
    id: sha, tree_id: info.tree, distinct: true, message: info.message, timestamp: info.date, url: `${htmlUrl(ctx)}/commit/${sha}`,
    author: person, committer: person,
    added: files.filter((f) => f.status === 'added').map((f) => f.filename),
    removed: files.filter((f) => f.status === 'removed').map((f) => f.filename),
    modified: files.filter((f) => f.status === 'modified' || f.status === 'renamed').map((f) => f.filename),
  };
}

/** A branch created, moved or deleted (`after` undefined), by `pusher`. */
export async function pushPayload(ctx: GitHubServerContext, branch: string, before: string | undefined, after: string | undefined, pusher: string): Promise<Record<string, unknown>> {
  // GitHub lists at most 20 commits a push; the head commit is always there.
  const shas = after === undefined ? [] : (await ctx.state.git.log(after, undefined, before)).slice(0, 20).reverse();
  const commits = (await Promise.all(shas.map((sha) => pushCommitJson(ctx, sha)))).filter((c): c is Json => c !== null);
  const from = before ?? zeroSha;
  const to = after ?? zeroSha;
  return {
    ref: `refs/heads/${branch}`, before: from, after: to,
    repository: pushRepositoryJson(ctx), pusher: { name: pusher, email: `${pusher}@users.noreply.github.com` }, sender: userJson(pusher),
    installation: installationJson(ctx), created: before === undefined, deleted: after === undefined, forced: false, base_ref: null,
    compare: before === undefined ? `${htmlUrl(ctx)}/commit/${to}` : `${htmlUrl(ctx)}/compare/${from.slice(0, 12)}...${to.slice(0, 12)}`,
    commits, head_commit: after === undefined ? null : commits.at(-1) ?? await pushCommitJson(ctx, after),
  };
}

/** The App's check suite on `sha` (one per commit), queued again, as a `check_run` or `check_suite` delivery carries it. */
function checkSuiteJson(ctx: GitHubServerContext, sha: string, headBranch: string | null, pullRequests: unknown, createdAt: string): Json {
  const id = suiteId(sha);
  return {
    id, node_id: `CS_${id}`, head_branch: headBranch, head_sha: sha, status: 'queued', conclusion: null, url: `${repoUrl(ctx)}/check-suites/${id}`,
    before: null, after: sha, pull_requests: pullRequests, app: appJson(ctx), created_at: createdAt, updated_at: createdAt,
  };
}

/** Someone asked for `run` again: its suite is queued again; the run itself is as it was. */
export function checkRunRerequestedPayload(ctx: GitHubServerContext, runJson: Json, run: CheckRun, headBranch: string | null, sender: string): Record<string, unknown> {
  return {
    action: 'rerequested', check_run: { ...runJson, check_suite: checkSuiteJson(ctx, run.headSha, headBranch, runJson.pull_requests, run.startedAt) },
    repository: webhookRepositoryJson(ctx), sender: userJson(sender), installation: installationJson(ctx),
  };
}

/** Someone asked for every check on `sha` again. */
export async function checkSuiteRerequestedPayload(ctx: GitHubServerContext, sha: string, headBranch: string | null, pullRequests: unknown, runs: number, sender: string): Promise<Record<string, unknown>> {
  const suite = checkSuiteJson(ctx, sha, headBranch, pullRequests, new Date().toISOString().replace(/\.\d{3}Z$/, 'Z'));
  const head = await ctx.state.git.commitInfo(sha);
  const person = { name: head?.authorName ?? '', email: head?.authorEmail ?? '' };
  return {
    action: 'rerequested',
    check_suite: {
      ...suite, latest_check_runs_count: runs, check_runs_url: `${String(suite.url)}/check-runs`, rerequestable: true, runs_rerequestable: true,
      head_commit: { id: sha, tree_id: head?.tree ?? '', message: head?.message ?? '', timestamp: head?.date ?? '', author: person, committer: person },
    },
    repository: webhookRepositoryJson(ctx), sender: userJson(sender), installation: installationJson(ctx),
  };
}
