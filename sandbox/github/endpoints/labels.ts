// Labels added to a pull request's issue.
import { notFound } from '../errors.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { repoMatches, repoUrl } from '../shapes.ts';

export const labelRoutes: Route[] = [];
const route = routeInto(labelRoutes);

route('POST', `${repoPath}/issues/{number}/labels`, 'issues.addLabels', async (ctx, [o, r, n], _q, body) => {
  repoMatches(ctx, o, r);
  const pr = ctx.state.pulls.find((p) => p.number === Number(n));
  if (!pr) throw notFound();
  const labels = (Array.isArray(body.labels) ? body.labels : []) as unknown[];
  for (const label of labels) {
    const name = typeof label === 'string' ? label : String((label as { name?: string }).name ?? '');
    if (!pr.labels.includes(name)) pr.labels.push(name);
  }
  return { body: pr.labels.map((name, i) => ({ id: i + 1, node_id: `L_${name}`, url: `${repoUrl(ctx)}/labels/${encodeURIComponent(name)}`, name, color: 'ededed', default: false, description: null })) };
});
