// Desired state from Git text: the apps/v1 StatefulSets in a set of YAML files, validated and located.
// js-yaml reads the values; the `yaml` package supplies what js-yaml cannot: where each node sits in the file (for
// file:line in errors and links) and the byte range of each storage scalar (for byte-exact edits).
import { matchesGlob } from 'node:path';
import type { ErrorObject } from 'ajv';
import * as jsYaml from 'js-yaml';
import { isAlias, isScalar, LineCounter, parseAllDocuments, visit, type Document } from 'yaml';
import type {
  DesiredState, DesiredStatefulSet, DesiredTemplate, LocatedError, PodManagementPolicy, SourceLocation, ToolAnnotation,
} from './desired-state.ts';
import { byteCount } from './byte-count.ts';
import { parseQuantity, QuantityError } from './quantity.ts';
// ajv's code generated ahead of time from schemas/statefulset.schema.json: no schema compile at start.
import { validate as validateStatefulSet } from './statefulset-validator.js';

export { replaceClassValue, replaceScalarBytes, replaceStorageValue } from './manifest-edits.ts';

export interface ManifestLimits {
  maxFileBytes: number;
  maxDocuments: number;
  maxAliases: number;
  /** Nodes a document with aliases may expand to: a few aliases nested in each other expand exponentially. */
  maxExpandedNodes: number;
}

export const defaultManifestLimits: ManifestLimits = { maxFileBytes: 1024 * 1024, maxDocuments: 500, maxAliases: 100, maxExpandedNodes: 100_000 };

/**
 * A file over the size limit, as a located error. Sources check sizes before reading (domain/source-limits.ts), so a
 * file over the limit says so in the same words whether its bytes were never fetched or were read from elsewhere.
 */
export function fileTooLarge(path: string, bytes: number, limit: number): LocatedError {
  return { path, line: 1, column: 1, message: `file is ${byteCount(bytes)}, over the limit of ${byteCount(limit)}; it was not read` };
}

export interface ReadOptions {
  globs: readonly string[];
  defaultNamespace: string;
  limits?: Partial<ManifestLimits>;
}

export function matchesManifestGlobs(path: string, globs: readonly string[]): boolean {
  if (!/\.ya?ml$/i.test(path)) return false;
  return globs.some((glob) => matchesGlob(path, glob));
}

type JsonObject = { [key: string]: unknown };

interface ParsedStatefulSet {
  sts: DesiredStatefulSet;
}

export function readDesiredState(files: ReadonlyMap<string, string>, options: ReadOptions): DesiredState {
  const limits = { ...defaultManifestLimits, ...options.limits };
  const found: ParsedStatefulSet[] = [];
  const errors: LocatedError[] = [];
  const paths = [...files.keys()].filter((p) => matchesManifestGlobs(p, options.globs)).sort();
  for (const path of paths) {
    readFile(path, files.get(path) ?? '', options.defaultNamespace, limits, found, errors);
  }
  // The same namespace/name twice is ambiguous: an error on both places, and neither is acted on.
  const byKey = new Map<string, ParsedStatefulSet[]>();
  for (const item of found) {
    const key = `${item.sts.namespace}/${item.sts.name}`;
    byKey.set(key, [...(byKey.get(key) ?? []), item]);
  }
  const statefulSets: DesiredStatefulSet[] = [];
  for (const [key, items] of byKey) {
    if (items.length === 1 && items[0]) {
      statefulSets.push(items[0].sts);
      continue;
    }
    for (const item of items) {
      const others = items.filter((o) => o !== item).map((o) => `${o.sts.location.path}:${o.sts.location.line}`);
      errors.push({ ...item.sts.location, message: `StatefulSet ${key} is defined more than once (also at ${others.join(', ')})` });
    }
  }
  errors.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column);
  return { statefulSets, errors };
}

function readFile(
  path: string, text: string, defaultNamespace: string, limits: ManifestLimits,
  found: ParsedStatefulSet[], errors: LocatedError[],
): void {
  for (const { document, value, at, start } of loadYamlDocuments(path, text, limits, errors)) {
    if (!isObject(value) || value.kind !== 'StatefulSet') continue;
    if (value.apiVersion !== 'apps/v1') {
      errors.push({ ...start, message: `StatefulSet with apiVersion ${JSON.stringify(value.apiVersion)} is not read: only apps/v1 is served by current Kubernetes (apps/v1beta1 and v1beta2 were removed in 1.16); change apiVersion to apps/v1` });
      continue;
    }
    const sts = readStatefulSet(value, document, at, start, defaultNamespace, errors);
    if (sts) found.push({ sts });
  }
}

