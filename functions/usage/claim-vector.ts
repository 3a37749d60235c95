// An instant vector answer read for the two labels a claim is keyed by (`namespace`, `persistentvolumeclaim`) and each
// sample's value, straight from the text. Prometheus writes each sample compactly, as
// `{"metric":{"label":"value",...},"value":[time,"number"]}` (test/conformance/prometheus/); at 1,000 sets a pass reads
// 30,000 of them, and JSON.parse's trees of them (an object, a labels object, an array and a timestamp per sample) cost
// the usage step about as much as its decisions. Only the result array is read here; the envelope around it (status,
// resultType, warnings) is still JSON.parse's. Any answer not written so (whitespace, any escape, another key order, an
// error) is read by prometheus-api.ts readAnswer instead: the same samples and the same failures either way.
import { claimLabels } from './volume-stats-queries.ts';
import { readAnswer, warningsOf, type Envelope, type InstantQueryAnswer } from './prometheus-api.ts';
import type { UsageReadFailure } from '../domain/volume-usage.ts';

/** A vector's samples that name a claim, as parallel columns (one entry per sample, in the answer's order). */
export interface ClaimValues {
  namespaces: string[];
  claims: string[];
  /** The samples' values; NaN and infinities (a division by zero in a recording rule) are left out, as readAnswer does. */
  values: number[];
}

export type ClaimVectorAnswer =
  | { ok: true; samples: ClaimValues; warnings: string[] }
  | { ok: false; failure: UsageReadFailure };

const resultKey = '"result":[';
const metricOpen = '{"metric":{';
const valueOpen = ',"value":[';
const [namespaceLabel, claimLabel] = claimLabels;

/** The answer read for its claims: the text's own samples when written as Prometheus writes them, else readAnswer's. */
export function readClaimVector(status: number, contentType: string | null, text: string, sent: Record<string, string> = {}): ClaimVectorAnswer {
  const fast = status >= 200 && status <= 299 ? scanClaimVector(text, sent) : undefined;
  return fast ?? claimValuesOf(readAnswer(status, contentType, text, sent));
}

/** readAnswer's samples as columns: those with both claim labels (a string each). */
function claimValuesOf(answer: InstantQueryAnswer): ClaimVectorAnswer {
  if (!answer.ok) return answer;
  const samples: ClaimValues = { namespaces: [], claims: [], values: [] };
  for (const { labels, value } of answer.samples) {
    const namespace = labels[namespaceLabel];
    const claim = labels[claimLabel];
    if (typeof namespace !== 'string' || typeof claim !== 'string') continue;
    samples.namespaces.push(namespace);
    samples.claims.push(claim);
    samples.values.push(value);
  }
  return { ok: true, samples, warnings: answer.warnings };
}

/**
 * The samples read from the text, or undefined as soon as anything is not as Prometheus writes it. The result array is
 * cut out and the rest parsed as JSON: a success with a vector whose result was exactly the array read, or undefined.
 */
export function scanClaimVector(text: string, sent: Record<string, string>): ClaimVectorAnswer | undefined {
  // Without a backslash anywhere, every quote delimits a string: no label needs unescaping, none hides a quote.
  const open = text.indexOf(resultKey);
  if (open < 0 || text.includes('\\')) return undefined;
  const samples: ClaimValues = { namespaces: [], claims: [], values: [] };
  let at = open + resultKey.length;
  if (text.charCodeAt(at) !== 0x5d /* ] */) {
    for (;;) {
      at = scanSample(text, at, samples);
      if (at < 0) return undefined;
      const next = text.charCodeAt(at);
      if (next === 0x5d /* ] */) break;
      if (next !== 0x2c /* , */) return undefined;
      at += 1;
    }
  }
  let envelope: Envelope;
  try {
    envelope = JSON.parse(text.slice(0, open + resultKey.length) + text.slice(at)) as Envelope;
  } catch {
    return undefined;
  }
  const result = envelope.data?.result;
  if (envelope.status !== 'success' || envelope.data?.resultType !== 'vector' || !Array.isArray(result) || result.length > 0) return undefined;
  return { ok: true, samples, warnings: warningsOf(envelope, sent) };
}

/** One sample from `at` (its `{`): its claim labels and value pushed when it has both; the index after its `}`, or -1. */
function scanSample(text: string, start: number, into: ClaimValues): number {
  if (!text.startsWith(metricOpen, start)) return -1;
  let at = start + metricOpen.length;
  let namespace: string | undefined;
  let claim: string | undefined;
  if (text.charCodeAt(at) !== 0x7d /* } */) {
    for (;;) {
      // "name":"value"
      if (text.charCodeAt(at) !== 0x22 /* " */) return -1;
      const nameEnd = text.indexOf('"', at + 1);
      if (nameEnd < 0 || text.charCodeAt(nameEnd + 1) !== 0x3a /* : */ || text.charCodeAt(nameEnd + 2) !== 0x22) return -1;
      const valueEnd = text.indexOf('"', nameEnd + 3);
      if (valueEnd < 0) return -1;
      const name = nameEnd - at - 1;
      if (name === namespaceLabel.length && text.startsWith(namespaceLabel, at + 1)) namespace = text.slice(nameEnd + 3, valueEnd);
      else if (name === claimLabel.length && text.startsWith(claimLabel, at + 1)) claim = text.slice(nameEnd + 3, valueEnd);
      at = valueEnd + 1;
      const next = text.charCodeAt(at);
      if (next === 0x7d /* } */) break;
      if (next !== 0x2c /* , */) return -1;
      at += 1;
    }
  }
  at += 1;
  if (!text.startsWith(valueOpen, at)) return -1;
  at += valueOpen.length;
  // The sample's time, a JSON number (not needed: the query's time is the pass's).
  const timeEnd = numberEnd(text, at);
  if (timeEnd === at || text.charCodeAt(timeEnd) !== 0x2c || text.charCodeAt(timeEnd + 1) !== 0x22) return -1;
  const valueStart = timeEnd + 2;
  const valueEnd = text.indexOf('"', valueStart);
  if (valueEnd < 0 || text.charCodeAt(valueEnd + 1) !== 0x5d || text.charCodeAt(valueEnd + 2) !== 0x7d) return -1;
  if (namespace !== undefined && claim !== undefined) {
    const value = Number(text.slice(valueStart, valueEnd));
    if (Number.isFinite(value)) {
      into.namespaces.push(namespace);
      into.claims.push(claim);
      into.values.push(value);
    }
  }
  return valueEnd + 3;
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

function digitsEnd(text: string, at: number): number {
  let end = at;
  while (isDigit(text.charCodeAt(end))) end += 1;
  return end;
}

/** Where the JSON number starting at `at` ends (`-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?`), or `at` when none starts there. */
function numberEnd(text: string, at: number): number {
  let end = text.charCodeAt(at) === 0x2d /* - */ ? at + 1 : at;
  const whole = digitsEnd(text, end);
  if (whole === end || (text.charCodeAt(end) === 0x30 && whole > end + 1)) return at;
  end = whole;
  if (text.charCodeAt(end) === 0x2e /* . */) {
    const fraction = digitsEnd(text, end + 1);
    if (fraction === end + 1) return at;
    end = fraction;
  }
  const e = text.charCodeAt(end);
  if (e === 0x65 || e === 0x45) {
    const sign = text.charCodeAt(end + 1);
    const from = sign === 0x2b || sign === 0x2d ? end + 2 : end + 1;
    const exponent = digitsEnd(text, from);
    if (exponent === from) return at;
    end = exponent;
  }
  return end;
}
