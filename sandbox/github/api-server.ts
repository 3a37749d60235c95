// A local GitHub REST v3 API over a real git repository: the endpoints this project uses, with GitHub's shapes,
// status codes, error bodies, pagination Link headers, ETags and rate-limit headers.
import { createHash, createPublicKey, randomBytes, verify, type KeyObject } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { FaultInjector } from '../kube/faults.ts';
import type { GitRepo } from './git-repo.ts';
import type { GitHubRequestLog } from './request-log.ts';

type Json = Record<string, unknown>;

export class GitHubError extends Error {
  constructor(readonly status: number, message: string, readonly errors?: Json[], readonly headers: Record<string, string> = {}) {
    super(message);
  }
}

const docs = 'https://docs.github.com/rest';

/** A request field as a string (GitHub treats a missing or non-string field as empty). */
function str(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}

function notFound(): GitHubError {
  return new GitHubError(404, 'Not Found');
}

function validationFailed(errors: Json[], message = 'Validation Failed'): GitHubError {
  return new GitHubError(422, message, errors);
}

export interface PullRequest {
  number: number;
  title: string;
  body: string | null;
  state: 'open' | 'closed';
  head: string;
  base: string;
  headSha: string;
  baseSha: string;
  mergedAt: string | null;
  mergeCommitSha: string | null;
  createdAt: string;
  updatedAt: string;
  closedAt: string | null;
  user: string;
  labels: string[];
}

export interface IssueComment {
  id: number;
  issue: number;
  body: string;
  user: string;
  createdAt: string;
  updatedAt: string;
}

export interface CommitStatus {
  id: number;
  sha: string;
  state: 'error' | 'failure' | 'pending' | 'success';
  description: string | null;
  context: string;
  targetUrl: string | null;
  createdAt: string;
  creator: string;
}

export interface GitHubState {
  owner: string;
  repo: string;
  defaultBranch: string;
  git: GitRepo;
  pulls: PullRequest[];
  comments: IssueComment[];
  statuses: CommitStatus[];
  tokens: Map<string, string>;
  appId: number;
  installationId: number;
  appPublicKey: KeyObject;
  nextId: number;
}

export interface GitHubServerContext {
  state: GitHubState;
  faults: FaultInjector;
  requestLog: GitHubRequestLog;
  baseUrl: () => string;
}

type Handler = (ctx: GitHubServerContext, params: string[], query: URLSearchParams, body: Json, user: string, accept: string) => Promise<{ status?: number; body: unknown; headers?: Record<string, string>; raw?: Buffer }>;

interface Route {
  method: string;
  pattern: RegExp;
  operation: string;
  handler: Handler;
}

const routes: Route[] = [];
function route(method: string, path: string, operation: string, handler: Handler): void {
  const pattern = new RegExp(`^${path.replace(/\{[a-z_]+\}/g, '([^/]+)').replace(/\{\+[a-z_]+\}/g, '(.+)')}$`);
  routes.push({ method, pattern, operation, handler });
}

export function createGitHubServer(ctx: GitHubServerContext): Server {
  return createServer((request, response) => {
    handle(ctx, request, response).catch((error: unknown) => {
      const gh = error instanceof GitHubError ? error : new GitHubError(500, error instanceof Error ? error.message : String(error));
      send(response, gh.status, { message: gh.message, ...(gh.errors ? { errors: gh.errors } : {}), documentation_url: docs, status: String(gh.status) }, gh.headers);
    });
  });
}

function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  const text = status === 204 || status === 304 ? '' : JSON.stringify(body);
  response.writeHead(status, {
    'Content-Type': 'application/json; charset=utf-8',
    'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999', 'x-ratelimit-used': '1', 'x-ratelimit-resource': 'core',
    'x-ratelimit-reset': String(Math.floor(Date.now() / 1000) + 3600), 'x-github-media-type': 'github.v3; format=json',
    ...headers,
  });
  response.end(text);
}

async function readJson(request: IncomingMessage): Promise<Json> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  try {
    return JSON.parse(text) as Json;
  } catch {
    throw new GitHubError(400, 'Problems parsing JSON');
  }
}

async function handle(ctx: GitHubServerContext, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://sandbox');
  const method = request.method ?? 'GET';
  const matched = routes.map((r) => ({ r, m: r.method === method ? r.pattern.exec(url.pathname) : null })).find((x) => x.m);
  const operation = matched?.r.operation ?? `${method} ${url.pathname}`;
  const fault = ctx.faults.match(method, operation, undefined) ?? ctx.faults.match(method, '*', undefined);
  let status = 0;
  try {
    if (fault?.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault?.failure === 'reset') {
      request.socket.destroy();
      return;
    }
    if (fault?.failure !== undefined) throw faultError(fault.failure);
    const user = authenticate(ctx, request, matched?.r.operation);
    if (!matched?.m) throw notFound();
    const params = matched.m.slice(1).map((p) => decodeURIComponent(p));
    const body = method === 'GET' || method === 'DELETE' ? {} : await readJson(request);
    const result = await matched.r.handler(ctx, params, url.searchParams, body, user, request.headers.accept ?? '');
    status = result.status ?? 200;
    if (result.raw) {
      response.writeHead(200, { 'Content-Type': 'application/vnd.github.raw; charset=utf-8', 'Content-Length': result.raw.length, 'x-ratelimit-limit': '5000', 'x-ratelimit-remaining': '4999' });
      response.end(result.raw);
      return;
    }
    if (method === 'GET' && status === 200) {
      const etag = `"${createHash('sha1').update(JSON.stringify(result.body)).digest('hex')}"`;
      if (request.headers['if-none-match'] === etag) {
        status = 304;
        send(response, 304, undefined, { ETag: etag });
        return;
      }
      send(response, status, result.body, { ETag: etag, ...result.headers });
      return;
    }
    send(response, status, result.body, result.headers);
  } catch (error) {
    status = error instanceof GitHubError ? error.status : 500;
    throw error;
  } finally {
    ctx.requestLog.record({ method, operation, path: url.pathname, status });
  }
}

