// GET /repos/{owner}/{repo}.
import { repoPath, routeInto, type Route } from '../routing.ts';
import { repoMatches, repositoryJson } from '../shapes.ts';

export const repositoryRoutes: Route[] = [];
const route = routeInto(repositoryRoutes);

route('GET', repoPath, 'repos.get', async (ctx, [o, r]) => {
  repoMatches(ctx, o, r);
  return { body: repositoryJson(ctx) };
});