/** One YAML document of a file: its value as js-yaml reads it, its `yaml` node tree for positions. */
export interface LoadedDocument {
  document: Document.Parsed;
  value: unknown;
  /** Where the document starts. */
  start: SourceLocation;
  /** The file:line:column of a character offset. */
  at: (offset: number) => SourceLocation;
}

/**
 * The non-empty documents of a file within the limits (size, documents, aliases and what they expand to); every
 * problem becomes a located error and the documents that read cleanly are still returned.
 */
export function loadYamlDocuments(path: string, text: string, limits: ManifestLimits, errors: LocatedError[]): LoadedDocument[] {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxFileBytes) {
    errors.push(fileTooLarge(path, bytes, limits.maxFileBytes));
    return [];
  }
  const lineCounter = new LineCounter();
  const documents = parseAllDocuments(text, { lineCounter, uniqueKeys: true });
  if (!Array.isArray(documents)) return []; // an empty stream
  if (documents.length > limits.maxDocuments) {
    errors.push({ path, line: 1, column: 1, message: `file has ${documents.length} YAML documents, over the limit of ${limits.maxDocuments}; it was not read` });
    return [];
  }
  const at = (offset: number): SourceLocation => {
    const position = lineCounter.linePos(offset);
    return { path, line: position.line, column: position.col };
  };
  const loaded: LoadedDocument[] = [];
  for (const document of documents) {
    const start = at(document.range[0]);
    if (document.errors.length > 0) {
      for (const error of document.errors) {
        errors.push({ ...at(error.pos[0]), message: `YAML syntax error: ${error.message.split('\n')[0] ?? error.message}` });
      }
      continue;
    }
    if (document.contents === null) continue; // a comment-only or empty document
    const aliases = countAliases(document);
    if (aliases > limits.maxAliases) {
      errors.push({ ...start, message: `document uses ${aliases} YAML aliases, over the limit of ${limits.maxAliases}; it was not read` });
      continue;
    }
    let value: unknown;
    try {
      value = jsYaml.load(text.slice(document.range[0], document.range[2]));
    } catch (error) {
      const mark = error instanceof jsYaml.YAMLException ? error.mark : undefined;
      errors.push({
        path, line: start.line + (mark?.line ?? 0), column: (mark?.column ?? 0) + 1,
        message: `YAML error: ${error instanceof jsYaml.YAMLException ? error.reason : String(error)}`,
      });
      continue;
    }
    if (aliases > 0 && expandsBeyond(value, limits.maxExpandedNodes)) {
      errors.push({ ...start, message: `document expands through its ${aliases} YAML aliases to more than ${limits.maxExpandedNodes} values; it was not read` });
      continue;
    }
    loaded.push({ document, value, start, at });
  }
  return loaded;
}

/** Walks the value as a consumer would see it (aliases expanded), stopping as soon as it passes `limit` nodes. */
function expandsBeyond(value: unknown, limit: number): boolean {
  let seen = 0;
  const stack: unknown[] = [value];
  while (stack.length > 0) {
    const node = stack.pop();
    if (++seen > limit) return true;
    if (Array.isArray(node)) stack.push(...(node as unknown[]));
    else if (node !== null && typeof node === 'object') stack.push(...Object.values(node as Record<string, unknown>));
  }
  return false;
}

function countAliases(document: Document.Parsed): number {
  let count = 0;
  visit(document, { Alias: () => { count += 1; } });
  return count;
}

