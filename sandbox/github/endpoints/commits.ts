// Commits: list, get with files, compare, and the pull requests a commit belongs to.
import { GitHubError, notFound } from '../errors.ts';
import { paginate } from '../paging.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { commitJson, htmlUrl, pullJson, repoMatches, repoUrl } from '../shapes.ts';
import type { PullRequest } from '../state.ts';

export const commitRoutes: Route[] = [];
const route = routeInto(commitRoutes);

route('GET', `${repoPath}/commits`, 'repos.listCommits', async (ctx, [o, r], query) => {
  repoMatches(ctx, o, r);
  const start = await ctx.state.git.resolve(query.get('sha') ?? ctx.state.defaultBranch);
  if (!start) throw new GitHubError(404, 'Not Found');
  const shas = await ctx.state.git.log(start, query.get('path') ?? undefined);
  const page = paginate(shas, query, `/repos/${ctx.state.owner}/${ctx.state.repo}/commits`, ctx);
  return { body: await Promise.all(page.body.map((sha) => commitJson(ctx, sha))), headers: page.headers };
});

route('GET', `${repoPath}/commits/{ref}/pulls`, 'repos.listPullRequestsAssociatedWithCommit', async (ctx, [o, r, ref = ''], query) => {
  repoMatches(ctx, o, r);
  const sha = await ctx.state.git.resolve(ref);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
  const associated: PullRequest[] = [];
  for (const pr of ctx.state.pulls) {
    if (pr.mergeCommitSha === sha || pr.headSha === sha) associated.push(pr);
    else if (await ctx.state.git.isAncestor(sha, pr.headSha) && !(await ctx.state.git.isAncestor(sha, pr.baseSha))) associated.push(pr);
  }
  return paginate(associated.map((p) => pullJson(ctx, p)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/commits/${ref}/pulls`, ctx);
});

route('GET', `${repoPath}/commits/{ref}`, 'repos.getCommit', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const sha = await ctx.state.git.resolve(ref);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
  return { body: await commitJson(ctx, sha, true) };
});

route('GET', `${repoPath}/compare/{basehead}`, 'repos.compareCommitsWithBasehead', async (ctx, [o, r, basehead = '']) => {
  repoMatches(ctx, o, r);
  const [baseRef = '', headRef = ''] = basehead.split('...');
  const baseSha = await ctx.state.git.resolve(baseRef);
  const headSha = await ctx.state.git.resolve(headRef);
  if (!baseSha || !headSha) throw notFound();
  const mergeBase = await ctx.state.git.mergeBase(baseSha, headSha);
  const ahead = await ctx.state.git.log(headSha, undefined, baseSha);
  const behind = await ctx.state.git.log(baseSha, undefined, headSha);
  const files = await ctx.state.git.changedFiles(mergeBase ?? baseSha, headSha);
  return {
    body: {
      url: `${repoUrl(ctx)}/compare/${basehead}`, html_url: `${htmlUrl(ctx)}/compare/${basehead}`, permalink_url: `${htmlUrl(ctx)}/compare/${basehead}`, diff_url: `${htmlUrl(ctx)}/compare/${basehead}.diff`, patch_url: `${htmlUrl(ctx)}/compare/${basehead}.patch`,
      base_commit: await commitJson(ctx, baseSha), merge_base_commit: await commitJson(ctx, mergeBase ?? baseSha),
      status: ahead.length && behind.length ? 'diverged' : ahead.length ? 'ahead' : behind.length ? 'behind' : 'identical',
      ahead_by: ahead.length, behind_by: behind.length, total_commits: ahead.length,
      commits: await Promise.all(ahead.slice().reverse().map((sha) => commitJson(ctx, sha))),
      files: files.map((f) => ({ sha: '0'.repeat(40), filename: f.filename, status: f.status, additions: 0, deletions: 0, changes: 0, blob_url: `${htmlUrl(ctx)}/blob/${headSha}/${f.filename}`, raw_url: `${htmlUrl(ctx)}/raw/${headSha}/${f.filename}`, contents_url: `${repoUrl(ctx)}/contents/${f.filename}?ref=${headSha}`, ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}) })),
    },
  };
});
