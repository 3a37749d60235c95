// Page-numbered lists with GitHub's Link header (`rel="next"`, `rel="last"`, ...).
import type { GitHubServerContext } from './state.ts';

export function paginate<T>(items: T[], query: URLSearchParams, path: string, ctx: GitHubServerContext): { body: T[]; headers: Record<string, string> } {
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
