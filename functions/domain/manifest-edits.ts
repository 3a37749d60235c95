// Byte-exact edits of Git text (the recovery pull requests' one-line changes): a storage value, a
// volumeAttributesClassName or any quantity scalar rewritten in place, quoting kept, the rest of the file proven unchanged.
import * as jsYaml from 'js-yaml';
import { parseAllDocuments } from 'yaml';
import type { DesiredTemplate, SourceLocation } from './desired-state.ts';
import { parseQuantity } from './quantity.ts';

type JsonObject = { [key: string]: unknown };

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Rewrites only the bytes of one storage scalar, keeping its quoting, and proves by re-parsing that the file now
 * reads the new value there and is otherwise unchanged. Throws when that cannot be guaranteed.
 */
export function replaceStorageValue(fileText: string, template: DesiredTemplate, newValue: string): string {
  return replaceScalarBytes(fileText, template.storageRange, newValue,
    { what: `the storage value of ${template.name}`, where: template.storageLocation, nothingRecorded: `no storage value recorded for template ${template.name} in ${template.storageLocation.path}` },
    (document) => setStorage(document, template.name, newValue));
}

/**
 * Replaces the scalar whose source text spans `range` with `newValue` (a quantity), keeping its quoting, and proves by
 * re-parsing every document that the file now reads exactly as `expected` says (the one value changed, nothing else:
 * an anchor aliased elsewhere, for one, fails this). Throws when that cannot be guaranteed.
 */
export function replaceScalarBytes(
  fileText: string, range: readonly [number, number], newValue: string,
  describe: { what: string; where: SourceLocation; nothingRecorded: string },
  /** The document containing the scalar as it must read afterwards (given a copy of it as it reads now). */
  expected: (document: unknown) => unknown,
  /** Throws when `newValue` is not what the scalar may hold (a quantity, unless told otherwise). */
  validate: (value: string) => unknown = parseQuantity,
): string {
  validate(newValue);
  const [start, end] = range;
  if (end <= start || end > fileText.length) throw new Error(describe.nothingRecorded);
  const original = fileText.slice(start, end);
  // An unquoted scalar keeps its plain style unless YAML would read the new value as something else than that text
  // (`1800e9` is a float in YAML): then it is double-quoted, still a one-scalar edit.
  const quote = original.startsWith('"') ? '"' : original.startsWith("'") ? "'" : jsYaml.load(newValue) === newValue ? '' : '"';
  const updated = `${fileText.slice(0, start)}${quote}${newValue}${quote}${fileText.slice(end)}`;

  const before = jsYaml.loadAll(fileText);
  const after = jsYaml.loadAll(updated);
  const parsed = parseAllDocuments(fileText);
  const index = Array.isArray(parsed) ? parsed.findIndex((d) => d.range[0] <= start && start < d.range[2]) : -1;
  if (index < 0 || index >= before.length) throw new Error(`${describe.what} is not inside a YAML document`);
  const wanted = structuredClone(before);
  wanted[index] = expected(wanted[index]);
  if (JSON.stringify(after) !== JSON.stringify(wanted)) {
    throw new Error(`rewriting ${describe.where.path}:${describe.where.line} would change more than ${describe.what}`);
  }
  return updated;
}

/**
 * Rewrites only the bytes of a template's volumeAttributesClassName (KEP-3751), as replaceStorageValue does for its
 * size: quoting kept, the rest of the file proven unchanged.
 */
export function replaceClassValue(fileText: string, template: DesiredTemplate, newClass: string): string {
  const where = template.classLocation ?? template.storageLocation;
  return replaceScalarBytes(fileText, template.classRange ?? [0, 0], newClass,
    { what: `the volumeAttributesClassName of ${template.name}`, where, nothingRecorded: `no volumeAttributesClassName recorded for template ${template.name} in ${where.path}` },
    (document) => {
      const templates = ((isObject(document) ? (document.spec as JsonObject | undefined)?.volumeClaimTemplates : undefined) ?? []) as JsonObject[];
      const spec = templates.find((t) => (t.metadata as JsonObject | undefined)?.name === template.name)?.spec as JsonObject | undefined;
      if (!spec) throw new Error(`template ${template.name} has no spec to change`);
      spec.volumeAttributesClassName = newClass;
      return document;
    },
    (value) => {
      // A DNS subdomain (what the API server accepts as an object name).
      if (!/^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/.test(value) || value.length > 253) throw new Error(`${JSON.stringify(value)} is not a VolumeAttributesClass name`);
    });
}

function setStorage(document: unknown, templateName: string, value: string): unknown {
  if (!isObject(document)) throw new Error('storage value is not inside a YAML document');
  const templates = ((document.spec as JsonObject | undefined)?.volumeClaimTemplates ?? []) as JsonObject[];
  const template = templates.find((t) => (t.metadata as JsonObject | undefined)?.name === templateName);
  const requests = ((template?.spec as JsonObject | undefined)?.resources as JsonObject | undefined)?.requests as JsonObject | undefined;
  if (!requests) throw new Error(`template ${templateName} has no storage request to change`);
  requests.storage = value;
  return document;
}
