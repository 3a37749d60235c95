// Sizes that live outside StatefulSet manifests (a Helm chart's values file, a Kustomize patch): a configured mapping
// from a YAML path in a file of the repository to one volumeClaimTemplate of a StatefulSet, its size or (`value:
// volumeAttributesClassName`) its VolumeAttributesClass. Reads the value (js-yaml),
// locates it (the `yaml` package: file:line for links, byte range for recovery edits), and edits it byte-exactly.
// Pure over file texts; every problem is a located error, a mapping is never skipped silently.
import { isAlias, isMap, isScalar, isSeq, type Node } from 'yaml';
import type { SizeSourceConfig } from './config.ts';
import type { LocatedError, SourceLocation } from './desired-state.ts';
import { defaultManifestLimits, loadYamlDocuments, replaceScalarBytes, type ManifestLimits } from './manifests.ts';
import { parseQuantity, QuantityError, type Quantity } from './quantity.ts';
import { formatYamlPath, parseYamlPath, YamlPathError, type YamlPathSegment } from './yaml-path.ts';
import { count } from './spelling.ts';

/** One configured mapping (`targets[].sizeSources[]`): the value at `path` in `file` sizes `template` of `statefulSet`. */
export type SizeSource = SizeSourceConfig;

/** A mapped size as read at one commit. */
export interface SizeValue {
  namespace: string;
  name: string;
  template: string;
  source: SizeSource;
  storage: Quantity;
  /** Where the scalar sits, for links. */
  location: SourceLocation;
  /** Byte offsets [start, end) of the scalar's source text (quotes included), for byte-exact edits. */
  range: [number, number];
}

/** A mapped volumeAttributesClassName (`value: volumeAttributesClassName`) as read at one commit. */
export interface ClassValue {
  namespace: string;
  name: string;
  template: string;
  source: SizeSource;
  className: string;
  location: SourceLocation;
  range: [number, number];
}

export interface SizeSourceReading {
  values: SizeValue[];
  /** The mappings that name a class rather than a size. */
  classValues: ClassValue[];
  errors: LocatedError[];
}

/** Whether a mapping names the template's class (`value: volumeAttributesClassName`) rather than its size. */
export function mapsClass(source: SizeSource): boolean {
  return source.value === 'volumeAttributesClassName';
}

export function splitStatefulSetRef(ref: string): { namespace: string; name: string } {
  const slash = ref.indexOf('/');
  return { namespace: ref.slice(0, slash), name: ref.slice(slash + 1) };
}

export function describeSizeSource(source: SizeSource): string {
  return `${mapsClass(source) ? 'class source' : 'size source'} ${source.statefulSet} ${source.template} (${source.file} ${source.path})`;
}

/** Reads every mapping against the files of one commit (each file is parsed once, however many mappings use it). */
export function readSizeSources(
  files: ReadonlyMap<string, string>, sources: readonly SizeSource[], limits: Partial<ManifestLimits> = {},
): SizeSourceReading {
  const reading: SizeSourceReading = { values: [], classValues: [], errors: [] };
  const parsed = new Map<string, ReturnType<typeof loadYamlDocuments> | undefined>();
  for (const source of sources) {
    const text = files.get(source.file);
    if (text === undefined) {
      reading.errors.push({ path: source.file, line: 1, column: 1, message: `${describeSizeSource(source)}: the file does not exist at this commit; fix the mapping's file or restore the file` });
      continue;
    }
    if (!parsed.has(source.file)) {
      const fileErrors: LocatedError[] = [];
      const documents = loadYamlDocuments(source.file, text, { ...defaultManifestLimits, ...limits }, fileErrors);
      reading.errors.push(...fileErrors);
      parsed.set(source.file, fileErrors.length > 0 ? undefined : documents);
    }
    const documents = parsed.get(source.file);
    if (documents === undefined) continue; // the file's own errors are reported once, above
    const value = readOne(source, documents);
    if ('message' in value) reading.errors.push(value);
    else if ('className' in value) reading.classValues.push(value);
    else reading.values.push(value);
  }
  reading.errors.sort((a, b) => a.path.localeCompare(b.path) || a.line - b.line || a.column - b.column);
  return reading;
}