function faultError(code: number): GitHubError {
  if (code === 429) return new GitHubError(429, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', undefined, { 'retry-after': '1' });
  if (code === 403) return new GitHubError(403, 'You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.', undefined, { 'retry-after': '1' });
  if (code === 503) return new GitHubError(503, 'Service Unavailable');
  return new GitHubError(code, 'Server Error');
}

function authenticate(ctx: GitHubServerContext, request: IncomingMessage, operation: string | undefined): string {
  const header = request.headers.authorization ?? '';
  const match = /^(?:Bearer|token)\s+(.+)$/i.exec(header);
  if (!match?.[1]) throw new GitHubError(401, 'Requires authentication');
  const credential = match[1];
  if (operation === 'apps.createInstallationAccessToken') {
    verifyAppJwt(ctx.state, credential);
    return `app/${ctx.state.appId}`;
  }
  const user = ctx.state.tokens.get(credential);
  if (!user) throw new GitHubError(401, 'Bad credentials');
  return user;
}

/** RS256 JWT signed by the app's private key, with iat/exp/iss as GitHub checks them. */
function verifyAppJwt(state: GitHubState, jwt: string): void {
  const [header = '', payload = '', signature = ''] = jwt.split('.');
  const ok = verify('RSA-SHA256', Buffer.from(`${header}.${payload}`), state.appPublicKey, Buffer.from(signature, 'base64url'));
  if (!ok) throw new GitHubError(401, 'A JSON web token could not be decoded');
  const claims = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { iat?: number; exp?: number; iss?: number | string };
  const now = Math.floor(Date.now() / 1000);
  if (String(claims.iss) !== String(state.appId)) throw new GitHubError(401, "'Issuer' claim ('iss') must be an Integer");
  if (claims.exp === undefined || claims.exp < now || claims.exp - (claims.iat ?? now) > 600) throw new GitHubError(401, "'Expiration time' claim ('exp') is too far in the future");
}

function paginate<T>(items: T[], query: URLSearchParams, path: string, ctx: GitHubServerContext): { body: T[]; headers: Record<string, string> } {
  const perPage = Math.min(100, Math.max(1, Number(query.get('per_page') ?? 30)));
  const page = Math.max(1, Number(query.get('page') ?? 1));
  const last = Math.max(1, Math.ceil(items.length / perPage));
  const link = (p: number, rel: string): string => {
    const q = new URLSearchParams(query);
    q.set('page', String(p));
    q.set('per_page', String(perPage));
    return `<${ctx.baseUrl()}${path}?${q.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (page > 1) links.push(link(1, 'first'), link(page - 1, 'prev'));
  if (page < last) links.push(link(page + 1, 'next'), link(last, 'last'));
  return { body: items.slice((page - 1) * perPage, page * perPage), headers: links.length ? { Link: links.join(', ') } : {} };
}

function repoMatches(ctx: GitHubServerContext, owner: string | undefined, repo: string | undefined): void {
  if (owner?.toLowerCase() !== ctx.state.owner.toLowerCase() || repo?.toLowerCase() !== ctx.state.repo.toLowerCase()) throw notFound();
}

function repoUrl(ctx: GitHubServerContext): string {
  return `${ctx.baseUrl()}/repos/${ctx.state.owner}/${ctx.state.repo}`;
}

function htmlUrl(ctx: GitHubServerContext): string {
  return `https://github.com/${ctx.state.owner}/${ctx.state.repo}`;
}

function userJson(login: string): Json {
  const api = `https://api.github.com/users/${login}`;
  return {
    login, id: Math.abs(hashCode(login)), node_id: `U_${login}`, avatar_url: `https://avatars.githubusercontent.com/u/${Math.abs(hashCode(login))}`,
    gravatar_id: '', url: api, html_url: `https://github.com/${login}`, followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`, gists_url: `${api}/gists{/gist_id}`, starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`, organizations_url: `${api}/orgs`, repos_url: `${api}/repos`, events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`, type: login.endsWith('[bot]') ? 'Bot' : 'User', user_view_type: 'public', site_admin: false,
  };
}

function hashCode(text: string): number {
  let h = 0;
  for (const char of text) h = (Math.imul(31, h) + char.charCodeAt(0)) | 0;
  return h;
}

const repositoryUrlTemplates: Record<string, string> = {
  archive_url: '/{archive_format}{/ref}', assignees_url: '/assignees{/user}', blobs_url: '/git/blobs{/sha}', branches_url: '/branches{/branch}',
  collaborators_url: '/collaborators{/collaborator}', comments_url: '/comments{/number}', commits_url: '/commits{/sha}', compare_url: '/compare/{base}...{head}',
  contents_url: '/contents/{+path}', contributors_url: '/contributors', deployments_url: '/deployments', downloads_url: '/downloads', events_url: '/events',
  forks_url: '/forks', git_commits_url: '/git/commits{/sha}', git_refs_url: '/git/refs{/sha}', git_tags_url: '/git/tags{/sha}', hooks_url: '/hooks',
  issue_comment_url: '/issues/comments{/number}', issue_events_url: '/issues/events{/number}', issues_url: '/issues{/number}', keys_url: '/keys{/key_id}',
  labels_url: '/labels{/name}', languages_url: '/languages', merges_url: '/merges', milestones_url: '/milestones{/number}',
  notifications_url: '/notifications{?since,all,participating}', pulls_url: '/pulls{/number}', releases_url: '/releases{/id}', stargazers_url: '/stargazers',
  statuses_url: '/statuses/{sha}', subscribers_url: '/subscribers', subscription_url: '/subscription', tags_url: '/tags', teams_url: '/teams', trees_url: '/git/trees{/sha}',
};

function repositoryJson(ctx: GitHubServerContext): Json {
  const { owner, repo, defaultBranch } = ctx.state;
  const api = repoUrl(ctx);
  return {
    id: 1, node_id: 'R_1', name: repo, full_name: `${owner}/${repo}`, private: true, owner: userJson(owner), html_url: htmlUrl(ctx),
    description: 'sandbox repository', fork: false, url: api,
    ...Object.fromEntries(Object.entries(repositoryUrlTemplates).map(([key, suffix]) => [key, `${api}${suffix}`])),
    git_url: `git://github.com/${owner}/${repo}.git`, ssh_url: `git@github.com:${owner}/${repo}.git`, clone_url: `https://github.com/${owner}/${repo}.git`,
    svn_url: `https://github.com/${owner}/${repo}`, mirror_url: null, homepage: null, language: 'YAML', forks_count: 0, forks: 0,
    stargazers_count: 0, watchers_count: 0, watchers: 0, size: 1, default_branch: defaultBranch, open_issues_count: ctx.state.pulls.filter((p) => p.state === 'open').length,
    open_issues: ctx.state.pulls.filter((p) => p.state === 'open').length, is_template: false, topics: [], has_issues: true, has_projects: false,
    has_wiki: false, has_pages: false, has_downloads: false, has_discussions: false, archived: false, disabled: false, visibility: 'private',
    pushed_at: '2026-01-01T00:00:00Z', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true }, allow_rebase_merge: true, allow_squash_merge: true,
    allow_merge_commit: true, allow_auto_merge: false, delete_branch_on_merge: false, allow_forking: false, web_commit_signoff_required: false,
    license: null, subscribers_count: 1, network_count: 0,
  };
}

async function commitJson(ctx: GitHubServerContext, sha: string, withFiles = false): Promise<Json> {
  const info = await ctx.state.git.commitInfo(sha);
  if (!info) throw new GitHubError(422, `No commit found for SHA: ${sha}`);
  const author = { name: info.authorName, email: info.authorEmail, date: info.date.replace(/([+-]\d\d:\d\d)$/, '') === info.date ? info.date : new Date(info.date).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  const result: Json = {
    sha: info.sha, node_id: `C_${info.sha}`, url: `${repoUrl(ctx)}/commits/${info.sha}`, html_url: `${htmlUrl(ctx)}/commit/${info.sha}`,
    comments_url: `${repoUrl(ctx)}/commits/${info.sha}/comments`,
    commit: { author, committer: author, message: info.message, tree: { sha: info.tree, url: `${repoUrl(ctx)}/git/trees/${info.tree}` }, url: `${repoUrl(ctx)}/git/commits/${info.sha}`, comment_count: 0 },
    author: null, committer: null,
    parents: info.parents.map((p) => ({ sha: p, url: `${repoUrl(ctx)}/commits/${p}`, html_url: `${htmlUrl(ctx)}/commit/${p}` })),
  };
  if (withFiles) {
    const files = await ctx.state.git.changedFiles(info.parents[0], info.sha);
    result.files = files.map((f) => ({ filename: f.filename, status: f.status, additions: 0, deletions: 0, changes: 0, sha: '0'.repeat(40), blob_url: `${htmlUrl(ctx)}/blob/${info.sha}/${f.filename}`, raw_url: `${htmlUrl(ctx)}/raw/${info.sha}/${f.filename}`, contents_url: `${repoUrl(ctx)}/contents/${f.filename}?ref=${info.sha}`, ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}) }));
  }
  return result;
}

