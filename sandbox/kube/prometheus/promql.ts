// The PromQL the sandbox answers: exactly the shapes sts-volume-gitops sends (its own parser; the product builds its
// queries in functions/usage/volume-stats-queries.ts, and a bug shared by both sides would hide from every test).
//   max by (l1, l2) (selector)            max by (l1, l2) (deriv(selector[1d]))
//   group by (l1) (selector)              topk(3, selector)
//   max by (l1, l2) (selector) and on (l1, l2) (max by (l1, l2) (selector) / max by (l1, l2) (selector) * 100 >= 80)
//   selector: name{label op "value", ...}, name, or {__name__ op "value"}; op one of = != =~ !~
// Anything else is refused as Prometheus refuses a query it cannot parse (400 bad_data), saying it is the sandbox's
// limit: a real PromQL engine is out of scope. Results are instant vectors evaluated over the volume statistics.
export interface Matcher {
  label: string;
  op: '=' | '!=' | '=~' | '!~';
  value: string;
}

export interface Selector {
  matchers: Matcher[];
  /** `[1d]`: a range, only inside deriv. */
  rangeMs?: number;
}

/** `max by (l1, l2) (selector)`, `max by (l1, l2) (deriv(selector[1d]))` or `group by (l1) (selector)`. */
export interface Aggregate {
  op: 'max' | 'group';
  by: string[];
  inner: Selector;
  deriv: boolean;
}

/** `and on (l1, l2) (numerator / denominator * scale >= atLeast)`: the left side's samples whose share is at least that. */
export interface ShareAtLeast {
  on: string[];
  numerator: Aggregate;
  denominator: Aggregate;
  scale: number;
  atLeast: number;
}

export type ParsedQuery =
  | ({ kind: 'aggregate'; and?: ShareAtLeast } & Aggregate)
  | { kind: 'topk'; k: number; inner: Selector }
  | { kind: 'select'; inner: Selector };

export class PromqlError extends Error {}

const durationUnits: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000, y: 31_536_000_000 };

class Reader {
  private at = 0;
  constructor(private readonly text: string) {}

  private skip(): void {
    while (/\s/.test(this.text[this.at] ?? '')) this.at += 1;
  }

  /** `1:17: parse error: ...` as Prometheus places its errors (line 1, column of the fault). */
  fail(what: string): never {
    throw new PromqlError(`1:${this.at + 1}: parse error: ${what}`);
  }

  peek(token: string): boolean {
    this.skip();
    return this.text.startsWith(token, this.at);
  }

  expect(token: string): void {
    this.skip();
    if (this.at >= this.text.length) this.fail(token === '}' ? 'unexpected end of input inside braces' : `unexpected end of input, expected "${token}"`);
    if (!this.text.startsWith(token, this.at)) this.fail(`unexpected character ${JSON.stringify(this.text[this.at])}, expected "${token}"`);
    this.at += token.length;
  }

  identifier(): string {
    this.skip();
    const match = /^[a-zA-Z_:][a-zA-Z0-9_:]*/.exec(this.text.slice(this.at));
    if (!match) this.fail(this.at >= this.text.length ? 'unexpected end of input' : `unexpected character ${JSON.stringify(this.text[this.at])}`);
    this.at += match[0].length;
    return match[0];
  }

  string(): string {
    this.skip();
    if (this.text[this.at] !== '"') this.fail('expected a string in double quotes');
    let value = '';
    for (this.at += 1; this.at < this.text.length; this.at += 1) {
      const char = this.text[this.at];
      if (char === '\\') {
        this.at += 1;
        value += this.text[this.at] === '\\' ? '\\' : `\\${this.text[this.at] ?? ''}`;
      } else if (char === '"') {
        this.at += 1;
        return value;
      } else value += char;
    }
    return this.fail('unterminated quoted string');
  }

  /** A number literal as PromQL writes one: `80`, `85.5`, `1e-3`. */
  number(): number {
    this.skip();
    const match = /^\d+(?:\.\d*)?(?:[eE][-+]?\d+)?/.exec(this.text.slice(this.at));
    if (!match) this.fail('expected a number');
    this.at += match[0].length;
    return Number(match[0]);
  }