function readOne(source: SizeSource, documents: ReturnType<typeof loadYamlDocuments>): SizeValue | ClassValue | LocatedError {
  const fileStart: SourceLocation = { path: source.file, line: 1, column: 1 };
  const fail = (where: SourceLocation, message: string): LocatedError => ({ ...where, message: `${describeSizeSource(source)}: ${message}` });
  const [loaded, ...others] = documents;
  if (!loaded) return fail(fileStart, 'the file has no YAML document');
  if (others.length > 0) return fail(fileStart, `the file has ${documents.length} YAML documents; a size source reads a file with one document`);
  let segments: YamlPathSegment[];
  try {
    segments = parseYamlPath(source.path);
  } catch (error) {
    if (!(error instanceof YamlPathError)) throw error;
    return fail(fileStart, error.message);
  }
  const nodeAt = (node: Node): SourceLocation => (node.range ? loaded.at(node.range[0]) : loaded.start);

  let node: unknown = loaded.document.contents;
  let value: unknown = loaded.value;
  // Where the node being walked is named: its key's line (a mapping's own range starts at its first key).
  let named: SourceLocation = isMap(node) || isSeq(node) || isScalar(node) || isAlias(node) ? nodeAt(node) : loaded.start;
  for (const [index, segment] of segments.entries()) {
    const walked = formatYamlPath(segments.slice(0, index));
    const here = walked === '' ? 'the document' : walked;
    if (isAlias(node)) return fail(named, `${here} is the YAML alias *${node.source}; point the mapping at the anchored value itself`);
    if (typeof segment === 'string') {
      if (!isMap(node)) return fail(named, `${here} is not a mapping, so it has no key ${JSON.stringify(segment)}`);
      const pair = node.items.find((p) => isScalar(p.key) && String(p.key.value) === segment);
      if (!pair) return fail(named, `${here} has no key ${JSON.stringify(segment)} (the path ${source.path} is missing)`);
      if (isScalar(pair.key)) named = nodeAt(pair.key);
      node = pair.value;
      value = isRecord(value) ? value[segment] : undefined;
    } else {
      if (!isSeq(node)) return fail(named, `${here} is not a sequence, so it has no item [${segment}]`);
      if (segment >= node.items.length) return fail(named, `${here} has ${count(node.items.length, 'item')}, no [${segment}] (the path ${source.path} is missing)`);
      node = node.items[segment];
      if (isMap(node) || isSeq(node) || isScalar(node) || isAlias(node)) named = nodeAt(node);
      value = Array.isArray(value) ? (value as unknown[])[segment] : undefined;
    }
  }
  if (isAlias(node)) return fail(named, `the value is the YAML alias *${node.source}; point the mapping at the anchored value itself`);
  const what = mapsClass(source) ? 'class name' : 'size';
  if (!isScalar(node) || !node.range) return fail(named, `the value is not a single ${what} (found a mapping, a sequence or nothing)`);
  const location = nodeAt(node);
  const { namespace, name } = splitStatefulSetRef(source.statefulSet);
  if (mapsClass(source)) {
    if (typeof value !== 'string' || value === '') {
      return fail(location, `the value ${JSON.stringify(value) ?? '(absent)'} is not a VolumeAttributesClass name; write the class's name as a string, such as gold`);
    }
    return { namespace, name, template: source.template, source, className: value, location, range: [node.range[0], node.range[1]] };
  }
  if (typeof value !== 'string' && typeof value !== 'number') {
    return fail(location, `the value ${JSON.stringify(value) ?? '(absent)'} is not a size; write a quantity such as 10Gi`);
  }
  try {
    return { namespace, name, template: source.template, source, storage: parseQuantity(value), location, range: [node.range[0], node.range[1]] };
  } catch (error) {
    if (!(error instanceof QuantityError)) throw error;
    return fail(location, error.message);
  }
}

/** The value of one mapping in one file's text (recovery reads it at the head and at earlier commits). */
export function findSizeValue(text: string, source: SizeSource): SizeValue | undefined {
  return readSizeSources(new Map([[source.file, text]]), [source]).values[0];
}

/** The class of one class mapping in one file's text (the class recovery reads it at the head). */
export function findClassValue(text: string, source: SizeSource): ClassValue | undefined {
  return readSizeSources(new Map([[source.file, text]]), [source]).classValues[0];
}

/**
 * Rewrites only the bytes of the mapped value (comments, anchors and quoting kept) and proves by re-parsing that
 * nothing else in the file reads differently. Throws when that cannot be guaranteed.
 */
export function replaceSizeValue(fileText: string, value: Pick<SizeValue, 'source' | 'range' | 'location'>, newValue: string): string {
  const segments = parseYamlPath(value.source.path);
  return replaceScalarBytes(fileText, value.range, newValue,
    { what: `the value at ${value.source.path}`, where: value.location, nothingRecorded: `no value recorded for ${describeSizeSource(value.source)}` },
    (document) => setAt(document, segments, newValue),
    ...(mapsClass(value.source) ? [validateClassName] : []));
}

/** A VolumeAttributesClass name is a DNS subdomain (what the API server accepts as an object name). */
function validateClassName(value: string): void {
  if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value) || value.length > 253) throw new Error(`${JSON.stringify(value)} is not a VolumeAttributesClass name`);
}

function setAt(document: unknown, segments: readonly YamlPathSegment[], newValue: string): unknown {
  const last = segments.at(-1);
  let parent: unknown = document;
  for (const segment of segments.slice(0, -1)) parent = (parent as Record<string | number, unknown> | undefined)?.[segment];
  if (last === undefined || typeof parent !== 'object' || parent === null) throw new Error(`the path ${formatYamlPath(segments)} is not in the document`);
  (parent as Record<string | number, unknown>)[last] = newValue;
  return document;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