function pullJson(ctx: GitHubServerContext, pr: PullRequest): Json {
  const ref = (branch: string, sha: string): Json => ({ label: `${ctx.state.owner}:${branch}`, ref: branch, sha, user: userJson(ctx.state.owner), repo: repositoryJson(ctx) });
  return {
    id: pr.number + 1000, node_id: `PR_${pr.number}`, number: pr.number, state: pr.state, locked: false, title: pr.title, body: pr.body,
    user: userJson(pr.user), labels: pr.labels.map((name, i) => ({ id: i + 1, node_id: `L_${name}`, name, color: 'ededed', default: false, description: '', url: `${repoUrl(ctx)}/labels/${encodeURIComponent(name)}` })),
    url: `${repoUrl(ctx)}/pulls/${pr.number}`, html_url: `${htmlUrl(ctx)}/pull/${pr.number}`, diff_url: `${htmlUrl(ctx)}/pull/${pr.number}.diff`,
    patch_url: `${htmlUrl(ctx)}/pull/${pr.number}.patch`, issue_url: `${repoUrl(ctx)}/issues/${pr.number}`, commits_url: `${repoUrl(ctx)}/pulls/${pr.number}/commits`,
    review_comments_url: `${repoUrl(ctx)}/pulls/${pr.number}/comments`, review_comment_url: `${repoUrl(ctx)}/pulls/comments{/number}`,
    comments_url: `${repoUrl(ctx)}/issues/${pr.number}/comments`, statuses_url: `${repoUrl(ctx)}/statuses/${pr.headSha}`,
    created_at: pr.createdAt, updated_at: pr.updatedAt, closed_at: pr.closedAt, merged_at: pr.mergedAt, merge_commit_sha: pr.mergeCommitSha,
    merged: pr.mergedAt !== null, mergeable: pr.state === 'open' ? true : null, rebaseable: pr.state === 'open' ? true : null,
    mergeable_state: pr.state === 'open' ? 'clean' : 'unknown', merged_by: pr.mergedAt !== null ? userJson(pr.user) : null, draft: false,
    comments: ctx.state.comments.filter((c) => c.issue === pr.number).length, review_comments: 0, maintainer_can_modify: false,
    commits: 1, additions: 1, deletions: 1, changed_files: 1,
    head: ref(pr.head, pr.headSha), base: ref(pr.base, pr.baseSha),
    assignee: null, assignees: [], requested_reviewers: [], requested_teams: [], milestone: null, author_association: 'MEMBER', auto_merge: null, active_lock_reason: null,
    _links: Object.fromEntries(Object.entries({
      self: `${repoUrl(ctx)}/pulls/${pr.number}`, html: `${htmlUrl(ctx)}/pull/${pr.number}`, issue: `${repoUrl(ctx)}/issues/${pr.number}`,
      comments: `${repoUrl(ctx)}/issues/${pr.number}/comments`, review_comments: `${repoUrl(ctx)}/pulls/${pr.number}/comments`,
      review_comment: `${repoUrl(ctx)}/pulls/comments{/number}`, commits: `${repoUrl(ctx)}/pulls/${pr.number}/commits`, statuses: `${repoUrl(ctx)}/statuses/${pr.headSha}`,
    }).map(([k, href]) => [k, { href }])),
  };
}

