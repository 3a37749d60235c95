// resource.Quantity as the API server decodes and re-encodes it (k8s.io/apimachinery/pkg/api/resource): parsed
// exactly (BigInt), then written back in canonical form, so `2e11` is stored as `200e9`, `200000000000` as `200G`,
// `1.5Ti` as `1536Gi`. The sandbox's own code on purpose: the product parses quantities in functions/domain, and a
// bug shared by both sides would hide from every test.

export const quantityFormatError = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'";

type Format = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

/** A quantity's exact value, numerator / 10^scale, and the format its suffix chose. */
export interface SandboxQuantity {
  numerator: bigint;
  scale: number;
  format: Format;
}

export class QuantityError extends Error {}

const binary: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimal: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const decimalSuffixOf = new Map(Object.entries(decimal).map(([suffix, exponent]) => [exponent, suffix]));
const binarySuffixOf = new Map(Object.entries(binary).map(([suffix, exponent]) => [exponent, suffix]));

export function parseSandboxQuantity(input: string | number): SandboxQuantity {
  const text = String(input).trim();
  const match = /^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$/.exec(text);
  if (!match) throw new QuantityError(quantityFormatError);
  const [, numberPart = '', suffix = ''] = match;
  const numeric = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(numberPart);
  if (!numeric || `${numeric[2] ?? ''}${numeric[3] ?? ''}` === '') throw new QuantityError('unable to parse numeric part of quantity');
  const negative = numeric[1] === '-';
  const fraction = numeric[3] ?? '';
  let numerator = BigInt(`${numeric[2] ?? ''}${fraction}` || '0');
  let scale = fraction.length;
  let format: Format;
  if (suffix in binary) {
    numerator *= 1n << BigInt(binary[suffix] ?? 0);
    format = 'BinarySI';
  } else if (suffix in decimal) {
    scale -= decimal[suffix] ?? 0;
    format = 'DecimalSI';
  } else if (/^[eE][-+]?\d+$/.test(suffix)) {
    scale -= Number(suffix.slice(1));
    format = 'DecimalExponent';
  } else {
    throw new QuantityError("unable to parse quantity's suffix");
  }
  if (negative) numerator = -numerator;
  if (scale < 0) {
    numerator *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { numerator, scale, format };
}

/** The value in bytes (units), rounded up as the server rounds a fraction it cannot keep. */
export function sandboxQuantityValue(quantity: SandboxQuantity): bigint {
  const divisor = 10n ** BigInt(quantity.scale);
  const whole = quantity.numerator / divisor;
  return quantity.numerator % divisor > 0n ? whole + 1n : whole;
}

const bytesByValue = new Map<string, bigint>();

/**
 * The bytes of a quantity field's value (a string or a JSON number; anything else has none), parsed once per distinct
 * value: quota sums every PVC of a namespace on each PVC write and the resizer reads each PVC per tick, and stored
 * quantities are canonical, so a handful of values recur.
 */
export function sandboxBytesOf(value: unknown): bigint | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  const key = `${typeof value}:${value}`;
  let bytes = bytesByValue.get(key);
  if (bytes === undefined) {
    bytes = sandboxQuantityValue(parseSandboxQuantity(value));
    if (bytesByValue.size >= 10_000) bytesByValue.clear();
    bytesByValue.set(key, bytes);
  }
  return bytes;
}

export function compareSandboxQuantities(a: SandboxQuantity, b: SandboxQuantity): number {
  const scale = Math.max(a.scale, b.scale);
  const left = a.numerator * 10n ** BigInt(scale - a.scale);
  const right = b.numerator * 10n ** BigInt(scale - b.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

/** Quantity.String(): the canonical spelling (CanonicalizeBytes). */
export function canonicalQuantity(quantity: SandboxQuantity): string {
  const { numerator, scale } = quantity;
  if (numerator === 0n) return '0';
  let format = quantity.format;
  const integral = numerator % 10n ** BigInt(scale) === 0n;
  if (format === 'BinarySI') {
    const value = numerator / 10n ** BigInt(scale);
    // Small or fractional binary amounts are shown in decimal rather than rounded.
    if (!integral || (value > -1024n && value < 1024n)) format = 'DecimalSI';
    else {
      let amount = value;
      let exponent = 0;
      while (amount % 1024n === 0n && exponent < 60) {
        amount /= 1024n;
        exponent += 10;
      }
      return `${amount}${binarySuffixOf.get(exponent) ?? ''}`;
    }
  }
  let amount = numerator;
  let exponent = -scale;
  while (amount !== 0n && amount % 10n === 0n) {
    amount /= 10n;
    exponent += 1;
  }
  // The exponent is brought down to a multiple of 3 (as Go's % truncates towards zero, so does JavaScript's).
  const remainder = exponent % 3;
  if (remainder === 1 || remainder === -2) {
    amount *= 10n;
    exponent -= 1;
  } else if (remainder === 2 || remainder === -1) {
    amount *= 100n;
    exponent -= 2;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${amount}` : `${amount}e${exponent}`;
  return `${amount}${decimalSuffixOf.get(exponent) ?? `e${exponent}`}`;
}

/** A text quantity for a count of bytes, as the quota controller writes usage (`5130Gi`, `500M`). */
export function quantityOfBytes(bytes: bigint, format: Format = 'BinarySI'): string {
  return canonicalQuantity({ numerator: bytes, scale: 0, format });
}
