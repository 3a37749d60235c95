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
  /**
   * The longest wait for a rate limit to lift before a retry (60 s by default, a secondary limit's usual Retry-After).
   * A spent primary limit lifts only when its hour window resets: the request then fails at once with GitHub's 403.
   */
  maxRateLimitWaitSeconds?: number;
  log?: { warn: (message: string) => void };
}

export function createGitHubClient(options: GitHubClientOptions): GitHubClient {
  const maxRetries = options.maxRateLimitRetries ?? 2;
  const maxWait = options.maxRateLimitWaitSeconds ?? 60;
  const warn = options.log?.warn ?? (() => undefined);
  const auth = options.auth.kind === 'token'
    ? { auth: options.auth.token }
    : {
      authStrategy: createAppAuth,
      auth: { appId: options.auth.appId, privateKey: options.auth.privateKey, installationId: options.auth.installationId },
    };
  const retryOrNot = (limit: string, retryAfter: number, request: { method: string; url: string }, retryCount: number): boolean => {
    if (retryCount >= maxRetries) {
      warn(`GitHub ${limit} on ${request.method} ${request.url}; giving up after ${retryCount} retries`);
      return false;
    }
    if (retryAfter > maxWait) {
      warn(`GitHub ${limit} on ${request.method} ${request.url}; it lifts in ${retryAfter}s, longer than the ${maxWait}s this pass waits`);
      return false;
    }
    warn(`GitHub ${limit} on ${request.method} ${request.url}; retry ${retryCount + 1} after ${retryAfter}s`);
    return true;
  };
  const client = new GitHubClient({
    ...auth,
    ...(options.baseUrl ? { baseUrl: options.baseUrl } : {}),
    userAgent: 'sts-volume-gitops',
    // Failed requests are thrown to the caller, which decides (a 404 is often an answer); no console noise.
    log: { debug: () => undefined, info: () => undefined, warn, error: () => undefined },
    throttle: {
      onRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) =>
        retryOrNot('rate limit', retryAfter, request, retryCount),
      onSecondaryRateLimit: (retryAfter: number, request: { method: string; url: string }, _octokit: unknown, retryCount: number) =>
        retryOrNot('secondary rate limit', retryAfter, request, retryCount),
    },
    retry: { doNotRetry: [400, 401, 403, 404, 409, 422, 451] },
  });
  // plugin-retry resends a request after a 5xx or a network error. A POST whose reply was lost may have created what
  // it asked for (a comment, a status, a pull request): resending it creates a second one. POSTs are not resent; the
  // next pass reads first and finishes the job. Edits (PATCH, PUT) and reads are retried as before.
  client.hook.before('request', (options) => {
    if (options.method === 'POST') options.request = { ...options.request, retries: 0 };
  });
  return client;
}
