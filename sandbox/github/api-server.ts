// A local GitHub REST v3 API over a real git repository: the endpoints this project uses, with GitHub's shapes,
// status codes, error bodies, pagination Link headers, ETags and rate-limit headers. This file is the server core
// (dispatch, faults, replies); each endpoint lives in endpoints/, one file per resource group.
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { authenticate, refuseByScope } from './auth.ts';
import { refuseByInstallationPermissions } from './installation-permissions.ts';
import { commitRoutes } from './endpoints/commits.ts';
import { contentsRoutes } from './endpoints/contents.ts';
import { gitDataRoutes } from './endpoints/git-data.ts';
import { installationRoutes } from './endpoints/installations.ts';
import { issueCommentRoutes } from './endpoints/issue-comments.ts';
import { labelRoutes } from './endpoints/labels.ts';
import { pullRoutes } from './endpoints/pulls.ts';
import { repositoryRoutes } from './endpoints/repository.ts';
import { ruleRoutes } from './endpoints/rules.ts';
import { archiveRoutes } from './endpoints/archives.ts';
import { branchProtectionRoutes } from './endpoints/branch-protection.ts';
import { checkRunRoutes } from './endpoints/check-runs.ts';
import { checkRerunRoutes } from './endpoints/check-reruns.ts';
import { statusRoutes } from './endpoints/statuses.ts';
import { userRoutes } from './endpoints/users.ts';
import { dropReply } from '../kube/faults.ts';
import { GitHubError, notFound } from './errors.ts';
import { isGitRequest, serveGit } from './git-http.ts';
import type { Route } from './routing.ts';
import type { GitHubServerContext, Json } from './state.ts';

export { GitHubError } from './errors.ts';
export type { CommitStatus, Fork, GitHubServerContext, GitHubState, Identity, IssueComment, PullRequest, RepositoryRole } from './state.ts';

const routes: Route[] = [
  ...userRoutes, ...repositoryRoutes, ...installationRoutes, ...gitDataRoutes, ...contentsRoutes, ...archiveRoutes, ...commitRoutes, ...statusRoutes,
  ...pullRoutes, ...issueCommentRoutes, ...labelRoutes, ...checkRunRoutes, ...checkRerunRoutes, ...ruleRoutes, ...branchProtectionRoutes,
];

export function createGitHubServer(ctx: GitHubServerContext): Server {
  return createServer((request, response) => {
    handle(ctx, request, response).catch((error: unknown) => {
      const message = error instanceof Error ? error.message : String(error);
      send(response, 500, { message, documentation_url: 'https://docs.github.com/rest', status: '500' });
    });
  });
}

/** Sends a JSON answer; returns the bytes of its body. */
function send(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): number {
  if (response.headersSent || response.destroyed) return 0;
  const text = status === 204 || status === 304 ? '' : JSON.stringify(body);
  // A 204 or 304 has no body, and GitHub sends no Content-Type with it.
  const contentType = status === 204 || status === 304 ? {} : { 'Content-Type': 'application/json; charset=utf-8' };
  response.writeHead(status, { ...contentType, 'x-github-media-type': 'github.v3; format=json', ...headers });
  response.end(text);
  return Buffer.byteLength(text);
}

