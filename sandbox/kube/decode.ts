// Decoding a written object as the API server decodes JSON into its Go types, for the fields where that changes or
// refuses what was sent: metav1.MicroTime (exactly six fractional digits, stored in UTC), metav1.Time (RFC 3339,
// stored in UTC whole seconds), and resource.Quantity (stored in canonical form). A refusal is a DecodeError; the
// API layer words it as the real server does for a body sent whole (400) or a patched object (422).
import { canonicalQuantity, parseSandboxQuantity, QuantityError } from './quantity.ts';
import type { KubeObject, ResourceType } from './store.ts';

type Json = Record<string, unknown>;

export class DecodeError extends Error {}

const microTimeLayout = '2006-01-02T15:04:05.000000Z07:00';
const timeLayout = '2006-01-02T15:04:05Z07:00';

/** MicroTime fields by kind (group-qualified where the kind name is shared). */
const microTimeFields: Record<string, string[][]> = {
  'coordination.k8s.io/Lease': [['spec', 'acquireTime'], ['spec', 'renewTime']],
  '/Event': [['eventTime'], ['series', 'lastObservedTime']],
  'events.k8s.io/Event': [['eventTime'], ['series', 'lastObservedTime']],
};
const timeFields: Record<string, string[][]> = {
  '/Event': [['firstTimestamp'], ['lastTimestamp']],
  'events.k8s.io/Event': [['deprecatedFirstTimestamp'], ['deprecatedLastTimestamp']],
};
/** Maps of quantities (ResourceList) wherever they appear: PVC requests/capacity, PV capacity, quota hard/used, containers. */
const resourceListKeys = new Set(['requests', 'limits', 'capacity', 'allocatedResources', 'hard', 'used']);

function isMap(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function pad(value: number, width = 2): string {
  return String(value).padStart(width, '0');
}

/** Splits `YYYY-MM-DDTHH:MM:SS<rest>`; anything else fails the way Go's parser first fails on it. */
function splitStamp(text: string, layout: string): { seconds: string; rest: string } {
  const match = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(.*)$/s.exec(text);
  if (!match) throw new DecodeError(`parsing time ${JSON.stringify(text)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(text)} as "2006"`);
  return { seconds: match[1] ?? '', rest: match[2] ?? '' };
}

/** Parses `Z` or `±hh:mm` and returns the UTC instant of `seconds` in that zone, in ms. */
function zonedInstant(text: string, seconds: string, zone: string, layout: string, rest: string): number {
  const match = /^(Z|[+-]\d\d:\d\d)$/.exec(zone);
  if (!match) throw new DecodeError(`parsing time ${JSON.stringify(text)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(rest)} as "Z07:00"`);
  return Date.parse(`${seconds}${zone}`);
}

function utcSeconds(ms: number): string {
  const d = new Date(ms);
  return `${d.getUTCFullYear()}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}T${pad(d.getUTCHours())}:${pad(d.getUTCMinutes())}:${pad(d.getUTCSeconds())}`;
}

/** metav1.MicroTime: exactly six fractional digits (Go's `.000000`), any zone; written back in UTC. */
export function decodeMicroTime(text: string): string {
  const { seconds, rest } = splitStamp(text, microTimeLayout);
  const fraction = /^\.(\d{6})(.*)$/s.exec(rest);
  // Go reads `.000000` as a dot and exactly six digits; fewer fail on the fraction, more fail on the zone.
  if (!fraction) throw new DecodeError(`parsing time ${JSON.stringify(text)} as ${JSON.stringify(microTimeLayout)}: cannot parse ${JSON.stringify(rest)} as ".000000"`);
  const zone = fraction[2] ?? '';
  const instant = zonedInstant(text, seconds, zone, microTimeLayout, zone);
  return `${utcSeconds(instant)}.${fraction[1] ?? ''}Z`;
}

/** metav1.Time: RFC 3339 (a fraction is accepted and dropped); written back in UTC whole seconds. */
export function decodeTime(text: string): string {
  const { seconds, rest } = splitStamp(text, timeLayout);
  const zone = rest.replace(/^[.,]\d+/, '');
  return `${utcSeconds(zonedInstant(text, seconds, zone, timeLayout, rest))}Z`;
}

function rewriteAt(object: Json, path: string[], decode: (text: string) => string): void {
  const parent = path.slice(0, -1).reduce<unknown>((node, key) => (isMap(node) ? node[key] : undefined), object);
  const key = path[path.length - 1] ?? '';
  if (!isMap(parent) || !(key in parent)) return;
  const value = parent[key];
  if (value === null) return;
  if (typeof value !== 'string') throw new DecodeError(`${path.join('.')}: expected a time string, got ${JSON.stringify(value)}`);
  parent[key] = decode(value);
}

function canonicaliseQuantities(node: unknown): void {
  if (Array.isArray(node)) {
    for (const item of node) canonicaliseQuantities(item);
    return;
  }
  if (!isMap(node)) return;
  for (const [key, value] of Object.entries(node)) {
    if (resourceListKeys.has(key) && isMap(value) && Object.values(value).every((v) => typeof v === 'string' || typeof v === 'number')) {
      for (const [name, quantity] of Object.entries(value)) {
        try {
          value[name] = canonicalQuantity(parseSandboxQuantity(quantity as string | number));
        } catch (error) {
          if (error instanceof QuantityError) throw new DecodeError(error.message);
          throw error;
        }
      }
    } else {
      canonicaliseQuantities(value);
    }
  }
}

/** Decodes `object` in place: times and quantities as stored; throws DecodeError with the server's words. */
export function decodeObject(t: ResourceType, object: KubeObject): void {
  const kindKey = `${t.group}/${t.kind}`;
  for (const path of microTimeFields[kindKey] ?? []) rewriteAt(object, path, decodeMicroTime);
  for (const path of timeFields[kindKey] ?? []) rewriteAt(object, path, decodeTime);
  canonicaliseQuantities(object);
}
