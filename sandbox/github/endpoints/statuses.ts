// Commit statuses: create (with GitHub's limits), list per ref, and the combined status.
import { notFound, validationFailed } from '../errors.ts';
import { paginate } from '../paging.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { now, repoMatches, repositoryJson, repoUrl, statusJson } from '../shapes.ts';
import type { CommitStatus, GitHubServerContext, Json } from '../state.ts';

export const statusRoutes: Route[] = [];
const route = routeInto(statusRoutes);

/** The repository's identity and API URLs, without its settings and counts (GitHub's `minimal-repository` as the combined status has it). */
function minimalRepositoryJson(ctx: GitHubServerContext): Json {
  const full = repositoryJson(ctx);
  const keep = (key: string): boolean => key.endsWith('_url') ? !['git_url', 'ssh_url', 'clone_url', 'svn_url', 'mirror_url'].includes(key) : ['id', 'node_id', 'name', 'full_name', 'private', 'owner', 'html_url', 'description', 'fork', 'url'].includes(key);
  return Object.fromEntries(Object.entries(full).filter(([key]) => keep(key)));
}

route('GET', `${repoPath}/commits/{ref}/statuses`, 'repos.listCommitStatusesForRef', async (ctx, [o, r, ref = ''], query) => {
  repoMatches(ctx, o, r);
  const sha = await ctx.state.git.resolve(ref);
  const statuses = ctx.state.statuses.filter((s) => s.sha === sha).sort((a, b) => b.id - a.id);
  return paginate(statuses.map((s) => statusJson(ctx, s)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/commits/${ref}/statuses`, ctx);
});

route('GET', `${repoPath}/commits/{ref}/status`, 'repos.getCombinedStatusForRef', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const sha = await ctx.state.git.resolve(ref);
  if (!sha) throw notFound();
  const latest = new Map<string, CommitStatus>();
  for (const s of ctx.state.statuses.filter((x) => x.sha === sha).sort((a, b) => a.id - b.id)) latest.set(s.context, s);
  const list = [...latest.values()];
  const state = list.length === 0 ? 'pending' : list.some((s) => s.state === 'error' || s.state === 'failure') ? 'failure' : list.some((s) => s.state === 'pending') ? 'pending' : 'success';
  // The combined status names its statuses without their creator, and the repository in its minimal form.
  const statuses = list.map((s) => Object.fromEntries(Object.entries(statusJson(ctx, s)).filter(([key]) => key !== 'creator')));
  return { body: { state, statuses, sha, total_count: list.length, repository: minimalRepositoryJson(ctx), commit_url: `${repoUrl(ctx)}/commits/${sha}`, url: `${repoUrl(ctx)}/commits/${sha}/status` } };
});

route('POST', `${repoPath}/statuses/{sha}`, 'repos.createCommitStatus', async (ctx, [o, r, sha = ''], _q, body, { login: user }) => {
  repoMatches(ctx, o, r);
  if ((await ctx.state.git.objectType(sha)) !== 'commit') throw validationFailed([], `No commit found for SHA: ${sha}`);
  const state = body.state;
  if (state !== 'error' && state !== 'failure' && state !== 'pending' && state !== 'success') {
    throw validationFailed([{ resource: 'Status', code: 'custom', field: 'state', message: 'state is not included in the list' }]);
  }
  const description = typeof body.description === 'string' ? body.description : null;
  if (description !== null && description.length > 140) {
    throw validationFailed([{ resource: 'Status', code: 'custom', field: 'description', message: 'description is too long (maximum is 140 characters)' }]);
  }
  const context = typeof body.context === 'string' ? body.context : 'default';
  if (ctx.state.statuses.filter((s) => s.sha === sha && s.context === context).length >= 1000) {
    throw validationFailed([{ resource: 'Status', code: 'custom', field: 'context', message: 'This SHA and context has reached the maximum number of statuses.' }]);
  }
  const status: CommitStatus = { id: ctx.state.nextId++, sha, state, description, context, targetUrl: typeof body.target_url === 'string' ? body.target_url : null, createdAt: now(), creator: user };
  ctx.state.statuses.push(status);
  return { status: 201, body: statusJson(ctx, status) };
});