  integer(): number {
    this.skip();
    const match = /^\d+/.exec(this.text.slice(this.at));
    if (!match) this.fail('expected a number');
    this.at += match[0].length;
    return Number(match[0]);
  }

  duration(): number {
    this.skip();
    const match = /^(\d+)(ms|s|m|h|d|w|y)/.exec(this.text.slice(this.at));
    if (!match) this.fail('expected a duration such as 1d');
    this.at += match[0].length;
    return Number(match[1]) * (durationUnits[match[2] ?? 's'] ?? 1000);
  }

  end(): void {
    this.skip();
    if (this.at < this.text.length) this.fail(`unexpected ${JSON.stringify(this.text.slice(this.at, this.at + 10))}`);
  }

  done(): boolean {
    this.skip();
    return this.at >= this.text.length;
  }
}

function selector(reader: Reader, allowRange: boolean): Selector {
  const matchers: Matcher[] = [];
  if (!reader.peek('{')) matchers.push({ label: '__name__', op: '=', value: reader.identifier() });
  if (reader.peek('{')) {
    reader.expect('{');
    while (!reader.peek('}')) {
      if (reader.done()) reader.fail('unexpected end of input inside braces');
      const label = reader.identifier();
      const op = (['=~', '!~', '!=', '='] as const).find((o) => reader.peek(o));
      if (!op) reader.fail('expected a label matching operator');
      reader.expect(op);
      matchers.push({ label, op, value: reader.string() });
      if (reader.done()) reader.fail('unexpected end of input inside braces');
      if (!reader.peek('}')) reader.expect(',');
    }
    reader.expect('}');
  }
  if (matchers.length === 0) reader.fail('vector selector must contain at least one non-empty matcher');
  if (allowRange) {
    reader.expect('[');
    const rangeMs = reader.duration();
    reader.expect(']');
    return { matchers, rangeMs };
  }
  return { matchers };
}

function labelList(reader: Reader): string[] {
  reader.expect('(');
  const labels = [reader.identifier()];
  while (reader.peek(',')) {
    reader.expect(',');
    labels.push(reader.identifier());
  }
  reader.expect(')');
  return labels;
}

function aggregate(reader: Reader): Aggregate {
  const op = reader.peek('max') ? 'max' : 'group';
  reader.expect(op);
  reader.expect('by');
  const by = labelList(reader);
  reader.expect('(');
  const deriv = reader.peek('deriv(');
  if (deriv) reader.expect('deriv(');
  const inner = selector(reader, deriv);
  if (deriv) reader.expect(')');
  reader.expect(')');
  return { op, by, inner, deriv };
}

/** `and on (l1, l2) (max by (...) (a) / max by (...) (b) * 100 >= 80)`, after the aggregate it filters. */
function shareAtLeast(reader: Reader): ShareAtLeast {
  reader.expect('and');
  reader.expect('on');
  const on = labelList(reader);
  reader.expect('(');
  const numerator = aggregate(reader);
  reader.expect('/');
  const denominator = aggregate(reader);
  reader.expect('*');
  const scale = reader.number();
  reader.expect('>=');
  const atLeast = reader.number();
  reader.expect(')');
  return { on, numerator, denominator, scale, atLeast };
}

/** The query's shape, or a PromqlError worded as Prometheus words a parse error. */
export function parseQuery(text: string): ParsedQuery {
  const reader = new Reader(text);
  if (reader.done()) reader.fail('no expression found in input');
  let parsed: ParsedQuery;
  if (reader.peek('max') || reader.peek('group')) {
    const left = aggregate(reader);
    parsed = reader.peek('and') ? { kind: 'aggregate', ...left, and: shareAtLeast(reader) } : { kind: 'aggregate', ...left };
  } else if (reader.peek('topk')) {
    reader.expect('topk');
    reader.expect('(');
    const k = reader.integer();
    reader.expect(',');
    const inner = selector(reader, false);
    reader.expect(')');
    parsed = { kind: 'topk', k, inner };
  } else {
    parsed = { kind: 'select', inner: selector(reader, false) };
  }
  reader.end();
  return parsed;
}

/** One series as the evaluator sees it: its labels (with __name__) and its value now, or its slope over a range. */
export interface Series {
  labels: Record<string, string>;
  value: number;
  /** Used bytes per second over `windowMs` (deriv); only the used-bytes family has one. */
  slope?: (windowMs: number) => number;
}

