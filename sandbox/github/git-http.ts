// The repository as a git remote, as github.com serves it: git's smart HTTP at `/<owner>/<repo>.git`, answered by
// `git http-backend` (git's own CGI) over the sandbox's bare repository, with the API's credentials (a token as the
// password, any user name). Reading needs a token that sees the repository; pushing needs write access (a person's
// role, an installation's `contents: write`). A push is then what it is on GitHub: the branches it moved are delivered
// as `push` (and `synchronize` for the pull requests they are the heads of), by events.ts. Forks' branches, kept
// beside the repository's, are hidden from clones and cannot be pushed.
import { spawn } from 'node:child_process';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { basename, dirname } from 'node:path';
import { branchMoved } from './events.ts';
import type { GitHubServerContext, GitHubState, Identity } from './state.ts';

const gitPath = /^\/([^/]+)\/([^/]+?)(?:\.git)?\/(info\/refs|git-upload-pack|git-receive-pack)$/;

export function isGitRequest(pathname: string): boolean {
  return gitPath.test(pathname);
}

/** Pushes to one repository run one at a time, so the branches each moved are told apart. */
const pushes = new WeakMap<GitHubState, Promise<unknown>>();

function plain(response: ServerResponse, status: number, text: string, headers: Record<string, string> = {}): void {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', ...headers }).end(`${text}\n`);
}

/** The token in `Authorization`: the password of Basic auth (or its user name with no password), or a Bearer token. */
function tokenOf(request: IncomingMessage): string | undefined {
  const header = request.headers.authorization ?? '';
  const bearer = /^(?:Bearer|token)\s+(.+)$/i.exec(header)?.[1];
  if (bearer !== undefined) return bearer;
  const basic = /^Basic\s+(.+)$/i.exec(header)?.[1];
  if (basic === undefined) return undefined;
  const [user = '', password = ''] = Buffer.from(basic, 'base64').toString('utf8').split(/:(.*)/s);
  return password !== '' && password !== 'x-oauth-basic' ? password : user;
}

function mayPush(ctx: GitHubServerContext, caller: Identity): boolean {
  if (caller.credential === 'installation') return ctx.state.installationPermissions.contents === 'write';
  return caller.role !== 'read' && caller.role !== 'triage';
}

function mayRead(ctx: GitHubServerContext, caller: Identity): boolean {
  if (caller.credential === 'installation') return ctx.state.installationPermissions.contents !== undefined;
  // A classic token sees a private repository only with the `repo` scope.
  return caller.scopes === undefined || caller.scopes.includes('repo');
}

export async function serveGit(ctx: GitHubServerContext, request: IncomingMessage, response: ServerResponse, url: URL): Promise<void> {
  const [, owner = '', repo = '', endpoint = ''] = gitPath.exec(url.pathname) ?? [];
  const { state } = ctx;
  if (owner.toLowerCase() !== state.owner.toLowerCase() || repo.toLowerCase() !== state.repo.toLowerCase()) {
    plain(response, 404, 'Repository not found.');
    return;
  }
  const service = endpoint === 'info/refs' ? url.searchParams.get('service') : endpoint;
  if (service !== 'git-upload-pack' && service !== 'git-receive-pack') {
    plain(response, 403, 'the dumb HTTP protocol is not served: use a git client that speaks smart HTTP');
    return;
  }
  const token = tokenOf(request);
  const caller = token === undefined ? undefined : state.tokens.get(token);
  if (caller === undefined) {
    // git asks for credentials on this answer; a token goes in as the password.
    plain(response, 401, token === undefined ? 'Authentication required: the token is the password' : 'Invalid username or token. Password authentication is not supported for Git operations.',
      { 'WWW-Authenticate': 'Basic realm="GitHub"' });
    return;
  }
  if (!mayRead(ctx, caller)) {
    plain(response, 404, 'Repository not found.');
    return;
  }
  if (service === 'git-receive-pack' && !mayPush(ctx, caller)) {
    plain(response, 403, `Permission to ${state.owner}/${state.repo}.git denied to ${caller.login}.`);
    return;
  }
  if (service === 'git-receive-pack' && endpoint === 'git-receive-pack') {
    const previous = pushes.get(state) ?? Promise.resolve();
    const push = previous.then(() => receivePack(ctx, request, response, caller.login), () => receivePack(ctx, request, response, caller.login));
    pushes.set(state, push.catch(() => undefined));
    await push;
    return;
  }
  await runBackend(ctx, request, response, endpoint, caller.login);
}

