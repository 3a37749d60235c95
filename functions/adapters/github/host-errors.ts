// GitHub's refusals said in the port's words (engine/ports.ts GitHostError), so that feedback, proposals and the edges
// never import GitHub to tell a rate limit from any other failure. Other errors pass through as Octokit threw them: the
// adapters read their status, and whether an answer came at all, where they make the call.
import { GitHostError } from '../../engine/ports.ts';
import type { GitHubClient } from './octokit.ts';

/** The clients whose errors are already converted (the source and the review host share one). */
const converted = new WeakSet<GitHubClient>();

/**
 * Has every request of `client` that GitHub refuses for its rate limit, once the throttling plugin has given up
 * waiting, throw a rate-limited GitHostError. The hook is registered after the plugins', so it wraps them: it sees
 * only what they let through.
 */
export function convertHostErrors(client: GitHubClient): void {
  if (converted.has(client)) return;
  converted.add(client);
  client.hook.error('request', (error) => {
    throw rateLimitError(error) ?? error;
  });
}

/** A primary (403 with "rate limit") or secondary (429, or 403 with "rate limit") refusal, in the port's words. */
function rateLimitError(error: unknown): GitHostError | undefined {
  const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown };
  if (typeof message !== 'string' || typeof status !== 'number') return undefined;
  if (status !== 429 && !(status === 403 && /rate limit/i.test(message))) return undefined;
  return new GitHostError(`GitHub rate limit (${status}): ${message}`, status, true, { cause: error });
}
