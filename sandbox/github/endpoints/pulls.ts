// Pull requests (from a branch of the repository or of a fork): list, get, create, update, merge, files, commits.
import { GitHubError, notFound, validationFailed } from '../errors.ts';
import { branchMoved, pullRequestChanged } from '../events.ts';
import { findFork, headRefOf, parseHead } from '../forks.ts';
import { paginate } from '../paging.ts';
import { repoPath, routeInto, str, type Route } from '../routing.ts';
import { commitJson, htmlUrl, now, pullJson, repoMatches, repoUrl } from '../shapes.ts';
import type { GitHubServerContext, PullRequest } from '../state.ts';

export const pullRoutes: Route[] = [];
const route = routeInto(pullRoutes);

route('GET', `${repoPath}/pulls`, 'pulls.list', async (ctx, [o, r], query) => {
  repoMatches(ctx, o, r);
  const state = query.get('state') ?? 'open';
  const head = query.get('head');
  const baseBranch = query.get('base');
  // Every ref read once (one git process), not two per pull request: listing 50 pull requests took seconds.
  const refs = new Map((await ctx.state.git.refs()).map((r) => [r.ref, r.sha]));
  for (const pr of ctx.state.pulls) {
    if (pr.mergedAt !== null) continue;
    pr.headSha = refs.get(headRefOf(ctx.state, pr)) ?? pr.headSha;
    pr.baseSha = refs.get(`refs/heads/${pr.base}`) ?? pr.baseSha;
  }
  let pulls = ctx.state.pulls.filter((p) => state === 'all' || p.state === state)
    .filter((p) => !head || `${p.headOwner}:${p.head}`.toLowerCase() === head.toLowerCase())
    .filter((p) => !baseBranch || p.base === baseBranch);
  const sort = query.get('sort') ?? 'created';
  const direction = query.get('direction') ?? 'desc';
  pulls = pulls.sort((a, b) => (sort === 'updated' ? a.updatedAt.localeCompare(b.updatedAt) || a.number - b.number : a.number - b.number) * (direction === 'asc' ? 1 : -1));
  return paginate(pulls.map((p) => pullJson(ctx, p)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/pulls`, ctx);
});

async function findPull(ctx: GitHubServerContext, number: string | undefined): Promise<PullRequest> {
  const pr = ctx.state.pulls.find((p) => p.number === Number(number));
  if (!pr) throw notFound();
  return refreshPull(ctx, pr);
}

async function refreshPull(ctx: GitHubServerContext, pr: PullRequest): Promise<PullRequest> {
  // The head moves when someone pushes to the branch; a merged PR keeps the head it was merged with.
  if (pr.mergedAt === null) {
    const head = await ctx.state.git.resolve(headRefOf(ctx.state, pr));
    if (head) pr.headSha = head;
    const baseSha = await ctx.state.git.resolve(`refs/heads/${pr.base}`);
    if (baseSha) pr.baseSha = baseSha;
  }
  return pr;
}

route('GET', `${repoPath}/pulls/{number}`, 'pulls.get', async (ctx, [o, r, n]) => {
  repoMatches(ctx, o, r);
  return { body: pullJson(ctx, await findPull(ctx, n)) };
});

route('POST', `${repoPath}/pulls`, 'pulls.create', async (ctx, [o, r], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  // `owner:branch` names a branch of owner's fork; a bare name (or the base owner's) one of this repository.
  const { owner: requestedOwner, branch: head } = parseHead(ctx.state, str(body.head, ''));
  const headOwner = requestedOwner.toLowerCase() === ctx.state.owner.toLowerCase() ? ctx.state.owner : findFork(ctx.state, requestedOwner, ctx.state.repo)?.owner;
  const baseBranch = str(body.base, '');
  const headSha = headOwner === undefined ? undefined : await ctx.state.git.resolve(headRefOf(ctx.state, { head, headOwner }));
  const baseSha = await ctx.state.git.resolve(`refs/heads/${baseBranch}`);
  if (!headSha || headOwner === undefined) throw validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  if (!baseSha) throw validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
  if (!body.title) throw validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
  if (ctx.state.pulls.some((p) => p.state === 'open' && p.headOwner === headOwner && p.head === head && p.base === baseBranch)) {
    throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${headOwner}:${head}.` }]);
  }
  if (headSha === baseSha || await ctx.state.git.isAncestor(headSha, baseSha)) {
    throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `No commits between ${baseBranch} and ${head}` }]);
  }
  const created = now();
  const pr: PullRequest = { number: ctx.state.nextId++, title: str(body.title, ''), body: typeof body.body === 'string' ? body.body : null, state: 'open', head, headOwner, base: baseBranch, headSha, baseSha, mergedAt: null, mergeCommitSha: null, createdAt: created, updatedAt: created, closedAt: null, user, labels: [] };
  ctx.state.pulls.push(pr);
  void pullRequestChanged(ctx, pr, 'opened', user);
  return { status: 201, body: pullJson(ctx, pr) };
});