function commentJson(ctx: GitHubServerContext, c: IssueComment): Json {
  return {
    id: c.id, node_id: `IC_${c.id}`, url: `${repoUrl(ctx)}/issues/comments/${c.id}`, html_url: `${htmlUrl(ctx)}/pull/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${repoUrl(ctx)}/issues/${c.issue}`, body: c.body, user: userJson(c.user), created_at: c.createdAt, updated_at: c.updatedAt, author_association: 'MEMBER',
  };
}

function statusJson(ctx: GitHubServerContext, s: CommitStatus): Json {
  return {
    id: s.id, node_id: `SC_${s.id}`, url: `${repoUrl(ctx)}/statuses/${s.sha}`, avatar_url: 'https://avatars.githubusercontent.com/u/1', state: s.state, description: s.description,
    target_url: s.targetUrl, context: s.context, created_at: s.createdAt, updated_at: s.createdAt, creator: userJson(s.creator),
  };
}

function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}

async function refsFor(ctx: GitHubServerContext, ref: string, exact: boolean): Promise<Json[]> {
  const all = await ctx.state.git.refs(`refs/${ref}`);
  return all.filter((r) => !exact || r.ref === `refs/${ref}`).map((r) => ({
    ref: r.ref, node_id: `REF_${r.ref}`, url: `${repoUrl(ctx)}/git/${r.ref}`, object: { type: 'commit', sha: r.sha, url: `${repoUrl(ctx)}/git/commits/${r.sha}` },
  }));
}

const base = '/repos/{owner}/{repo}';

route('GET', base, 'repos.get', async (ctx, [o, r]) => {
  repoMatches(ctx, o, r);
  return { body: repositoryJson(ctx) };
});

route('POST', '/app/installations/{id}/access_tokens', 'apps.createInstallationAccessToken', async (ctx, [id]) => {
  if (Number(id) !== ctx.state.installationId) throw notFound();
  const token = `ghs_${randomBytes(18).toString('hex')}`;
  ctx.state.tokens.set(token, `sts-volume-gitops[bot]`);
  return { status: 201, body: { token, expires_at: new Date(Date.now() + 3600_000).toISOString().replace(/\.\d{3}Z$/, 'Z'), permissions: { contents: 'write', pull_requests: 'write', statuses: 'write', issues: 'write' }, repository_selection: 'all' } };
});

route('GET', `${base}/git/ref/{+ref}`, 'git.getRef', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const [found] = await refsFor(ctx, ref, true);
  if (!found) throw notFound();
  return { body: found };
});

route('GET', `${base}/git/matching-refs/{+ref}`, 'git.listMatchingRefs', async (ctx, [o, r, ref = ''], query) => {
  repoMatches(ctx, o, r);
  return paginate(await refsFor(ctx, ref, false), query, `${base}/git/matching-refs/${ref}`, ctx);
});

route('POST', `${base}/git/refs`, 'git.createRef', async (ctx, [o, r], _q, body) => {
  repoMatches(ctx, o, r);
  const ref = str(body.ref, '');
  const sha = str(body.sha, '');
  if (!ref.startsWith('refs/') || ref.split('/').length < 3) throw validationFailed([], 'Reference name must start with \'refs/\' and have at least two slashes.');
  if ((await ctx.state.git.objectType(sha)) !== 'commit') throw validationFailed([], 'Object does not exist');
  if ((await ctx.state.git.refs(ref)).some((x) => x.ref === ref)) throw validationFailed([], 'Reference already exists');
  await ctx.state.git.updateRef(ref, sha);
  const [created] = await refsFor(ctx, ref.slice(5), true);
  return { status: 201, body: created };
});

route('PATCH', `${base}/git/refs/{+ref}`, 'git.updateRef', async (ctx, [o, r, ref = ''], _q, body) => {
  repoMatches(ctx, o, r);
  const full = `refs/${ref}`;
  const current = (await ctx.state.git.refs(full)).find((x) => x.ref === full);
  if (!current) throw validationFailed([], 'Reference does not exist');
  const sha = str(body.sha, '');
  if ((await ctx.state.git.objectType(sha)) !== 'commit') throw validationFailed([], 'Object does not exist');
  if (body.force !== true && !(await ctx.state.git.isAncestor(current.sha, sha))) throw validationFailed([], 'Update is not a fast forward');
  await ctx.state.git.updateRef(full, sha);
  const [updated] = await refsFor(ctx, ref, true);
  return { body: updated };
});

