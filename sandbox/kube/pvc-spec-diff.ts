// The Go diff (github.com/google/go-cmp) the API server appends to "spec is immutable after creation" for a PVC:
// core.PersistentVolumeClaimSpec field by field, changed fields as -/+ lines, unchanged ones shown within two fields
// of a change and the rest elided as `... // N identical fields`. cmp marks lines with U+00A0 after the +/- column.
import { isDeepStrictEqual } from 'node:util';
import { parseSandboxQuantity } from './quantity.ts';

type Json = Record<string, unknown>;
type Marker = '\u00a0\u00a0' | '-\u00a0' | '+\u00a0';

interface Field {
  name: string;
  /** Lines of the value at this depth (a struct spans several). */
  render: (value: unknown, depth: number) => string[];
  /** A nested struct whose fields are diffed one by one rather than replaced whole. */
  fields?: Field[];
  read: (spec: Json | undefined) => unknown;
}

const context = 2;

function quote(value: unknown): string {
  return JSON.stringify(value);
}

function pointer(value: unknown): string {
  return value === undefined || value === null ? 'nil' : `&${quote(value)}`;
}

function quantity(text: string): string {
  const parsed = parseSandboxQuantity(text);
  const scale = -parsed.scale;
  // int64Amount keeps value*10^scale with the fewest digits it was given; bytes suffice for what a PVC asks.
  let value = parsed.numerator;
  let exponent = scale;
  while (parsed.format !== 'BinarySI' && value !== 0n && value % 10n === 0n && exponent < 0) {
    value /= 10n;
    exponent += 1;
  }
  const amount = exponent === 0 ? `resource.int64Amount{value: ${value}}` : `resource.int64Amount{value: ${value}, scale: ${exponent}}`;
  return `{i: ${amount}, s: ${quote(text)}, Format: ${quote(parsed.format)}}`;
}

function resourceList(value: unknown, depth: number): string[] {
  if (typeof value !== 'object' || value === null) return ['nil'];
  const tabs = '\t'.repeat(depth + 1);
  const entries = Object.entries(value as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : 1));
  return ['core.ResourceList{', ...entries.map(([key, q]) => `${tabs}s${quote(key)}: ${quantity(String(q))},`), `${'\t'.repeat(depth)}}`];
}

const scalar = (format: (value: unknown) => string) => (value: unknown): string[] => [format(value)];

const resourceFields: Field[] = [
  { name: 'Limits', read: (r) => r?.limits, render: resourceList },
  { name: 'Requests', read: (r) => r?.requests, render: resourceList },
  { name: 'Claims', read: (r) => r?.claims, render: scalar((v) => (Array.isArray(v) && v.length > 0 ? quote(v) : 'nil')) },
];

const specFields: Field[] = [
  { name: 'AccessModes', read: (s) => s?.accessModes, render: scalar((v) => (Array.isArray(v) ? `{${v.map(quote).join(', ')}}` : 'nil')) },
  { name: 'Selector', read: (s) => s?.selector, render: scalar((v) => (v === undefined || v === null ? 'nil' : `&v1.LabelSelector${quote(v)}`)) },
  { name: 'Resources', read: (s) => s?.resources, fields: resourceFields, render: () => [] },
  { name: 'VolumeName', read: (s) => s?.volumeName ?? '', render: scalar(quote) },
  { name: 'StorageClassName', read: (s) => s?.storageClassName, render: scalar(pointer) },
  { name: 'VolumeMode', read: (s) => s?.volumeMode, render: scalar(pointer) },
  { name: 'DataSource', read: (s) => s?.dataSource, render: scalar((v) => (v ? `&core.TypedLocalObjectReference${quote(v)}` : 'nil')) },
  { name: 'DataSourceRef', read: (s) => s?.dataSourceRef, render: scalar((v) => (v ? `&core.TypedObjectReference${quote(v)}` : 'nil')) },
];

function line(marker: Marker, depth: number, text: string): string {
  return `${marker}${'\t'.repeat(depth)}${text}\n`;
}

function structLines(typeName: string, fields: Field[], before: Json | undefined, after: Json | undefined, depth: number, header: string): string {
  const differs = fields.map((f) => !isDeepStrictEqual(f.read(before), f.read(after)));
  let out = line('\u00a0\u00a0', depth, `${header}${typeName}{`);
  let index = 0;
  while (index < fields.length) {
    const field = fields[index];
    if (field === undefined) break;
    if (differs[index]) {
      if (field.fields) {
        out += structLines(`core.${field.name === 'Resources' ? 'ResourceRequirements' : field.name}`, field.fields, field.read(before) as Json | undefined, field.read(after) as Json | undefined, depth + 1, `${field.name}: `);
      } else {
        // The old value whole, then the new one: the first line follows the field name, the others carry their tabs.
        for (const [marker, value] of [['-\u00a0', field.read(before)], ['+\u00a0', field.read(after)]] as const) {
          const [first = '', ...rest] = field.render(value, depth + 1);
          const lines = [`${'\t'.repeat(depth + 1)}${field.name}: ${first}`, ...rest];
          lines.forEach((text, i) => { out += `${marker}${text}${i === lines.length - 1 ? ',' : ''}\n`; });
        }
      }
      index += 1;
      continue;
    }
    // A run of unchanged fields: those within `context` of a change are shown (aligned), the rest counted.
    let end = index;
    while (end < fields.length && !differs[end]) end += 1;
    const run = fields.slice(index, end);
    const shown = run.map((_, i) => {
      const at = index + i;
      return (at - index < context && index > 0) || (end - at <= context && end < fields.length);
    });
    const width = Math.max(...run.filter((_, i) => shown[i]).map((f) => f.name.length), 0);
    let elided = 0;
    run.forEach((f, i) => {
      if (!shown[i]) {
        elided += 1;
        return;
      }
      if (elided > 0) out += line('\u00a0\u00a0', depth + 1, `... // ${elided} identical field${elided === 1 ? '' : 's'}`);
      elided = 0;
      out += line('\u00a0\u00a0', depth + 1, `${`${f.name}:`.padEnd(width + 2)}${f.render(f.read(before), depth + 1).join('\n')},`);
    });
    if (elided > 0) out += line('\u00a0\u00a0', depth + 1, `... // ${elided} identical field${elided === 1 ? '' : 's'}`);
    index = end;
  }
  out += line('\u00a0\u00a0', depth, depth === 0 ? '}' : '},');
  return out;
}

/** cmp.Diff(old, new) of two PVC specs, as the immutability error quotes it. */
export function pvcSpecDiff(before: Json | undefined, after: Json | undefined): string {
  return structLines('core.PersistentVolumeClaimSpec', specFields, before, after, 0, '');
}