function sendError(response: ServerResponse, error: GitHubError, headers: Record<string, string>): number {
  const body = { message: error.message, ...(error.errors ? { errors: error.errors } : {}), documentation_url: error.documentationUrl, status: String(error.status) };
  return send(response, error.status, body, { ...headers, ...error.headers });
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
  // The repository as a git remote (`git clone <url>/<owner>/<repo>.git`): git's smart HTTP, not the REST API.
  if (isGitRequest(url.pathname)) {
    await serveGit(ctx, request, response, url);
    return;
  }
  const method = request.method ?? 'GET';
  const matched = routes.map((r) => ({ r, m: r.method === method ? r.pattern.exec(url.pathname) : null })).find((x) => x.m);
  const operation = matched?.r.operation ?? `${method} ${url.pathname}`;
  const fault = ctx.faults.match(method, operation, undefined) ?? ctx.faults.match(method, '*', undefined);
  let status = 0;
  let bytes = 0;
  // Answers to an authenticated caller carry its rate-limit budget (after this request), and a classic token's scopes.
  let rateLimitSubject: string | undefined;
  let scopes: readonly string[] | undefined;
  const rateHeaders = (): Record<string, string> => ({
    ...(rateLimitSubject === undefined ? {} : ctx.state.rateLimit.headers(rateLimitSubject)),
    ...(scopes === undefined ? {} : { 'x-oauth-scopes': scopes.join(', ') }),
  });
  try {
    if (fault?.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault?.failure === 'reset') {
      request.socket.destroy();
      return;
    }
    if (fault?.failure === 'drop-reply') dropReply(request, response);
    else if (fault?.failure !== undefined) throw faultError(fault.failure);
    const caller = authenticate(ctx, request, matched?.r.operation);
    ctx.state.rateLimit.take(caller.rateLimitSubject);
    rateLimitSubject = caller.rateLimitSubject;
    scopes = caller.scopes;
    refuseByScope(caller, matched?.r.operation, url.pathname);
    refuseByInstallationPermissions(caller, matched?.r.operation, ctx.state.installationPermissions);
    if (!matched?.m) throw notFound();
    const params = matched.m.slice(1).map((p) => decodeURIComponent(p));
    const body = method === 'GET' || method === 'DELETE' ? {} : await readJson(request);
    const result = await matched.r.handler(ctx, params, url.searchParams, body, caller, request.headers.accept ?? '');
    status = result.status ?? 200;
    if (result.raw) {
      const etag = `"${createHash('sha1').update(result.raw).digest('hex')}"`;
      response.writeHead(200, { 'Content-Type': result.rawContentType ?? 'application/vnd.github.raw; charset=utf-8', 'Content-Length': result.raw.length, ETag: etag, ...rateHeaders(), ...result.headers });
      response.end(result.raw);
      bytes = result.raw.length;
      return;
    }
    if (method === 'GET' && status === 200) {
      const etag = `"${createHash('sha1').update(JSON.stringify(result.body)).digest('hex')}"`;
      if (request.headers['if-none-match'] === etag) {
        status = 304;
        // A conditional request answered 304 is free.
        ctx.state.rateLimit.refund(caller.rateLimitSubject);
        send(response, 304, undefined, { ETag: etag, ...rateHeaders() });
        return;
      }
      bytes = send(response, status, result.body, { ETag: etag, ...rateHeaders(), ...result.headers });
      return;
    }
    bytes = send(response, status, result.body, { ...writeHeaders(status, result.body), ...rateHeaders(), ...result.headers });
  } catch (error) {
    if (!(error instanceof GitHubError)) {
      status = 500;
      throw error;
    }
    status = error.status;
    bytes = sendError(response, error, rateHeaders());
  } finally {
    ctx.requestLog.record({ method, operation, path: url.pathname, query: url.search, status, bytes });
  }
}

/** What GitHub adds to a successful write's answer: an ETag of the body, and a 201's Location (the created resource). */
function writeHeaders(status: number, body: unknown): Record<string, string> {
  if (status < 200 || status >= 300 || status === 204 || body === undefined) return {};
  const headers: Record<string, string> = { ETag: `"${createHash('sha1').update(JSON.stringify(body)).digest('hex')}"` };
  const url = (body as { url?: unknown }).url;
  if (status === 201 && typeof url === 'string') headers.Location = url;
  return headers;
}

function faultError(code: number): GitHubError {
  if (code === 429) return new GitHubError(429, 'You have exceeded a secondary rate limit. Please wait a few minutes before you try again.', undefined, { 'retry-after': '1' });
  if (code === 403) return new GitHubError(403, 'You have exceeded a secondary rate limit and have been temporarily blocked from content creation. Please retry your request again later.', undefined, { 'retry-after': '1' });
  if (code === 503) return new GitHubError(503, 'Service Unavailable');
  return new GitHubError(code, 'Server Error');
}
