// The route table: GitHub's path templates (`{owner}`, `{+path}`) as patterns, each with its Octokit operation name.
import type { GitHubServerContext, Identity, Json } from './state.ts';

export interface HandlerResult {
  status?: number;
  body: unknown;
  headers?: Record<string, string>;
  /** Bytes answered as-is (the raw media type) instead of JSON. */
  raw?: Buffer;
  /** The raw bytes' Content-Type (the raw media type unless said). */
  rawContentType?: string;
}

export type Handler = (ctx: GitHubServerContext, params: string[], query: URLSearchParams, body: Json, caller: Identity, accept: string) => Promise<HandlerResult>;

export interface Route {
  method: string;
  pattern: RegExp;
  operation: string;
  handler: Handler;
}

/** A `route(method, path, operation, handler)` function that adds to `routes`. */
export function routeInto(routes: Route[]): (method: string, path: string, operation: string, handler: Handler) => void {
  return (method, path, operation, handler) => {
    const pattern = new RegExp(`^${path.replace(/\{[a-z_]+\}/g, '([^/]+)').replace(/\{\+[a-z_]+\}/g, '(.+)')}$`);
    routes.push({ method, pattern, operation, handler });
  };
}

export const repoPath = '/repos/{owner}/{repo}';

/** A request field as a string (GitHub treats a missing or non-string field as empty). */
export function str(value: unknown, fallback: string): string {
  return typeof value === 'string' ? value : fallback;
}