function readStatefulSet(
  value: JsonObject, document: Document.Parsed, at: (offset: number) => SourceLocation, start: SourceLocation,
  defaultNamespace: string, errors: LocatedError[],
): DesiredStatefulSet | undefined {
  const nodeLocation = (path: readonly (string | number)[]): SourceLocation => {
    for (let depth = path.length; depth >= 0; depth--) {
      const node = document.getIn(path.slice(0, depth), true);
      const range = (node as { range?: [number, number, number] } | undefined)?.range;
      if (range && !isAlias(node)) return at(range[0]);
    }
    return start;
  };
  if (!validateStatefulSet(value)) {
    for (const error of validateStatefulSet.errors ?? []) {
      const path = pointerToPath(error.instancePath);
      errors.push({ ...nodeLocation(path), message: `StatefulSet ${describeName(value)}: ${describeSchemaError(error)}`, jsonPath: error.instancePath || '/' });
    }
    return undefined;
  }
  const metadata = value.metadata as JsonObject;
  const spec = value.spec as JsonObject;
  const rawTemplates = (spec.volumeClaimTemplates ?? []) as JsonObject[];
  const templates: DesiredTemplate[] = [];
  let failed = false;
  for (const [index, raw] of rawTemplates.entries()) {
    const storagePath = ['spec', 'volumeClaimTemplates', index, 'spec', 'resources', 'requests', 'storage'];
    const storageNode = document.getIn(storagePath, true);
    const range = isScalar(storageNode) && storageNode.range ? storageNode.range : undefined;
    const location = nodeLocation(storagePath);
    const rawStorage = ((((raw.spec as JsonObject).resources as JsonObject).requests as JsonObject).storage) as string | number;
    try {
      const storage = parseQuantity(rawStorage);
      const templateWithoutStorage = structuredClone(raw);
      delete (((templateWithoutStorage.spec as JsonObject).resources as JsonObject).requests as JsonObject).storage;
      const templateSpec = raw.spec as JsonObject;
      const classPath = ['spec', 'volumeClaimTemplates', index, 'spec', 'volumeAttributesClassName'];
      const classNode = document.getIn(classPath, true);
      const classRange = isScalar(classNode) && classNode.range ? classNode.range : undefined;
      templates.push({
        name: (raw.metadata as JsonObject).name as string,
        storageClassName: typeof templateSpec.storageClassName === 'string' ? templateSpec.storageClassName : undefined,
        storage,
        storageText: storage.text,
        storageLocation: location,
        storageRange: range ? [range[0], range[1]] : [0, 0],
        ...(typeof templateSpec.volumeAttributesClassName === 'string' ? {
          volumeAttributesClassName: templateSpec.volumeAttributesClassName,
          classLocation: nodeLocation(classPath),
          classRange: classRange ? [classRange[0], classRange[1]] as [number, number] : [0, 0] as [number, number],
        } : {}),
        templateWithoutStorage,
      });
    } catch (error) {
      if (!(error instanceof QuantityError)) throw error;
      failed = true;
      errors.push({ ...location, message: `StatefulSet ${describeName(value)}: ${error.message}`, jsonPath: `/${storagePath.join('/')}` });
    }
  }
  if (failed) return undefined;
  const toolAnnotations = toolAnnotationsOf(metadata, nodeLocation);
  return {
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : defaultNamespace,
    name: metadata.name as string,
    replicas: typeof spec.replicas === 'number' ? spec.replicas : 1,
    podManagementPolicy: (spec.podManagementPolicy as PodManagementPolicy | undefined) ?? 'OrderedReady',
    templates,
    location: start,
    ...(toolAnnotations.length > 0 ? { toolAnnotations } : {}),
  };
}

/** The prefix of the annotations that are the tool's (its status, and the growth policy a set sets for itself). */
export const toolAnnotationPrefix = 'sts-volume-gitops.io/';

/** The set's `sts-volume-gitops.io/` annotations with where each value is written. */
function toolAnnotationsOf(metadata: JsonObject, nodeLocation: (path: readonly (string | number)[]) => SourceLocation): ToolAnnotation[] {
  const annotations = isObject(metadata.annotations) ? metadata.annotations : {};
  return Object.entries(annotations).filter(([name]) => name.startsWith(toolAnnotationPrefix))
    .map(([name, value]) => ({ name, value, location: nodeLocation(['metadata', 'annotations', name]) }));
}

function describeName(value: JsonObject): string {
  const metadata = isObject(value.metadata) ? value.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '(unnamed)';
  return typeof metadata.namespace === 'string' ? `${metadata.namespace}/${name}` : name;
}

function describeSchemaError(error: ErrorObject): string {
  const where = error.instancePath || '(document)';
  if (error.keyword === 'required') return `${where} is missing required field ${(error.params as { missingProperty: string }).missingProperty}`;
  if (error.keyword === 'enum') return `${where} ${error.message ?? 'is invalid'}: ${((error.params as { allowedValues: unknown[] }).allowedValues).map((v) => JSON.stringify(v)).join(', ')}`;
  return `${where} ${error.message ?? 'is invalid'}`;
}

function pointerToPath(pointer: string): Array<string | number> {
  if (pointer === '') return [];
  return pointer.slice(1).split('/').map((part) => {
    const key = part.replace(/~1/g, '/').replace(/~0/g, '~');
    return /^\d+$/.test(key) ? Number(key) : key;
  });
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
