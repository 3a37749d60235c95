// Label selectors (equality- and set-based) and field selectors, as list requests use them.
import { badRequest } from './api-errors.ts';
import type { KubeObject } from './store.ts';

type Requirement = (labels: Record<string, string>) => boolean;

export function parseLabelSelector(selector: string | undefined): (labels: Record<string, string> | undefined) => boolean {
  if (!selector) return () => true;
  const requirements: Requirement[] = splitTopLevel(selector).map((part) => parseRequirement(part.trim()));
  return (labels) => requirements.every((r) => r(labels ?? {}));
}

function splitTopLevel(selector: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of selector) {
    if (char === '(') depth++;
    if (char === ')') depth--;
    if (char === ',' && depth === 0) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  if (current.trim() !== '') parts.push(current);
  return parts;
}

function parseRequirement(text: string): Requirement {
  const set = /^([\w./-]+)\s+(in|notin)\s+\(([^)]*)\)$/.exec(text);
  if (set) {
    const [, key = '', operator, list = ''] = set;
    const values = list.split(',').map((v) => v.trim()).filter((v) => v !== '');
    return operator === 'in' ? (l) => key in l && values.includes(l[key] ?? '') : (l) => !(key in l) || !values.includes(l[key] ?? '');
  }
  const equality = /^([\w./-]+)\s*(==|=|!=)\s*([\w./-]*)$/.exec(text);
  if (equality) {
    const [, key = '', operator, value = ''] = equality;
    return operator === '!=' ? (l) => l[key] !== value : (l) => l[key] === value;
  }
  const notExists = /^!([\w./-]+)$/.exec(text);
  if (notExists) return (l) => !((notExists[1] ?? '') in l);
  if (/^[\w./-]+$/.test(text)) return (l) => text in l;
  throw badRequest(`unable to parse requirement: invalid label selector: ${JSON.stringify(text)}`);
}

export function parseFieldSelector(selector: string | undefined): (object: KubeObject) => boolean {
  if (!selector) return () => true;
  const requirements = selector.split(',').map((part) => {
    const match = /^([\w.]+)\s*(==|=|!=)\s*(.*)$/.exec(part.trim());
    if (!match) throw badRequest(`invalid field selector: ${JSON.stringify(part)}`);
    const [, field = '', operator, value = ''] = match;
    return { field, negate: operator === '!=', value };
  });
  return (object) => requirements.every(({ field, negate, value }) => {
    const actual = field.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Record<string, unknown>)[key] : undefined), object);
    const matches = (typeof actual === 'string' || typeof actual === 'number' || typeof actual === 'boolean' ? String(actual) : '') === value;
    return negate ? !matches : matches;
  });
}

/** The label and field selectors of a list, watch or deletecollection request, as one test of an object. */
export function selectorsOf(query: URLSearchParams): (object: KubeObject) => boolean {
  const labels = parseLabelSelector(query.get('labelSelector') ?? undefined);
  const fields = parseFieldSelector(query.get('fieldSelector') ?? undefined);
  return (object) => labels(object.metadata.labels) && fields(object);
}