route('PATCH', `${repoPath}/pulls/{number}`, 'pulls.update', async (ctx, [o, r, n], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  if (typeof body.title === 'string') pr.title = body.title;
  if (typeof body.body === 'string') pr.body = body.body;
  let action: 'closed' | 'reopened' | undefined;
  if (body.state === 'closed' && pr.state === 'open') {
    pr.state = 'closed';
    pr.closedAt = now();
    action = 'closed';
  } else if (body.state === 'open' && pr.state === 'closed' && pr.mergedAt === null) {
    pr.state = 'open';
    pr.closedAt = null;
    action = 'reopened';
  }
  pr.updatedAt = now();
  if (action) void pullRequestChanged(ctx, pr, action, user);
  return { body: pullJson(ctx, pr) };
});

route('PUT', `${repoPath}/pulls/{number}/merge`, 'pulls.merge', async (ctx, [o, r, n], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  if (pr.state !== 'open') throw new GitHubError(405, 'Pull Request is not mergeable');
  if (typeof body.sha === 'string' && body.sha !== pr.headSha) throw new GitHubError(409, 'Head branch was modified. Review and try the merge again.');
  const tree = await ctx.state.git.mergeTrees(pr.baseSha, pr.headSha);
  if (!tree) throw new GitHubError(405, 'Pull Request is not mergeable');
  const method = body.merge_method === 'squash' ? 'squash' : 'merge';
  const title = typeof body.commit_title === 'string' ? body.commit_title : method === 'squash' ? `${pr.title} (#${pr.number})` : `Merge pull request #${pr.number} from ${pr.headOwner}/${pr.head}`;
  const message = `${title}\n\n${typeof body.commit_message === 'string' ? body.commit_message : pr.title}`;
  const parents = method === 'squash' ? [pr.baseSha] : [pr.baseSha, pr.headSha];
  const sha = await ctx.state.git.commitTree(tree, parents, message, { name: user, email: `${user}@users.noreply.github.com` });
  await ctx.state.git.updateRef(`refs/heads/${pr.base}`, sha, pr.baseSha);
  pr.state = 'closed';
  pr.mergedAt = now();
  pr.closedAt = pr.mergedAt;
  pr.mergeCommitSha = sha;
  pr.updatedAt = pr.mergedAt;
  void branchMoved(ctx, pr.base, pr.baseSha, sha, user);
  void pullRequestChanged(ctx, pr, 'closed', user);
  return { body: { sha, merged: true, message: 'Pull Request successfully merged' } };
});

route('GET', `${repoPath}/pulls/{number}/files`, 'pulls.listFiles', async (ctx, [o, r, n], query) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  const mergeBase = await ctx.state.git.mergeBase(pr.baseSha, pr.headSha);
  const files = await ctx.state.git.changedFiles(mergeBase ?? pr.baseSha, pr.headSha);
  return paginate(files.map((f) => ({ sha: '0'.repeat(40), filename: f.filename, status: f.status, additions: 0, deletions: 0, changes: 0, blob_url: `${htmlUrl(ctx)}/blob/${pr.headSha}/${f.filename}`, raw_url: `${htmlUrl(ctx)}/raw/${pr.headSha}/${f.filename}`, contents_url: `${repoUrl(ctx)}/contents/${f.filename}?ref=${pr.headSha}`, ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}) })), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/pulls/${pr.number}/files`, ctx);
});

route('GET', `${repoPath}/pulls/{number}/commits`, 'pulls.listCommits', async (ctx, [o, r, n], query) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  const shas = (await ctx.state.git.log(pr.headSha, undefined, pr.mergedAt ? (await ctx.state.git.mergeBase(pr.baseSha, pr.headSha)) ?? pr.baseSha : pr.baseSha)).reverse();
  const page = paginate(shas, query, `/repos/${ctx.state.owner}/${ctx.state.repo}/pulls/${pr.number}/commits`, ctx);
  return { body: await Promise.all(page.body.map((sha) => commitJson(ctx, sha))), headers: page.headers };
});
