// The Octokit the tool uses: REST + throttling (secondary rate limits) + retry (5xx), authenticated by a token or as a
// GitHub App installation, the way the ecosystem does it.
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';

export const GitHubClient = Octokit.plugin(throttling, retry);
export type GitHubClient = InstanceType<typeof GitHubClient>;

export type GitHubAuth =
  | { kind: 'token'; token: string }
  | { kind: 'app'; appId: number; installationId: number; privateKey: string };

export interface GitHubClientOptions {
  baseUrl?: string;
  auth: GitHubAuth;
  /** Retries after rate limits; the scheduled pass is better off stopping than waiting minutes. */
  maxRateLimitRetries?: number;
  log?: { warn: (message: string) => void };
}

/**
 * Installation tokens live an hour. They are kept here, at module level, so warm Lambda invocations (each with a new
 * client) reuse them; one is reused only while at least 15 minutes of it remain, longer than any invocation runs.
 * The store is keyed by GitHub host and App: installation ids are unique per host only.
 */
const tokenReuseMs = 45 * 60 * 1000;
const installationTokens = new Map<string, Map<string, { value: string; reusableUntil: number }>>();

/** The `cache` option of @octokit/auth-app, over the module-level store (the value is auth-app's own encoding). */
export function installationTokenCache(scope: string, now: () => number = Date.now): { get(key: string): string | undefined; set(key: string, value: string): void } {
  const entries = installationTokens.get(scope) ?? new Map<string, { value: string; reusableUntil: number }>();
  installationTokens.set(scope, entries);
  return {
    get: (key) => {
      const entry = entries.get(key);
      if (entry && entry.reusableUntil > now()) return entry.value;
      entries.delete(key);
      return undefined;
    },
    set: (key, value) => { entries.set(key, { value, reusableUntil: now() + tokenReuseMs }); },
  };
}

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const maxRetries = options.maxRateLimitRetries ?? 2;
  const warn = options.log?.warn ?? (() => undefined);
  const auth = options.auth.kind === 'token'
    ? { auth: options.auth.token }
    : {
      authStrategy: createAppAuth,
      auth: {
        appId: options.auth.appId, privateKey: options.auth.privateKey, installationId: options.auth.installationId,
        cache: installationTokenCache(`${options.baseUrl ?? 'https://api.github.com'}|${options.auth.appId}`),
      },
    };
  return new GitHubClient({
    ...auth,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    userAgent: 'sts-volume-gitops',
    // Failed requests are thrown to the caller, which decides (a 404 is often an answer); no console noise.
    log: { debug: () => undefined, info: () => undefined, warn, error: () => undefined },
    throttle: {
      onRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
        warn(`GitHub rate limit on ${request.method} ${request.url}; retry ${retryCount + 1} after ${retryAfter}s`);
        return retryCount < maxRetries;
      },
      onSecondaryRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) => {
        warn(`GitHub secondary rate limit on ${request.method} ${request.url}; retry ${retryCount + 1} after ${retryAfter}s`);
        return retryCount < maxRetries;
      },
    },
    retry: { doNotRetry: [400, 401, 403, 404, 409, 422, 451] },
  });
}

/** Reports every request the client sends, retries included (for the API-call metrics). */
export function observeGitHubRequests(client: GitHubClient, observe: (method: string, url: string) => void): void {
  client.hook.before('request', (options) => { observe(options.method, options.url); });
}
