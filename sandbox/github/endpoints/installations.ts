// The App itself (authenticated by its JWT, see auth.ts): who it is, its installation (with the permissions it was
// granted), and installation access tokens that act as its bot user `slug[bot]`.
import { randomBytes } from 'node:crypto';
import { installationIdentity } from '../auth.ts';
import { notFound } from '../errors.ts';
import { repoPath, routeInto, type Route } from '../routing.ts';
import { repoMatches, userJson } from '../shapes.ts';
import type { GitHubServerContext, Json, OtherApp } from '../state.ts';

export const installationRoutes: Route[] = [];
const route = routeInto(installationRoutes);

/** What the sandbox's App is granted (README's table of permissions) unless a test takes something away (`state.installationPermissions`). */
export const defaultInstallationPermissions: Readonly<Record<string, 'read' | 'write'>> = {
  checks: 'write', contents: 'write', pull_requests: 'write', statuses: 'write', issues: 'write', metadata: 'read', merge_queues: 'read',
};

/** The App as GET /app answers it (also the `app` of its check runs). */
export function appJson(ctx: GitHubServerContext): Json {
  const { appId, appSlug, owner } = ctx.state;
  return {
    id: appId, slug: appSlug, node_id: `A_${appId}`, client_id: `Iv1.${appId}`, owner: userJson(owner), name: appSlug, description: 'sandbox GitHub App',
    external_url: 'https://example.com', html_url: `https://github.com/apps/${appSlug}`, created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    permissions: ctx.state.installationPermissions, events: [], installations_count: 1,
  };
}

/** GitHub Actions, whose workflow jobs are check runs named after the job (a job may take any name). */
export const gitHubActionsApp: OtherApp = {
  id: 15368, slug: 'github-actions', name: 'GitHub Actions', owner: 'github', description: 'Automate your workflow from idea to production',
  externalUrl: 'https://help.github.com/en/actions',
};

/** Another App as a check run names it (GitHub's `integration` shape, as `app` of a check run). */
export function otherAppJson(app: OtherApp): Json {
  return {
    id: app.id, slug: app.slug, node_id: `A_${app.id}`, owner: { ...userJson(app.owner), type: 'Organization' }, name: app.name, description: app.description,
    external_url: app.externalUrl, html_url: `https://github.com/apps/${app.slug}`, created_at: '2018-07-30T09:30:17Z', updated_at: '2019-12-10T19:04:12Z',
    permissions: { actions: 'write', checks: 'write', contents: 'write', metadata: 'read', statuses: 'write' }, events: ['check_run', 'push', 'pull_request'],
  };
}

route('GET', '/app', 'apps.getAuthenticated', async (ctx) => ({ body: appJson(ctx) }));

route('POST', '/app/installations/{id}/access_tokens', 'apps.createInstallationAccessToken', async (ctx, [id]) => {
  if (Number(id) !== ctx.state.installationId) throw notFound();
  const token = `ghs_${randomBytes(18).toString('hex')}`;
  ctx.state.tokens.set(token, installationIdentity(ctx.state));
  return { status: 201, body: { token, expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'), permissions: ctx.state.installationPermissions, repository_selection: 'all' } };
});

/** The installation as GitHub describes it to its App: on whose account, and the permissions it was granted. */
function installationJson(ctx: GitHubServerContext): Json {
  const { appId, appSlug, owner, installationId: id } = ctx.state;
  const api = ctx.baseUrl();
  return {
    id, account: userJson(owner), repository_selection: 'all', access_tokens_url: `${api}/app/installations/${id}/access_tokens`,
    repositories_url: `${api}/installation/repositories`, html_url: `https://github.com/organizations/${owner}/settings/installations/${id}`,
    app_id: appId, client_id: `Iv1.${appId}`, app_slug: appSlug, target_id: 1, target_type: 'Organization',
    permissions: { ...ctx.state.installationPermissions }, events: ['pull_request', 'push'], single_file_name: null,
    has_multiple_single_files: false, single_file_paths: [], created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    suspended_by: null, suspended_at: null,
  };
}

route('GET', '/app/installations/{id}', 'apps.getInstallation', async (ctx, [id]) => {
  if (Number(id) !== ctx.state.installationId) throw notFound();
  return { body: installationJson(ctx) };
});

route('GET', `${repoPath}/installation`, 'apps.getRepoInstallation', async (ctx, [o, r]) => {
  repoMatches(ctx, o ?? '', r ?? '');
  return { body: installationJson(ctx) };
});
