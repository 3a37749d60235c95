// App installation access tokens (the caller is authenticated by the App JWT, see auth.ts).
import { randomBytes } from 'node:crypto';
import { notFound } from '../errors.ts';
import { routeInto, type Route } from '../routing.ts';

export const installationRoutes: Route[] = [];
const route = routeInto(installationRoutes);

route('POST', '/app/installations/{id}/access_tokens', 'apps.createInstallationAccessToken', async (ctx, [id]) => {
  if (Number(id) !== ctx.state.installationId) throw notFound();
  const token = `ghs_${randomBytes(18).toString('hex')}`;
  ctx.state.tokens.set(token, `sts-volume-gitops[bot]`);
  return { status: 201, body: { token, expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'), permissions: { contents: 'write', pull_requests: 'write', statuses: 'write', issues: 'write' }, repository_selection: 'all' } };
});