async function receivePack(ctx: GitHubServerContext, request: IncomingMessage, response: ServerResponse, login: string): Promise<void> {
  const branches = async (): Promise<Map<string, string>> => new Map((await ctx.state.git.refs('refs/heads/')).map((r) => [r.ref.slice('refs/heads/'.length), r.sha]));
  const before = await branches();
  // Queued before the push's answer ends, so what the pusher does next comes after its deliveries.
  await runBackend(ctx, request, response, 'git-receive-pack', login, async () => {
    const after = await branches();
    for (const branch of new Set([...before.keys(), ...after.keys()])) {
      if (before.get(branch) !== after.get(branch)) void branchMoved(ctx, branch, before.get(branch), after.get(branch), login);
    }
  });
}

/** `git http-backend` for one request: the body to its stdin, its CGI answer (headers, a blank line, the body) back. */
function runBackend(ctx: GitHubServerContext, request: IncomingMessage, response: ServerResponse, endpoint: string, login: string, beforeEnd?: () => Promise<void>): Promise<void> {
  const repository = ctx.state.git.dir;
  const url = new URL(request.url ?? '/', 'http://sandbox');
  const header = (name: string): string => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : value ?? '';
  };
  const child = spawn('git', ['http-backend'], {
    env: {
      PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', GIT_CONFIG_NOSYSTEM: '1',
      GIT_PROJECT_ROOT: dirname(repository), GIT_HTTP_EXPORT_ALL: '1', PATH_INFO: `/${basename(repository)}/${endpoint}`,
      REQUEST_METHOD: request.method ?? 'GET', QUERY_STRING: url.search.slice(1), CONTENT_TYPE: header('content-type'),
      ...(request.headers['content-length'] !== undefined ? { CONTENT_LENGTH: header('content-length') } : {}),
      HTTP_CONTENT_ENCODING: header('content-encoding'), GIT_PROTOCOL: header('git-protocol'),
      // Pushing is on for an authenticated user; forks' branches are neither shown nor writable.
      REMOTE_USER: login, REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
      GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'transfer.hideRefs', GIT_CONFIG_VALUE_0: 'refs/forks',
    },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  request.pipe(child.stdin);
  return new Promise((resolve, reject) => {
    let head = Buffer.alloc(0);
    let headersSent = false;
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => { errors += chunk.toString('utf8'); });
    child.stdout.on('data', (chunk: Buffer) => {
      if (headersSent) {
        response.write(chunk);
        return;
      }
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n') >= 0 ? head.indexOf('\r\n\r\n') : head.indexOf('\n\n');
      if (end < 0) return;
      const separator = head.indexOf('\r\n\r\n') === end ? 4 : 2;
      const headers: Record<string, string> = {};
      let status = 200;
      for (const line of head.subarray(0, end).toString('utf8').split(/\r?\n/)) {
        const colon = line.indexOf(':');
        if (colon < 0) continue;
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10) || 200;
        else headers[name] = value;
      }
      response.writeHead(status, headers);
      headersSent = true;
      response.write(head.subarray(end + separator));
    });
    child.on('error', reject);
    child.on('close', (code) => {
      // A push moved refs behind the repository's back (a clone or fetch moves none: the refs read stay good).
      if (endpoint === 'git-receive-pack') ctx.state.git.refsMayHaveMoved();
      if (!headersSent) {
        plain(response, 500, `git http-backend failed (${String(code)}): ${errors.trim()}`);
        resolve();
        return;
      }
      (beforeEnd ?? (() => Promise.resolve()))().finally(() => response.end()).then(resolve, reject);
    });
  });
}