route('DELETE', `${base}/git/refs/{+ref}`, 'git.deleteRef', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const full = `refs/${ref}`;
  if (!(await ctx.state.git.refs(full)).some((x) => x.ref === full)) throw validationFailed([], 'Reference does not exist');
  await ctx.state.git.deleteRef(full);
  return { status: 204, body: undefined };
});

route('GET', `${base}/git/trees/{sha}`, 'git.getTree', async (ctx, [o, r, sha = ''], query) => {
  repoMatches(ctx, o, r);
  const tree = await ctx.state.git.treeOf(sha);
  if (!tree) throw notFound();
  const recursive = query.has('recursive') && query.get('recursive') !== '0' && query.get('recursive') !== 'false';
  const entries = await ctx.state.git.listTree(tree, recursive);
  const limit = 100_000;
  return {
    body: {
      sha: tree, url: `${repoUrl(ctx)}/git/trees/${tree}`, truncated: entries.length > limit,
      tree: entries.slice(0, limit).map((e) => ({ path: e.path, mode: e.mode, type: e.type, sha: e.sha, ...(e.size !== undefined ? { size: e.size } : {}), url: `${repoUrl(ctx)}/git/${e.type}s/${e.sha}` })),
    },
  };
});

route('POST', `${base}/git/trees`, 'git.createTree', async (ctx, [o, r], _q, body) => {
  repoMatches(ctx, o, r);
  const changes = new Map<string, { mode: string; sha: string } | null>();
  for (const entry of (body.tree ?? []) as Json[]) {
    const path = str(entry.path, '');
    if (entry.sha === null) {
      changes.set(path, null);
    } else if (typeof entry.content === 'string') {
      changes.set(path, { mode: str(entry.mode, '100644'), sha: await ctx.state.git.writeBlob(Buffer.from(entry.content)) });
    } else {
      const sha = str(entry.sha, '');
      if ((await ctx.state.git.objectType(sha)) !== 'blob') throw validationFailed([], `tree.sha ${sha} is not a valid blob`);
      changes.set(path, { mode: str(entry.mode, '100644'), sha });
    }
  }
  const baseTree = typeof body.base_tree === 'string' ? body.base_tree : undefined;
  if (baseTree && !(await ctx.state.git.treeOf(baseTree))) throw validationFailed([], 'base_tree is not a valid tree oid');
  const sha = await ctx.state.git.buildTree(baseTree, changes);
  const entries = await ctx.state.git.listTree(sha, false);
  return { status: 201, body: { sha, url: `${repoUrl(ctx)}/git/trees/${sha}`, truncated: false, tree: entries.map((e) => ({ path: e.path, mode: e.mode, type: e.type, sha: e.sha, url: `${repoUrl(ctx)}/git/${e.type}s/${e.sha}` })) } };
});

route('GET', `${base}/git/blobs/{sha}`, 'git.getBlob', async (ctx, [o, r, sha = '']) => {
  repoMatches(ctx, o, r);
  const content = await ctx.state.git.readBlob(sha);
  if (!content) throw notFound();
  return { body: { sha, node_id: `B_${sha}`, size: content.length, url: `${repoUrl(ctx)}/git/blobs/${sha}`, content: content.toString('base64'), encoding: 'base64' } };
});

route('POST', `${base}/git/blobs`, 'git.createBlob', async (ctx, [o, r], _q, body) => {
  repoMatches(ctx, o, r);
  if (typeof body.content !== 'string') throw validationFailed([{ resource: 'Blob', field: 'content', code: 'missing_field' }]);
  const sha = await ctx.state.git.writeBlob(Buffer.from(body.content, body.encoding === 'base64' ? 'base64' : 'utf8'));
  return { status: 201, body: { sha, url: `${repoUrl(ctx)}/git/blobs/${sha}` } };
});

route('GET', `${base}/git/commits/{sha}`, 'git.getCommit', async (ctx, [o, r, sha = '']) => {
  repoMatches(ctx, o, r);
  const info = await ctx.state.git.commitInfo(sha);
  if (!info) throw notFound();
  const person = { name: info.authorName, email: info.authorEmail, date: new Date(info.date).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  return { body: { sha: info.sha, node_id: `C_${info.sha}`, url: `${repoUrl(ctx)}/git/commits/${info.sha}`, html_url: `${htmlUrl(ctx)}/commit/${info.sha}`, author: person, committer: person, message: info.message, tree: { sha: info.tree, url: `${repoUrl(ctx)}/git/trees/${info.tree}` }, parents: info.parents.map((p) => ({ sha: p, url: `${repoUrl(ctx)}/git/commits/${p}`, html_url: `${htmlUrl(ctx)}/commit/${p}` })), verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null } } };
});

route('POST', `${base}/git/commits`, 'git.createCommit', async (ctx, [o, r], _q, body, user) => {
  repoMatches(ctx, o, r);
  const tree = str(body.tree, '');
  if ((await ctx.state.git.objectType(tree)) !== 'tree') throw validationFailed([], 'Tree SHA does not exist');
  const parents = ((body.parents ?? []) as string[]);
  for (const p of parents) if ((await ctx.state.git.objectType(p)) !== 'commit') throw validationFailed([], 'Parent SHA does not exist or is not a commit object');
  const author = (body.author ?? {}) as { name?: string; email?: string; date?: string };
  const sha = await ctx.state.git.commitTree(tree, parents, str(body.message, ''), { name: author.name ?? user, email: author.email ?? `${user}@users.noreply.github.com`, ...(author.date ? { date: author.date } : {}) });
  const info = await ctx.state.git.commitInfo(sha);
  const person = { name: info?.authorName, email: info?.authorEmail, date: info?.date };
  return { status: 201, body: { sha, node_id: `C_${sha}`, url: `${repoUrl(ctx)}/git/commits/${sha}`, html_url: `${htmlUrl(ctx)}/commit/${sha}`, author: person, committer: person, message: info?.message, tree: { sha: tree, url: `${repoUrl(ctx)}/git/trees/${tree}` }, parents: parents.map((p) => ({ sha: p, url: `${repoUrl(ctx)}/git/commits/${p}`, html_url: `${htmlUrl(ctx)}/commit/${p}` })), verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null } } };
});

