// The Octokit the tool uses: REST + throttling (secondary rate limits) + retry (5xx), authenticated by a token or as a
// GitHub App installation, the way the ecosystem does it.
import { createAppAuth } from '@octokit/auth-app';
import { retry } from '@octokit/plugin-retry';
import { throttling } from '@octokit/plugin-throttling';
import { Octokit } from '@octokit/rest';
import Bottleneck from 'bottleneck';

export const GitHubClient = Octokit.plugin(throttling, retry);
export type GitHubClient = InstanceType<typeof GitHubClient>;

/** One repository on the host. */
export interface RepoRef {
  owner: string;
  repo: string;
}

export type GitHubAuth =
  | { kind: 'token'; token: string }
  | { kind: 'app'; appId: number; installationId: number; privateKey: string };

export interface GitHubClientOptions {
  baseUrl?: string;
  auth: GitHubAuth;
  /** Retries after rate limits; the scheduled pass is better off stopping than waiting minutes. */
  maxRateLimitRetries?: number;
  /**
   * The longest wait for a rate limit to lift before a retry (60 s by default, a secondary limit's usual Retry-After).
   * A spent primary limit lifts only when its hour window resets: the request then fails at once with GitHub's 403.
   */
  maxRateLimitWaitSeconds?: number;
  log?: { warn: (message: string) => void };
  /** Milliseconds the next request may take (asked per request: it shrinks with the invocation's time left). */
  requestTimeoutMs?: () => number;
  /** Whether a rate limit's wait still leaves time to finish; a wait that does not is not taken (the request fails). */
  canWait?: (waitMs: number) => boolean;
  /**
   * Whether writes keep the spacing GitHub asks of integrations (plugin-throttling's: a second between writes, three
   * between those that notify people), as they do by default. Off only against a host without secondary rate limits:
   * the embedded sandbox (`npm start`, tests), where the spacing was about 40% of a pass's time. Writes stay one at a time.
   */
  spaceWrites?: boolean;
}

/** One write at a time, at once: plugin-throttling's write queues without their spacing. */
function unspacedWrites(): { write: Bottleneck.Group; notifications: Bottleneck.Group } {
  return { write: new Bottleneck.Group({ maxConcurrent: 1 }), notifications: new Bottleneck.Group({ maxConcurrent: 1 }) };
}

/** Every request, the installation token's included, aborts after its timeout. */
function fetchWithTimeout(timeoutMs: () => number): typeof fetch {
  return (input, init) => {
    const timeout = AbortSignal.timeout(timeoutMs());
    return fetch(input, { ...init, signal: init?.signal ? AbortSignal.any([init.signal, timeout]) : timeout });
  };
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
  const maxWait = options.maxRateLimitWaitSeconds ?? 60;
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
  const retryAfterRateLimit = (kind: string, retryAfter: number, request: { method: string; url: string }, retryCount: number): boolean => {
    if (retryCount >= maxRetries) {
      warn(`GitHub ${kind} on ${request.method} ${request.url}; giving up after ${retryCount} retries`);
      return false;
    }
    if (retryAfter > maxWait) {
      warn(`GitHub ${kind} on ${request.method} ${request.url}; it lifts in ${retryAfter}s, longer than the ${maxWait}s this pass waits`);
      return false;
    }
    if (options.canWait && !options.canWait(retryAfter * 1000)) {
      warn(`GitHub ${kind} on ${request.method} ${request.url}; not waiting ${retryAfter}s, past this invocation's time`);
      return false;
    }
    warn(`GitHub ${kind} on ${request.method} ${request.url}; retry ${retryCount + 1} after ${retryAfter}s`);
    return true;
  };
  const client = new GitHubClient({
    ...auth,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    ...(options.requestTimeoutMs ? { request: { fetch: fetchWithTimeout(options.requestTimeoutMs) } } : {}),
    userAgent: 'sts-volume-gitops',
    // Failed requests are thrown to the caller, which decides (a 404 is often an answer); no console noise.
    log: { debug: () => undefined, info: () => undefined, warn, error: () => undefined },
    throttle: {
      onRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) =>
        retryAfterRateLimit('rate limit', retryAfter, request, retryCount),
      onSecondaryRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) =>
        retryAfterRateLimit('secondary rate limit', retryAfter, request, retryCount),
      ...(options.spaceWrites === false ? unspacedWrites() : {}),
    },
    // 429 is plugin-throttling's (it honours Retry-After and the deadline); plugin-retry would retry it blindly.
    retry: { doNotRetry: [400, 401, 403, 404, 409, 422, 429, 451] },
  });
  // plugin-retry resends a request after a 5xx or a network error. A POST whose reply was lost may have created what
  // it asked for (a comment, a status, a pull request): resending it creates a second one. POSTs are not resent; the
  // next pass reads first and finishes the job. Edits (PATCH, PUT) and reads are retried as before.
  client.hook.before('request', (options) => {
    if (options.method === 'POST') options.request = { ...options.request, retries: 0 };
  });
  return client;
}

/** Reports every request the client sends, retries included (for the API-call metrics). */
export function observeGitHubRequests(client: GitHubClient, observe: (method: string, url: string) => void): void {
  client.hook.before('request', (options) => { observe(options.method, options.url); });
}
