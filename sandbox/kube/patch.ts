// The three patch types the API server accepts for built-in types: JSON merge patch (RFC 7386), strategic merge
// patch (for the fields this project uses: lists of named items merge by name, `$patch: delete` removes one), and
// JSON patch (RFC 6902).
import { isDeepStrictEqual } from 'node:util';
import { ApiError, badRequest, unsupportedMediaType } from './api-errors.ts';

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

/** Merge keys of the lists we serve: containers, volumes, volumeClaimTemplates (by metadata.name), conditions (by type). */
function mergeKeyOf(items: Json[]): ((item: Json) => string | undefined) | undefined {
  const first = items.find(isMap);
  if (!first) return undefined;
  if (typeof first.name === 'string') return (item) => (isMap(item) && typeof item.name === 'string' ? item.name : undefined);
  if (isMap(first.metadata) && typeof first.metadata.name === 'string') {
    return (item) => (isMap(item) && isMap(item.metadata) && typeof item.metadata.name === 'string' ? item.metadata.name : undefined);
  }
  if (typeof first.type === 'string') return (item) => (isMap(item) && typeof item.type === 'string' ? item.type : undefined);
  return undefined;
}

export function strategicMergePatch(target: unknown, patch: unknown): unknown {
  if (!isMap(patch)) return structuredClone(patch);
  const result: JsonMap = isMap(target) ? structuredClone(target) : {};
  for (const [key, value] of Object.entries(patch)) {
    if (key.startsWith('$')) continue;
    const current = result[key];
    if (value === null) {
      delete result[key];
    } else if (Array.isArray(value) && Array.isArray(current)) {
      const keyOf = mergeKeyOf([...current, ...value]);
      if (!keyOf) {
        result[key] = structuredClone(value);
        continue;
      }
      const merged = [...current];
      for (const item of value) {
        const itemKey = keyOf(item);
        const index = merged.findIndex((existing) => itemKey !== undefined && keyOf(existing) === itemKey);
        const remove = isMap(item) && item.$patch === 'delete';
        if (index >= 0 && remove) merged.splice(index, 1);
        else if (index >= 0) merged[index] = strategicMergePatch(merged[index], item) as Json;
        else if (!remove) merged.push(structuredClone(item));
      }
      result[key] = merged;
    } else {
      result[key] = strategicMergePatch(current, value) as Json;
    }
  }
  return result;
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