route('GET', `${base}/contents/{+path}`, 'repos.getContent', async (ctx, [o, r, path = ''], query, _body, _user, accept) => {
  repoMatches(ctx, o, r);
  const ref = query.get('ref') ?? ctx.state.defaultBranch;
  const commit = await ctx.state.git.resolve(ref);
  if (!commit) throw new GitHubError(404, `No commit found for the ref ${ref}`);
  const entry = (await ctx.state.git.listTree(commit, true)).find((e) => e.path === path);
  if (!entry || entry.type !== 'blob') throw notFound();
  const content = (await ctx.state.git.readBlob(entry.sha)) ?? Buffer.alloc(0);
  // The raw media type answers the file's bytes instead of the JSON description.
  if (/application\/vnd\.github(\.v3)?\.raw/.test(accept)) return { body: undefined, raw: content };
  const name = path.split('/').pop() ?? path;
  return { body: { type: 'file', encoding: 'base64', size: content.length, name, path, content: content.toString('base64'), sha: entry.sha, url: `${repoUrl(ctx)}/contents/${path}?ref=${ref}`, git_url: `${repoUrl(ctx)}/git/blobs/${entry.sha}`, html_url: `${htmlUrl(ctx)}/blob/${ref}/${path}`, download_url: `https://raw.githubusercontent.com/${ctx.state.owner}/${ctx.state.repo}/${ref}/${path}`, _links: { self: `${repoUrl(ctx)}/contents/${path}?ref=${ref}`, git: `${repoUrl(ctx)}/git/blobs/${entry.sha}`, html: `${htmlUrl(ctx)}/blob/${ref}/${path}` } } };
});

route('PUT', `${base}/contents/{+path}`, 'repos.createOrUpdateFileContents', async (ctx, [o, r, path = ''], _q, body, user) => {
  repoMatches(ctx, o, r);
  const branch = typeof body.branch === 'string' ? body.branch : ctx.state.defaultBranch;
  const head = await ctx.state.git.resolve(`refs/heads/${branch}`);
  if (!head) throw new GitHubError(404, `Branch ${branch} not found`);
  const existing = (await ctx.state.git.listTree(head, true)).find((e) => e.path === path);
  if (existing && body.sha !== existing.sha) throw new GitHubError(409, `${path} does not match ${str(body.sha, '')}`);
  if (!existing && body.sha !== undefined) throw new GitHubError(409, `${path} does not match ${str(body.sha, '')}`);
  const blob = await ctx.state.git.writeBlob(Buffer.from(str(body.content, ''), 'base64'));
  const tree = await ctx.state.git.buildTree(head, new Map([[path, { mode: '100644', sha: blob }]]));
  const sha = await ctx.state.git.commitTree(tree, [head], str(body.message, `Update ${path}`), { name: user, email: `${user}@users.noreply.github.com` });
  await ctx.state.git.updateRef(`refs/heads/${branch}`, sha, head);
  const info = await ctx.state.git.commitInfo(sha);
  const person = { name: info?.authorName ?? user, email: info?.authorEmail ?? '', date: info ? new Date(info.date).toISOString().replace(/\.\d{3}Z$/, 'Z') : now() };
  const name = path.split('/').pop() ?? path;
  return {
    status: existing ? 200 : 201,
    body: {
      content: {
        name, path, sha: blob, size: Buffer.from(str(body.content, ''), 'base64').length, type: 'file',
        url: `${repoUrl(ctx)}/contents/${path}?ref=${branch}`, html_url: `${htmlUrl(ctx)}/blob/${branch}/${path}`, git_url: `${repoUrl(ctx)}/git/blobs/${blob}`,
        download_url: `https://raw.githubusercontent.com/${ctx.state.owner}/${ctx.state.repo}/${branch}/${path}`,
        _links: { self: `${repoUrl(ctx)}/contents/${path}?ref=${branch}`, git: `${repoUrl(ctx)}/git/blobs/${blob}`, html: `${htmlUrl(ctx)}/blob/${branch}/${path}` },
      },
      commit: {
        sha, node_id: `C_${sha}`, url: `${repoUrl(ctx)}/git/commits/${sha}`, html_url: `${htmlUrl(ctx)}/commit/${sha}`, author: person, committer: person,
        message: info?.message ?? '', tree: { sha: tree, url: `${repoUrl(ctx)}/git/trees/${tree}` },
        parents: [{ sha: head, url: `${repoUrl(ctx)}/git/commits/${head}`, html_url: `${htmlUrl(ctx)}/commit/${head}` }],
        verification: { verified: false, reason: 'unsigned', signature: null, payload: null, verified_at: null },
      },
    },
  };
});

route('GET', `${base}/commits`, 'repos.listCommits', async (ctx, [o, r], query) => {
  repoMatches(ctx, o, r);
  const start = await ctx.state.git.resolve(query.get('sha') ?? ctx.state.defaultBranch);
  if (!start) throw new GitHubError(404, 'Not Found');
  const shas = await ctx.state.git.log(start, query.get('path') ?? undefined);
  const page = paginate(shas, query, `/repos/${ctx.state.owner}/${ctx.state.repo}/commits`, ctx);
  return { body: await Promise.all(page.body.map((sha) => commitJson(ctx, sha))), headers: page.headers };
});

