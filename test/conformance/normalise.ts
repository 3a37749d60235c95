// Normalising what legitimately varies between two runs (the conformance README's list): uids, resourceVersions,
// time stamps (keeping the number of fractional digits and the zone, since MicroTime is about exactly that), run
// suffixes, generated names, the product's holder identity, and objects the server embeds whole in a message.

const uuid = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;
const rfc3339 = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)/g;

/** `2026-11-23T13:47:01.132Z` -> `<time.3Z>`: the moment varies, its shape (digits, zone) is what a server checks. */
export function normaliseTime(text: string): string {
  return text.replace(rfc3339, (_match, fraction: string | undefined, zone: string) => `<time.${fraction === undefined ? 0 : fraction.length - 1}${zone === 'Z' ? 'Z' : '+hh:mm'}>`);
}

export function normaliseText(text: string): string {
  return normaliseTime(text)
    .replace(uuid, '<uid>')
    .replace(/-r\d+\b/g, '-<run>')
    .replace(/cli-[^"\s]+-\d+/g, 'cli-<host>-<pid>')
    // the digits of a bad time quoted in a parse error are the request's clock
    .replace(/cannot parse "(\.?)(\d*)(Z|[+-]\d\d:\d\d)?" as/g, (_m, dot: string, digits: string, zone: string | undefined) => `cannot parse "${dot}${'d'.repeat(digits.length)}${zone ?? ''}" as`)
    .replace(/too old resource version: (\d+) \(\d+\)/g, 'too old resource version: $1 (<rv>)')
    .replace(/ResourceVersion in (precondition|object meta): \d+/g, 'ResourceVersion in $1: <rv>');
}

/**
 * A Status message. A patched object that fails to decode is quoted whole (`Invalid value: "{...}"`), managedFields
 * and all; the sandbox does not keep managedFields, so the embedded object is compared as `<object>` and what the
 * server says about it (the text after it) is compared exactly.
 */
export function normaliseMessage(message: string): string {
  return normaliseText(message.replace(/Invalid value: "\{.*?\}": /gs, 'Invalid value: "<object>": '));
}

/**
 * Names the server generated from `generateName` (a 5-character random suffix: `pg.x7k2p`) compare as
 * `pg.<generated>`, and so do a recorder's `pg.<16 hex digits>`. A StatefulSet's pods carry `generateName: pg-`
 * too, but their names (`pg-0`) are chosen.
 */
export function normaliseName(name: string, generateName: unknown): string {
  if (typeof generateName === 'string' && name.startsWith(generateName) && /^[a-z0-9]{5}$/.test(name.slice(generateName.length))) {
    return `${normaliseText(generateName)}<generated>`;
  }
  // Events a controller's recorder writes are named `<object>.<UnixNano in hex>`.
  const recorded = /^(.+)\.[0-9a-f]{16}$/.exec(name);
  if (recorded) return `${normaliseText(recorded[1] ?? '')}.<generated>`;
  return normaliseText(name);
}
