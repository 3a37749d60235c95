// GitHub's primary rate limit: a budget of requests per hour window, counted per user (all of a person's tokens
// share it) or per App installation, announced on every answer in `x-ratelimit-*` headers. When it is used up the
// answer is 403 with `x-ratelimit-remaining: 0` until the window resets.
import { randomBytes } from 'node:crypto';
import { GitHubError } from './errors.ts';

export interface RateLimitOptions {
  /** Requests per window (GitHub: 5000 for a user or an installation). */
  limit?: number;
  windowSeconds?: number;
}

interface Window {
  /** Epoch seconds at which the budget is whole again. */
  reset: number;
  used: number;
}

export class RateLimiter {
  /** Adjustable while running, so a test can exhaust the budget in a few requests. */
  limit: number;
  windowSeconds: number;
  private readonly windows = new Map<string, Window>();

  constructor(options: RateLimitOptions = {}, private readonly clock: () => number = Date.now) {
    this.limit = options.limit ?? 5000;
    this.windowSeconds = options.windowSeconds ?? 3600;
  }

  /** Counts one request against `subject`'s window, or refuses it as GitHub does once the budget is spent. */
  take(subject: string): void {
    const window = this.window(subject);
    if (window.used >= this.limit) {
      const requestId = randomBytes(8).toString('hex').toUpperCase().replace(/(.{4})(.{4})(.{4})(.{4})/, '$1:$2:$3:$4');
      const timestamp = new Date(this.clock()).toISOString().replace('T', ' ').replace(/\.\d{3}Z$/, '');
      throw new GitHubError(403,
        `API rate limit exceeded for ${subject}. If you reach out to GitHub Support for help, please include the request ID ${requestId} and timestamp ${timestamp} UTC.`,
        undefined, this.headers(subject), 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api');
    }
    window.used += 1;
  }

  /** A conditional request answered 304 does not count against the primary limit. */
  refund(subject: string): void {
    const window = this.window(subject);
    window.used = Math.max(0, window.used - 1);
  }

  headers(subject: string): Record<string, string> {
    const window = this.window(subject);
    return {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, this.limit - window.used)),
      'x-ratelimit-reset': String(window.reset),
      'x-ratelimit-used': String(window.used),
      'x-ratelimit-resource': 'core',
    };
  }

  private window(subject: string): Window {
    const now = Math.floor(this.clock() / 1000);
    let window = this.windows.get(subject);
    if (!window || window.reset <= now) {
      window = { reset: now + this.windowSeconds, used: 0 };
      this.windows.set(subject, window);
    }
    return window;
  }
}
