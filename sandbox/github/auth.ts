// Who is calling: a token the sandbox issued (a person's or an installation's), or a GitHub App's RS256 JWT.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { GitHubError, notFound } from './errors.ts';
import { userId } from './shapes.ts';
import type { GitHubServerContext, GitHubState, Identity, RepositoryRole } from './state.ts';

/** Operations GitHub authenticates with the App's JWT rather than a token. */
const appJwtOperations = new Set(['apps.createInstallationAccessToken', 'apps.getAuthenticated', 'apps.getInstallation', 'apps.getRepoInstallation']);

/**
 * A person's token (all of a person's tokens share one rate limit): a classic one with its OAuth `scopes`, or, without
 * scopes, a fine-grained one.
 */
export function personIdentity(login: string, role: RepositoryRole = 'write', scopes?: readonly string[]): Identity {
  return { login, type: 'User', credential: 'token', role, rateLimitSubject: `user ID ${userId(login)}`, ...(scopes ? { scopes } : {}) };
}

/** An installation token: the App acts as its bot user, with the installation's permissions and rate limit. */
export function installationIdentity(state: GitHubState): Identity {
  return { login: `${state.appSlug}[bot]`, type: 'Bot', credential: 'installation', role: 'write', rateLimitSubject: `installation ID ${state.installationId}` };
}

export function authenticate(ctx: GitHubServerContext, request: IncomingMessage, operation: string | undefined): Identity {
  const header = request.headers.authorization ?? '';
  const match = /^(?:Bearer|token)\s+(.+)$/i.exec(header);
  if (!match?.[1]) throw new GitHubError(401, 'Requires authentication');
  const credential = match[1];
  if (operation !== undefined && appJwtOperations.has(operation)) {
    verifyAppJwt(ctx.state, credential);
    return { login: ctx.state.appSlug, type: 'Bot', credential: 'app', role: 'read', rateLimitSubject: `app ID ${ctx.state.appId}` };
  }
  const identity = ctx.state.tokens.get(credential);
  if (!identity) throw new GitHubError(401, 'Bad credentials');
  return identity;
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

export function appPublicKeyFrom(pem: string): KeyObject {
  return createPublicKey(pem);
}

/** Commit status operations, which a classic token's `repo:status` scope reaches in a private repository. */
const statusOperations = new Set(['repos.createCommitStatus', 'repos.listCommitStatusesForRef', 'repos.getCombinedStatusForRef']);

/**
 * A classic token sees the (private) repository only with the `repo` scope, or its commit statuses with `repo:status`;
 * GitHub answers anything else 404, as if the repository did not exist. Fine-grained and installation tokens carry no
 * scopes and are not refused here.
 */
export function refuseByScope(caller: Identity, operation: string | undefined, path: string): void {
  if (caller.scopes === undefined || !path.startsWith('/repos/') || caller.scopes.includes('repo')) return;
  if (caller.scopes.includes('repo:status') && operation !== undefined && statusOperations.has(operation)) return;
  throw notFound();
}
