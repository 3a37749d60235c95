// The repository and its forks: GET /repos/{owner}/{repo} (either), and POST .../forks.
import { GitHubError, notFound } from '../errors.ts';
import { createFork, findFork } from '../forks.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { now, repoMatches, repositoryJson } from '../shapes.ts';
import type { GitHubServerContext, Json, RepositoryRole } from '../state.ts';

export const repositoryRoutes: Route[] = [];
const route = routeInto(repositoryRoutes);

/** A fork as GitHub describes it: `fork: true`, with the repository it came from as `parent` and `source`. */
function forkJson(ctx: GitHubServerContext, owner: string): Json {
  const parent = repositoryJson(ctx);
  return { ...repositoryJson(ctx, owner), parent, source: parent };
}

/** What the caller may do in the repository, as `permissions` tells it (each role includes those below it). */
function permissionsOf(role: RepositoryRole): Json {
  const rank = ['read', 'triage', 'write', 'maintain', 'admin'].indexOf(role);
  return { admin: rank >= 4, maintain: rank >= 3, push: rank >= 2, triage: rank >= 1, pull: true };
}

route('GET', repoPath, 'repos.get', async (ctx, [o, r], _q, _body, caller) => {
  const fork = findFork(ctx.state, o, r);
  if (fork) return { body: forkJson(ctx, fork.owner) };
  repoMatches(ctx, o, r);
  return { body: { ...repositoryJson(ctx), permissions: permissionsOf(caller.role) } };
});

route('POST', `${repoPath}/forks`, 'repos.createFork', async (ctx, [o, r], _q, body, caller) => {
  repoMatches(ctx, o, r);
  const owner = typeof body.organization === 'string' ? body.organization : caller.login;
  if (owner.toLowerCase() === ctx.state.owner.toLowerCase()) throw new GitHubError(403, 'Cannot fork a repository into its own owner');
  if (caller.type === 'Bot' && typeof body.organization !== 'string') throw notFound();
  const fork = await createFork(ctx.state, owner, now());
  return { status: 202, body: forkJson(ctx, fork.owner) };
});
