// The three patch types the API server accepts for built-in types: JSON merge patch (RFC 7386), strategic merge
// patch (lists merged or replaced as each kind's Go type declares: patch-strategies.ts), and JSON patch (RFC 6902).
import { isDeepStrictEqual } from 'node:util';
import { ApiError, badRequest, unsupportedMediaType } from './api-errors.ts';
import { listStrategyAt } from './patch-strategies.ts';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type JsonMap = { [key: string]: Json };

function isMap(value: unknown): value is JsonMap {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function mergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return structuredClone(patch);
  const result: JsonMap = isMap(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = mergePatch(result[key], value) as Json;
  }
  return result;
}

/**
 * A strategic merge patch as the API server applies one to a built-in kind: maps merge, `null` deletes, and a list
 * merges only where the kind's Go type says so (patch-strategies.ts: containers by name, conditions by type,
 * finalizers as a set); any other list, a RoleBinding's `subjects` among them, is replaced by the patch's.
 * Directives: `$patch: delete` on a merged item, `$patch: replace` in a merged list, `$deleteFromPrimitiveList/x`;
 * `$setElementOrder/x` and `$retainKeys` are accepted and not applied (order and retained keys are not modelled).
 */
export function strategicMergePatch(target: unknown, patch: unknown, kind?: string, path: readonly string[] = []): unknown {
  if (!isMap(patch)) return structuredClone(patch);
  const ofKind = kind ?? (isMap(target) && typeof target.kind === 'string' ? target.kind : undefined);
  const result: JsonMap = isMap(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    const deleteFrom = /^\$deleteFromPrimitiveList\/(.+)$/.exec(key)?.[1];
    const listed = deleteFrom === undefined ? undefined : result[deleteFrom];
    if (deleteFrom !== undefined && Array.isArray(value) && Array.isArray(listed)) {
      result[deleteFrom] = listed.filter((item) => !value.some((gone) => isDeepStrictEqual(gone, item)));
    }
    if (key.startsWith('$')) continue;
    const current = result[key];
    if (value === null) delete result[key];
    else if (Array.isArray(value)) result[key] = patchList(current, value, ofKind, [...path, key]);
    else result[key] = strategicMergePatch(current, value, ofKind, [...path, key]) as Json;
  }
  return result;
}

function patchList(current: Json | undefined, patch: Json[], kind: string | undefined, path: readonly string[]): Json[] {
  const strategy = listStrategyAt(kind, path);
  const existing = Array.isArray(current) ? current : [];
  if (strategy === 'replace') return structuredClone(patch);
  if (strategy === 'merge-primitives') return [...existing, ...patch.filter((item) => !existing.some((e) => isDeepStrictEqual(e, item)))];
  const isReplace = (item: Json): boolean => isMap(item) && item.$patch === 'replace';
  if (patch.some(isReplace)) return structuredClone(patch.filter((item) => !isReplace(item)));
  const keyOf = (item: Json): Json | undefined => (isMap(item) ? item[strategy.mergeKey] : undefined);
  const merged = [...existing];
  for (const item of patch) {
    const itemKey = keyOf(item);
    const index = itemKey === undefined ? -1 : merged.findIndex((e) => isDeepStrictEqual(keyOf(e), itemKey));
    const remove = isMap(item) && item.$patch === 'delete';
    if (index >= 0 && remove) merged.splice(index, 1);
    else if (index >= 0) merged[index] = strategicMergePatch(merged[index], item, kind, path) as Json;
    else if (!remove) merged.push(structuredClone(item));
  }
  return merged;
}

interface Operation {
  op: string;
  path: string;
  value?: Json;
  from?: string;
}

function parsePointer(pointer: string): string[] {
  if (pointer === '') return [];
  if (!pointer.startsWith('/')) throw badRequest(`the server rejected our request due to an error in our request: invalid JSON pointer ${JSON.stringify(pointer)}`);
  return pointer.slice(1).split('/').map((p) => p.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function parentOf(document: Json, segments: string[]): { parent: Json; key: string } {
  let node: Json = document;
  for (const segment of segments.slice(0, -1)) {
    const next: Json | undefined = Array.isArray(node) ? node[Number(segment)] : isMap(node) ? node[segment] : undefined;
    if (next === undefined) throw badRequest(`the server rejected our request due to an error in our request: path /${segments.join('/')} does not exist`);
    node = next;
  }
  return { parent: node, key: segments[segments.length - 1] ?? '' };
}

function read(document: Json, pointer: string): Json {
  const segments = parsePointer(pointer);
  if (segments.length === 0) return document;
  const { parent, key } = parentOf(document, segments);
  const value = Array.isArray(parent) ? parent[Number(key)] : isMap(parent) ? parent[key] : undefined;
  if (value === undefined) throw badRequest(`the server rejected our request due to an error in our request: path ${pointer} does not exist`);
  return value;
}

function write(document: Json, pointer: string, value: Json | undefined, mode: 'add' | 'replace' | 'remove'): Json {
  const segments = parsePointer(pointer);
  if (segments.length === 0) return mode === 'remove' ? null : (value ?? null);
  const { parent, key } = parentOf(document, segments);
  if (Array.isArray(parent)) {
    const index = key === '-' ? parent.length : Number(key);
    if (!Number.isInteger(index) || index < 0 || index > parent.length) throw badRequest(`the server rejected our request due to an error in our request: index ${key} out of range`);
    if (mode === 'add') parent.splice(index, 0, value ?? null);
    else if (mode === 'replace') parent[index] = value ?? null;
    else parent.splice(index, 1);
  } else if (isMap(parent)) {
    if (mode !== 'add' && !(key in parent)) throw badRequest(`the server rejected our request due to an error in our request: path ${pointer} does not exist`);
    if (mode === 'remove') delete parent[key];
    else parent[key] = value ?? null;
  } else {
    throw badRequest(`the server rejected our request due to an error in our request: path ${pointer} does not exist`);
  }
  return document;
}

export function jsonPatch(target: unknown, operations: unknown): unknown {
  if (!Array.isArray(operations)) throw badRequest('the server rejected our request due to an error in our request: a JSON patch must be a list of operations');
  let document = structuredClone(target) as Json;
  for (const raw of operations as Operation[]) {
    switch (raw.op) {
      case 'add': document = write(document, raw.path, raw.value, 'add'); break;
      case 'replace': document = write(document, raw.path, raw.value, 'replace'); break;
      case 'remove': document = write(document, raw.path, undefined, 'remove'); break;
      case 'test':
        if (!isDeepStrictEqual(read(document, raw.path), raw.value)) {
          // The real server gives no detail for a failed test.
          throw new ApiError(422, 'Invalid', 'the server rejected our request due to an error in our request');
        }
        break;
      case 'move': {
        const value = read(document, raw.from ?? '');
        document = write(document, raw.from ?? '', undefined, 'remove');
        document = write(document, raw.path, value, 'add');
        break;
      }
      case 'copy': document = write(document, raw.path, structuredClone(read(document, raw.from ?? '')), 'add'); break;
      default: throw badRequest(`the server rejected our request due to an error in our request: unknown JSON patch operation ${JSON.stringify(raw.op)}`);
    }
  }
  return document;
}

export function applyPatch(contentType: string, target: unknown, patch: unknown): unknown {
  const type = contentType.split(';')[0]?.trim() ?? '';
  if (type === 'application/merge-patch+json') return mergePatch(target, patch);
  if (type === 'application/strategic-merge-patch+json') return strategicMergePatch(target, patch);
  if (type === 'application/json-patch+json') return jsonPatch(target, patch);
  throw unsupportedMediaType();
}
