// Paging of list answers as kube-apiserver v1.26 does it: `limit` with a `continue` token (base64url JSON naming the
// list's resourceVersion and the key to start after), the real error texts for a bad token or resourceVersion, and
// `resourceVersion=0`, which is served from the watch cache and ignores `limit`.
import { badRequest, type ApiError } from './api-errors.ts';
import type { KubeObject } from './store.ts';

interface ContinueToken {
  v: string;
  rv: number;
  start: string;
}

export interface Page {
  items: KubeObject[];
  continue?: string;
  remainingItemCount?: number;
}

/** encoding/json's way of quoting an unexpected byte: `'x'`, or `'\u009e'` when it is not printable. */
function quoteByte(byte: number): string {
  if (byte >= 0x20 && byte < 0x7f) return `'${String.fromCharCode(byte)}'`;
  return `'\\u${byte.toString(16).padStart(4, '0')}'`;
}

function decodeToken(token: string): ContinueToken {
  const invalid = (why: string): ApiError => badRequest(`invalid continue token: continue key is not valid: ${why}`);
  if (!/^[A-Za-z0-9_-]*$/.test(token)) throw invalid('illegal base64 data at input byte 0');
  const bytes = Buffer.from(token, 'base64url');
  const first = bytes.find((b) => ![0x20, 0x09, 0x0a, 0x0d].includes(b));
  if (first !== undefined && first !== 0x7b) throw invalid(`invalid character ${quoteByte(first)} looking for beginning of value`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    throw invalid('unexpected end of JSON input');
  }
  const candidate = parsed as Partial<ContinueToken>;
  if (candidate.v !== 'meta.k8s.io/v1') throw invalid(`got version ${JSON.stringify(candidate.v ?? '')}, expected "meta.k8s.io/v1"`);
  if (typeof candidate.start !== 'string' || candidate.start === '') throw invalid('no start key');
  return { v: candidate.v, rv: Number(candidate.rv ?? 0), start: candidate.start };
}

function encodeToken(rv: string, start: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: Number(rv), start: `${start}\u0000` }), 'utf8').toString('base64url');
}

/** A token's start key ends in NUL (the smallest key after the last one served). */
function trimNul(key: string): string {
  return key.endsWith('\u0000') ? key.slice(0, -1) : key;
}

/** The key an item sorts by within the list (etcd key relative to the listed prefix). */
function keyOf(item: KubeObject, namespaced: boolean): string {
  return namespaced ? item.metadata.name : `${item.metadata.namespace ?? ''}/${item.metadata.name}`;
}

/** `all` sorted as etcd sorts keys; `inNamespace` when the list names one namespace (or the type has none). */
export function page(all: KubeObject[], query: URLSearchParams, currentResourceVersion: string, inNamespace: boolean, filtered: boolean): Page {
  const resourceVersion = query.get('resourceVersion');
  if (resourceVersion !== null && resourceVersion !== '' && !/^\d+$/.test(resourceVersion)) {
    throw badRequest(`invalid resource version: resourceVersion: Invalid value: ${JSON.stringify(resourceVersion)}: strconv.ParseUint: parsing ${JSON.stringify(resourceVersion)}: invalid syntax`);
  }
  const limit = Number(query.get('limit') ?? '0');
  // resourceVersion=0 is answered from the watch cache, which does not page.
  if (resourceVersion === '0' || !(limit > 0)) return { items: all };
  const token = query.get('continue');
  const start = token ? trimNul(decodeToken(token).start) : undefined;
  const rest = start === undefined ? all : all.filter((item) => keyOf(item, inNamespace) > start);
  const items = rest.slice(0, limit);
  const last = items.at(-1);
  if (rest.length <= limit || last === undefined) return { items };
  return {
    items,
    continue: encodeToken(currentResourceVersion, keyOf(last, inNamespace)),
    // The server counts the rest only when no selector filtered the list.
    ...(filtered ? {} : { remainingItemCount: rest.length - limit }),
  };
}