export interface VectorSample {
  metric: Record<string, string>;
  value: number;
}

const compiled = new Map<string, RegExp>();

/** A matcher's regex, anchored as Prometheus anchors it, compiled once. */
function regexOf(value: string): RegExp {
  let regex = compiled.get(value);
  if (!regex) {
    regex = new RegExp(`^(?:${value})$`);
    compiled.set(value, regex);
  }
  return regex;
}

export function matches(series: Series, matchers: readonly Matcher[]): boolean {
  return matchers.every(({ label, op, value }) => {
    const actual = series.labels[label] ?? '';
    if (op === '=') return actual === value;
    if (op === '!=') return actual !== value;
    return op === '=~' ? regexOf(value).test(actual) : !regexOf(value).test(actual);
  });
}

/** The metric names a query selects by equality (`kubelet_volume_stats_used_bytes{...}`); undefined if one selector names none. */
export function selectedNames(query: ParsedQuery): string[] | undefined {
  const selectors = [query.inner, ...(query.kind === 'aggregate' && query.and ? [query.and.numerator.inner, query.and.denominator.inner] : [])];
  const names = selectors.map((s) => s.matchers.find((m) => m.label === '__name__' && m.op === '=')?.value);
  return names.every((n) => n !== undefined) ? [...new Set(names)] : undefined;
}

/** The instant vector the query gives over these series. */
export function evaluate(query: ParsedQuery, series: readonly Series[]): VectorSample[] {
  if (query.kind === 'select') return series.filter((s) => matches(s, query.inner.matchers)).map((s) => ({ metric: s.labels, value: s.value }));
  if (query.kind === 'topk') {
    return series.filter((s) => matches(s, query.inner.matchers)).sort((a, b) => b.value - a.value).slice(0, query.k).map((s) => ({ metric: s.labels, value: s.value }));
  }
  const left = aggregated(query, series);
  return query.and ? left.filter(shareFilter(query.and, series)) : left;
}

/**
 * Which samples `and on (...)` keeps: those whose `on` labels match a sample of the right side, where the right side
 * is the one-to-one division of two aggregates (samples with the same labels), scaled, then compared: a comparison
 * without `bool` drops what fails it (a division by zero gives +Inf or NaN, as IEEE 754 says and Prometheus does).
 */
function shareFilter(share: ShareAtLeast, series: readonly Series[]): (sample: VectorSample) => boolean {
  const keyOf = (metric: Record<string, string>, labels: readonly string[]): string => labels.map((label) => metric[label] ?? '').join('\u0000');
  const denominators = new Map(aggregated(share.denominator, series).map((s) => [keyOf(s.metric, Object.keys(s.metric).sort()), s.value]));
  const kept = new Set<string>();
  for (const one of aggregated(share.numerator, series)) {
    const denominator = denominators.get(keyOf(one.metric, Object.keys(one.metric).sort()));
    if (denominator === undefined) continue;
    if ((one.value / denominator) * share.scale >= share.atLeast) kept.add(keyOf(one.metric, share.on));
  }
  return (sample) => kept.has(keyOf(sample.metric, share.on));
}

/** One sample per group of the `by` labels: the max of its series (or 1, group), or of their slopes (deriv). */
function aggregated(query: Aggregate, series: readonly Series[]): VectorSample[] {
  const selected = series.filter((s) => matches(s, query.inner.matchers));
  const groups = new Map<string, VectorSample>();
  for (const one of selected) {
    // deriv keeps a series only where its range has two samples or more; the used-bytes history always has.
    const value = query.deriv ? one.slope?.(query.inner.rangeMs ?? 0) : one.value;
    if (value === undefined) continue;
    const key = query.by.map((label) => one.labels[label] ?? '').join('\u0000');
    const found = groups.get(key);
    if (found) {
      if (query.op === 'max' && value > found.value) found.value = value;
      continue;
    }
    const metric: Record<string, string> = {};
    for (const label of query.by) if (one.labels[label] !== undefined) metric[label] = one.labels[label] ?? '';
    groups.set(key, { metric, value: query.op === 'group' ? 1 : value });
  }
  return [...groups.values()];
}
