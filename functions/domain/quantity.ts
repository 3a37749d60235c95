// Storage quantities exactly as Kubernetes' resource.Quantity reads and prints them: binary suffixes (Ki..Ei),
// decimal suffixes (n u m k M G T P E), decimal exponents (2e9), plain and decimal numbers. Exact BigInt arithmetic:
// a value is numerator / 10^scale, never a float.

export class QuantityError extends Error {
  constructor(readonly input: string, reason: string) {
    super(`invalid quantity ${quoted(input)}: ${reason}`);
    this.name = 'QuantityError';
  }
}

/** The value as the message shows it: a hostile 10,000-digit value is not pasted whole into errors and comments. */
function quoted(input: string): string {
  const shown = 64;
  return input.length <= shown ? JSON.stringify(input) : `${JSON.stringify(input.slice(0, shown))}… (${input.length} characters)`;
}

export type QuantityFormat = 'BinarySI' | 'DecimalSI' | 'DecimalExponent';

export interface Quantity {
  /** As written, trimmed. */
  readonly text: string;
  /** Value() in bytes: rounded up to a whole number, as Kubernetes does. */
  readonly bytes: bigint;
  /** Exact value = numerator / 10^scale. */
  readonly numerator: bigint;
  readonly scale: number;
  readonly format: QuantityFormat;
  /** The suffix as written ('' for none, `Gi`, `G`, `e9`, ...). */
  readonly suffix: string;
}

const binarySuffixes: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
const decimalSuffixes: Record<string, number> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const maxInt64 = (1n << 63n) - 1n;
/** Kubernetes keeps nano precision; anything finer is rounded up to it. */
const maxScale = 9;

const pattern = /^([+-]?)(\d+(?:\.\d*)?|\.\d+)(.*)$/;

export function parseQuantity(input: string | number): Quantity {
  const text = String(input).trim();
  if (text === '') throw new QuantityError(String(input), 'empty');
  const match = pattern.exec(text);
  if (!match) throw new QuantityError(text, 'expected a number followed by an optional suffix (Ki, Mi, Gi, ..., k, M, G, ..., or an exponent)');
  const [, sign = '', number = '', suffix = ''] = match;
  if (sign === '-') throw new QuantityError(text, 'a storage size cannot be negative');

  const [whole = '', fraction = ''] = number.split('.');
  let numerator = BigInt(`${whole}${fraction}` || '0');
  let scale = fraction.length;
  let format: QuantityFormat;

  if (suffix in binarySuffixes) {
    numerator *= 1n << BigInt(binarySuffixes[suffix] ?? 0);
    format = 'BinarySI';
  } else if (suffix in decimalSuffixes) {
    scale -= decimalSuffixes[suffix] ?? 0;
    format = 'DecimalSI';
  } else if (/^[eE][+-]?\d+$/.test(suffix)) {
    const exponent = Number(suffix.slice(1));
    if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 30) throw new QuantityError(text, 'exponent out of range');
    scale -= exponent;
    format = 'DecimalExponent';
  } else {
    throw new QuantityError(text, `unknown suffix ${JSON.stringify(suffix)} (use Ki, Mi, Gi, Ti, Pi, Ei or k, M, G, T, P, E)`);
  }
  if (scale < 0) {
    numerator *= 10n ** BigInt(-scale);
    scale = 0;
  }
  if (scale > maxScale) {
    const divisor = 10n ** BigInt(scale - maxScale);
    numerator = ceilDiv(numerator, divisor);
    scale = maxScale;
  }
  const bytes = ceilDiv(numerator, 10n ** BigInt(scale));
  if (bytes > maxInt64) throw new QuantityError(text, 'larger than the largest quantity Kubernetes accepts (2^63-1)');
  return { text, bytes, numerator, scale, format, suffix };
}

export function quantityFromBytes(bytes: bigint): Quantity {
  if (bytes < 0n) throw new QuantityError(String(bytes), 'a storage size cannot be negative');
  const text = formatCanonical(bytes, 0, 'BinarySI');
  return parseQuantity(text);
}

export function compareQuantities(a: Quantity, b: Quantity): -1 | 0 | 1 {
  const scale = Math.max(a.scale, b.scale);
  const left = a.numerator * 10n ** BigInt(scale - a.scale);
  const right = b.numerator * 10n ** BigInt(scale - b.scale);
  return left < right ? -1 : left > right ? 1 : 0;
}

export function quantityEquals(a: Quantity, b: Quantity): boolean {
  return compareQuantities(a, b) === 0;
}

/** What Kubernetes prints for the quantity (its canonical form). */
export function canonicalQuantity(q: Quantity): string {
  return formatCanonical(q.numerator, q.scale, q.format);
}