route('GET', `${base}/commits/{ref}/pulls`, 'repos.listPullRequestsAssociatedWithCommit', async (ctx, [o, r, ref = ''], query) => {
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

route('GET', `${base}/commits/{ref}/statuses`, 'repos.listCommitStatusesForRef', async (ctx, [o, r, ref = ''], query) => {
  repoMatches(ctx, o, r);
  const sha = await ctx.state.git.resolve(ref);
  const statuses = ctx.state.statuses.filter((s) => s.sha === sha).sort((a, b) => b.id - a.id);
  return paginate(statuses.map((s) => statusJson(ctx, s)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/commits/${ref}/statuses`, ctx);
});

route('GET', `${base}/commits/{ref}/status`, 'repos.getCombinedStatusForRef', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const sha = await ctx.state.git.resolve(ref);
  if (!sha) throw notFound();
  const latest = new Map<string, CommitStatus>();
  for (const s of ctx.state.statuses.filter((x) => x.sha === sha).sort((a, b) => a.id - b.id)) latest.set(s.context, s);
  const list = [...latest.values()];
  const state = list.length === 0 ? 'pending' : list.some((s) => s.state === 'error' || s.state === 'failure') ? 'failure' : list.some((s) => s.state === 'pending') ? 'pending' : 'success';
  return { body: { state, statuses: list.map((s) => statusJson(ctx, s)), sha, total_count: list.length, repository: repositoryJson(ctx), commit_url: `${repoUrl(ctx)}/commits/${sha}`, url: `${repoUrl(ctx)}/commits/${sha}/status` } };
});

route('GET', `${base}/commits/{ref}`, 'repos.getCommit', async (ctx, [o, r, ref = '']) => {
  repoMatches(ctx, o, r);
  const sha = await ctx.state.git.resolve(ref);
  if (!sha) throw new GitHubError(422, `No commit found for SHA: ${ref}`);
  return { body: await commitJson(ctx, sha, true) };
});

route('GET', `${base}/compare/{basehead}`, 'repos.compareCommitsWithBasehead', async (ctx, [o, r, basehead = '']) => {
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

route('POST', `${base}/statuses/{sha}`, 'repos.createCommitStatus', async (ctx, [o, r, sha = ''], _q, body, user) => {
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

route('GET', `${base}/pulls`, 'pulls.list', async (ctx, [o, r], query) => {
  repoMatches(ctx, o, r);
  const state = query.get('state') ?? 'open';
  const head = query.get('head');
  const baseBranch = query.get('base');
  for (const pr of ctx.state.pulls) await refreshPull(ctx, pr);
  let pulls = ctx.state.pulls.filter((p) => state === 'all' || p.state === state)
    .filter((p) => !head || `${ctx.state.owner}:${p.head}` === head)
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
    const head = await ctx.state.git.resolve(`refs/heads/${pr.head}`);
    if (head) pr.headSha = head;
    const baseSha = await ctx.state.git.resolve(`refs/heads/${pr.base}`);
    if (baseSha) pr.baseSha = baseSha;
  }
  return pr;
}

route('GET', `${base}/pulls/{number}`, 'pulls.get', async (ctx, [o, r, n]) => {
  repoMatches(ctx, o, r);
  return { body: pullJson(ctx, await findPull(ctx, n)) };
});

route('POST', `${base}/pulls`, 'pulls.create', async (ctx, [o, r], _q, body, user) => {
  repoMatches(ctx, o, r);
  const head = str(body.head, '').replace(new RegExp(`^${ctx.state.owner}:`), '');
  const baseBranch = str(body.base, '');
  const headSha = await ctx.state.git.resolve(`refs/heads/${head}`);
  const baseSha = await ctx.state.git.resolve(`refs/heads/${baseBranch}`);
  if (!headSha) throw validationFailed([{ resource: 'PullRequest', field: 'head', code: 'invalid' }]);
  if (!baseSha) throw validationFailed([{ resource: 'PullRequest', field: 'base', code: 'invalid' }]);
  if (!body.title) throw validationFailed([{ resource: 'PullRequest', field: 'title', code: 'missing_field' }]);
  if (ctx.state.pulls.some((p) => p.state === 'open' && p.head === head && p.base === baseBranch)) {
    throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `A pull request already exists for ${ctx.state.owner}:${head}.` }]);
  }
  if (headSha === baseSha || await ctx.state.git.isAncestor(headSha, baseSha)) {
    throw validationFailed([{ resource: 'PullRequest', code: 'custom', message: `No commits between ${baseBranch} and ${head}` }]);
  }
  const created = now();
  const pr: PullRequest = { number: ctx.state.nextId++, title: str(body.title, ''), body: typeof body.body === 'string' ? body.body : null, state: 'open', head, base: baseBranch, headSha, baseSha, mergedAt: null, mergeCommitSha: null, createdAt: created, updatedAt: created, closedAt: null, user, labels: [] };
  ctx.state.pulls.push(pr);
  return { status: 201, body: pullJson(ctx, pr) };
});

route('PATCH', `${base}/pulls/{number}`, 'pulls.update', async (ctx, [o, r, n], _q, body) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  if (typeof body.title === 'string') pr.title = body.title;
  if (typeof body.body === 'string') pr.body = body.body;
  if (body.state === 'closed' && pr.state === 'open') {
    pr.state = 'closed';
    pr.closedAt = now();
  } else if (body.state === 'open' && pr.state === 'closed' && pr.mergedAt === null) {
    pr.state = 'open';
    pr.closedAt = null;
  }
  pr.updatedAt = now();
  return { body: pullJson(ctx, pr) };
});

route('PUT', `${base}/pulls/{number}/merge`, 'pulls.merge', async (ctx, [o, r, n], _q, body, user) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  if (pr.state !== 'open') throw new GitHubError(405, 'Pull Request is not mergeable');
  if (typeof body.sha === 'string' && body.sha !== pr.headSha) throw new GitHubError(409, 'Head branch was modified. Review and try the merge again.');
  const tree = await ctx.state.git.mergeTrees(pr.baseSha, pr.headSha);
  if (!tree) throw new GitHubError(405, 'Pull Request is not mergeable');
  const method = body.merge_method === 'squash' ? 'squash' : 'merge';
  const title = typeof body.commit_title === 'string' ? body.commit_title : method === 'squash' ? `${pr.title} (#${pr.number})` : `Merge pull request #${pr.number} from ${ctx.state.owner}/${pr.head}`;
  const message = `${title}\n\n${typeof body.commit_message === 'string' ? body.commit_message : pr.title}`;
  const parents = method === 'squash' ? [pr.baseSha] : [pr.baseSha, pr.headSha];
  const sha = await ctx.state.git.commitTree(tree, parents, message, { name: user, email: `${user}@users.noreply.github.com` });
  await ctx.state.git.updateRef(`refs/heads/${pr.base}`, sha, pr.baseSha);
  pr.state = 'closed';
  pr.mergedAt = now();
  pr.closedAt = pr.mergedAt;
  pr.mergeCommitSha = sha;
  pr.updatedAt = pr.mergedAt;
  return { body: { sha, merged: true, message: 'Pull Request successfully merged' } };
});

route('GET', `${base}/pulls/{number}/files`, 'pulls.listFiles', async (ctx, [o, r, n], query) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  const mergeBase = await ctx.state.git.mergeBase(pr.baseSha, pr.headSha);
  const files = await ctx.state.git.changedFiles(mergeBase ?? pr.baseSha, pr.headSha);
  return paginate(files.map((f) => ({ sha: '0'.repeat(40), filename: f.filename, status: f.status, additions: 0, deletions: 0, changes: 0, blob_url: `${htmlUrl(ctx)}/blob/${pr.headSha}/${f.filename}`, raw_url: `${htmlUrl(ctx)}/raw/${pr.headSha}/${f.filename}`, contents_url: `${repoUrl(ctx)}/contents/${f.filename}?ref=${pr.headSha}`, ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}) })), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/pulls/${pr.number}/files`, ctx);
});

route('GET', `${base}/pulls/{number}/commits`, 'pulls.listCommits', async (ctx, [o, r, n], query) => {
  repoMatches(ctx, o, r);
  const pr = await findPull(ctx, n);
  const shas = (await ctx.state.git.log(pr.headSha, undefined, pr.mergedAt ? (await ctx.state.git.mergeBase(pr.baseSha, pr.headSha)) ?? pr.baseSha : pr.baseSha)).reverse();
  const page = paginate(shas, query, `/repos/${ctx.state.owner}/${ctx.state.repo}/pulls/${pr.number}/commits`, ctx);
  return { body: await Promise.all(page.body.map((sha) => commitJson(ctx, sha))), headers: page.headers };
});

route('GET', `${base}/issues/{number}/comments`, 'issues.listComments', async (ctx, [o, r, n], query) => {
  repoMatches(ctx, o, r);
  if (!ctx.state.pulls.some((p) => p.number === Number(n))) throw notFound();
  const comments = ctx.state.comments.filter((c) => c.issue === Number(n)).sort((a, b) => a.id - b.id);
  return paginate(comments.map((c) => commentJson(ctx, c)), query, `/repos/${ctx.state.owner}/${ctx.state.repo}/issues/${n}/comments`, ctx);
});

route('POST', `${base}/issues/{number}/comments`, 'issues.createComment', async (ctx, [o, r, n], _q, body, user) => {
  repoMatches(ctx, o, r);
  if (!ctx.state.pulls.some((p) => p.number === Number(n))) throw notFound();
  if (typeof body.body !== 'string' || body.body === '') throw validationFailed([{ resource: 'IssueComment', code: 'missing_field', field: 'body' }]);
  if (body.body.length > 65536) throw validationFailed([{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }]);
  const created = now();
  const comment: IssueComment = { id: ctx.state.nextId++, issue: Number(n), body: body.body, user, createdAt: created, updatedAt: created };
  ctx.state.comments.push(comment);
  return { status: 201, body: commentJson(ctx, comment) };
});

route('PATCH', `${base}/issues/comments/{id}`, 'issues.updateComment', async (ctx, [o, r, id], _q, body) => {
  repoMatches(ctx, o, r);
  const comment = ctx.state.comments.find((c) => c.id === Number(id));
  if (!comment) throw notFound();
  if (typeof body.body !== 'string' || body.body === '') throw validationFailed([{ resource: 'IssueComment', code: 'missing_field', field: 'body' }]);
  if (body.body.length > 65536) throw validationFailed([{ resource: 'IssueComment', code: 'custom', field: 'body', message: 'body is too long (maximum is 65536 characters)' }]);
  comment.body = body.body;
  comment.updatedAt = now();
  return { body: commentJson(ctx, comment) };
});

route('DELETE', `${base}/issues/comments/{id}`, 'issues.deleteComment', async (ctx, [o, r, id]) => {
  repoMatches(ctx, o, r);
  const index = ctx.state.comments.findIndex((c) => c.id === Number(id));
  if (index < 0) throw notFound();
  ctx.state.comments.splice(index, 1);
  return { status: 204, body: undefined };
});

route('POST', `${base}/issues/{number}/labels`, 'issues.addLabels', async (ctx, [o, r, n], _q, body) => {
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

export function appPublicKeyFrom(pem: string): KeyObject {
  return createPublicKey(pem);
}