function formatCanonical(numerator: bigint, scale: number, format: QuantityFormat): string {
  if (numerator === 0n) return '0';
  if (format === 'BinarySI' && numerator % 10n ** BigInt(scale) === 0n) {
    const value = numerator / 10n ** BigInt(scale);
    // Kubernetes prints binary values below 1024 without a suffix, and otherwise the largest exact binary suffix.
    const suffixes = Object.entries(binarySuffixes).sort(([, a], [, b]) => b - a);
    for (const [suffix, shift] of suffixes) {
      const unit = 1n << BigInt(shift);
      if (value >= unit && value % unit === 0n) return `${value / unit}${suffix}`;
    }
    if (value < 1024n) return `${value}`;
  }
  // Decimal: the largest exponent that is a multiple of 3 leaving an integer mantissa.
  let mantissa = numerator;
  let exponent = -scale;
  while (exponent % 3 !== 0) {
    mantissa *= 10n;
    exponent -= 1;
  }
  while (mantissa % 1000n === 0n && exponent < 18) {
    mantissa /= 1000n;
    exponent += 3;
  }
  if (format === 'DecimalExponent') return exponent === 0 ? `${mantissa}` : `${mantissa}e${exponent}`;
  const suffix = Object.entries(decimalSuffixes).find(([, e]) => e === exponent)?.[0];
  return suffix === undefined ? `${mantissa}e${exponent}` : `${mantissa}${suffix}`;
}

/** The size of one step of the quantity's own unit in bytes (Gi -> 2^30, G -> 10^9, plain or sub-byte -> 1). */
export function unitBytes(like: Quantity): bigint {
  if (like.format === 'BinarySI') return 1n << BigInt(binarySuffixes[like.suffix] ?? 0);
  const exponent = like.format === 'DecimalExponent' ? Number(like.suffix.slice(1)) : decimalSuffixes[like.suffix] ?? 0;
  return exponent > 0 ? 10n ** BigInt(exponent) : 1n;
}

/**
 * Bytes in `like`'s unit when that is exact (20Gi, 20G, 2e10), otherwise the canonical form of the bytes; in binary
 * units (10Gi, not 10737418240) when `like` has no unit of its own to follow (a plain number of bytes).
 */
export function formatBytesLike(bytes: bigint, like: Quantity): string {
  const unit = unitBytes(like);
  if (unit > 1n && bytes % unit === 0n) {
    return like.format === 'DecimalExponent' ? `${bytes / unit}${like.suffix.toLowerCase()}` : `${bytes / unit}${like.suffix}`;
  }
  return formatCanonical(bytes, 0, like.format === 'BinarySI' || unit === 1n ? 'BinarySI' : 'DecimalSI');
}

/** The smallest size taken for a volume: below it, a size is a unit left out (`storage: 20`, 20 bytes), not a volume. */
export const plausibleSizeBytes = 1n << 20n;

/**
 * Why a size is no plausible volume size (`20 is 20 bytes; did you mean 20Gi?`), or undefined when it is one (1Mi or
 * more). Kubernetes reads a number without a unit as bytes, so a missing `Gi` makes a 20-byte request.
 */
export function implausibleSize(size: Quantity): string | undefined {
  if (size.bytes >= plausibleSizeBytes) return undefined;
  if (size.bytes === 0n) return `${size.text} is zero bytes: a volume needs a size, with its unit (such as 20Gi)`;
  const number = /^[+]?(\d+(?:\.\d*)?|\.\d+)/.exec(size.text)?.[1] ?? size.text;
  const bytes = size.bytes === 1n ? '1 byte' : `${size.bytes.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')} bytes`;
  return `${size.text} is ${bytes}; did you mean ${number}Gi?`;
}

/** The smallest whole amount of `like`'s unit strictly above `bytes` (10Gi capacity -> 11Gi). */
export function nextStepAbove(bytes: bigint, like: Quantity): bigint {
  const unit = unitBytes(like);
  return (bytes / unit + 1n) * unit;
}

/** The largest whole amount of `like`'s unit at or below `bytes` (a driver maximum of 50.5Gi -> 50Gi). */
export function largestStepBelowOrEqual(bytes: bigint, like: Quantity): bigint {
  const unit = unitBytes(like);
  return (bytes / unit) * unit;
}

function ceilDiv(a: bigint, b: bigint): bigint {
  return (a + b - 1n) / b;
}

/**
 * Whether two size texts name the same size. The API server stores quantities in canonical form (`1.5Ti` comes back
 * as `1536Gi`, `2e11` as `200e9`), so sizes are compared by value; text that is no quantity compares as text.
 */
export function sameSize(a: string, b: string): boolean {
  try {
    return quantityEquals(parseQuantity(a), parseQuantity(b));
  } catch (error) {
    if (error instanceof QuantityError) return a === b;
    throw error;
  }
}

/** A size text a report carries (parsed from the server's before), or undefined for none or one that is no quantity. */
export function reportedQuantity(text: string | undefined): Quantity | undefined {
  if (text === undefined) return undefined;
  try {
    return parseQuantity(text);
  } catch (error) {
    if (error instanceof QuantityError) return undefined;
    throw error;
  }
}

/** A size as people wrote it: the preferred (Git) spelling when it is the same size, else the quantity's own text. */
export function spelledLike(quantity: Quantity | undefined, preferred: Quantity): string | undefined {
  if (quantity === undefined) return undefined;
  return quantityEquals(quantity, preferred) ? preferred.text : quantity.text;
}
