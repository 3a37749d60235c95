// One instant query over the Prometheus HTTP API (`POST <url>/api/v1/query`, form-encoded `query`, `time`, `timeout`),
// and its answer read as Prometheus writes it: `{status: "success", data: {resultType: "vector", result}, warnings?}`,
// or `{status: "error", errorType, error}` with 400/422/503, or whatever a proxy in front says. Every way it can go
// wrong is a typed failure, never a throw, and no message carries a credential. Sent with Node's own http(s), not fetch:
// an answer is 600 KB at 1,000 sets, and fetch's web-stream body costs 3 ms of CPU for one where http's costs under 2
// (BENCHMARKS.md).
import { request as httpRequest, type ClientRequest, type IncomingMessage, type RequestOptions } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { UsageReadFailure } from '../domain/volume-usage.ts';
import { networkFailureOf } from '../adapters/kube/network-failure.ts';
import type { PrometheusAuthorizer } from './prometheus-auth.ts';

export interface PrometheusEndpoint {
  /** The base of the API, as configured (no trailing slash needed). */
  url: string;
  authorize: PrometheusAuthorizer;
}

export interface VectorSample {
  labels: Record<string, string>;
  value: number;
}

export type InstantQueryAnswer =
  | { ok: true; samples: VectorSample[]; warnings: string[] }
  | { ok: false; failure: UsageReadFailure };

/** The longest excerpt of a refusal's body kept in a message (a proxy's HTML page says little more). */
const excerptLength = 200;

/** What came back to one query: Prometheus's status, content type and body, or why nothing did. */
export type QueryExchange =
  | { ok: true; status: number; contentType: string | null; text: string; sent: Record<string, string> }
  | { ok: false; failure: UsageReadFailure };

/** Asks `promql` at `at`, giving up after `timeoutMs` (Prometheus is told the same, so it stops too). */
export async function queryInstant(endpoint: PrometheusEndpoint, promql: string, at: Date, timeoutMs: number): Promise<InstantQueryAnswer> {
  const exchange = await postQuery(endpoint, promql, at, timeoutMs);
  return exchange.ok ? readAnswer(exchange.status, exchange.contentType, exchange.text, exchange.sent) : exchange;
}

/** The query sent, its answer's text kept as it came (each reader reads it its own way). */
export async function postQuery(endpoint: PrometheusEndpoint, promql: string, at: Date, timeoutMs: number): Promise<QueryExchange> {
  const url = `${endpoint.url.replace(/\/+$/, '')}/api/v1/query`;
  const body = new URLSearchParams({ query: promql, time: (at.getTime() / 1000).toFixed(3), timeout: `${Math.max(1, Math.floor(timeoutMs / 1000))}s` }).toString();
  const headers: Record<string, string> = { 'content-type': 'application/x-www-form-urlencoded', accept: 'application/json' };
  let authorized: Record<string, string>;
  try {
    authorized = await endpoint.authorize({ method: 'POST', url, headers, body });
  } catch (error) {
    return { ok: false, failure: { kind: 'credentials', message: error instanceof Error ? error.message : String(error) } };
  }
  try {
    const answer = await post(url, { ...headers, ...authorized }, body, timeoutMs);
    return { ok: true, ...answer, sent: authorized };
  } catch (error) {
    return { ok: false, failure: unanswered(error, timeoutMs) };
  }
}

/**
 * One POST, its whole body as text. No compression is asked for (fetch asked for gzip, which Prometheus gives): at
 * 1,000 sets inflating the five answers cost the controller 10 ms of CPU a pass, a tenth of the pass's usage step,
 * for 3.2 MB on the wire instead of a few hundred KB, read beside the cluster's own reads (BENCHMARKS.md). No
 * redirect is followed (a POST redirected is a misconfigured URL, said by its status).
 */
function post(url: string, headers: Record<string, string>, body: string, timeoutMs: number): Promise<{ status: number; contentType: string | null; text: string }> {
  return new Promise((resolve, reject) => {
    const target = new URL(url);
    const send = target.protocol === 'https:' ? httpsRequest : target.protocol === 'http:' ? httpRequest : undefined;
    if (!send) throw new Error(`the URL's scheme is ${target.protocol.replace(/:$/, '')}; a Prometheus API is reached over http or https`);
    const options: RequestOptions = {
      method: 'POST', signal: AbortSignal.timeout(timeoutMs),
      headers: { ...headers, 'accept-encoding': 'identity', 'content-length': String(Buffer.byteLength(body)) },
    };
    const request: ClientRequest = send(target, options, (response: IncomingMessage) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', reject);
      response.on('end', () => resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'] ?? null, text: Buffer.concat(chunks).toString('utf8') }));
    });
    request.on('error', reject);
    request.end(body);
  });
}

/** No answer: a timeout, or the network failure named (DNS, refused, TLS, reset). */
function unanswered(error: unknown, timeoutMs: number): UsageReadFailure {
  const name = (error as { name?: string }).name;
  if (name === 'TimeoutError' || name === 'AbortError') return { kind: 'timeout', message: `no answer within ${Math.round(timeoutMs / 1000)} s` };
  const network = networkFailureOf(error);
  if (network?.kind === 'timeout') return { kind: 'timeout', message: network.detail };
  return { kind: 'unreachable', message: network?.detail ?? (error instanceof Error ? error.message : String(error)) };
}

export interface Envelope {
  status?: unknown;
  data?: { resultType?: unknown; result?: unknown };
  errorType?: unknown;
  error?: unknown;
  warnings?: unknown;
}

/** The answer read: Prometheus's envelope when it is one, a status and an excerpt otherwise. */
export function readAnswer(status: number, contentType: string | null, text: string, sent: Record<string, string> = {}): InstantQueryAnswer {
  const envelope = parseEnvelope(contentType, text);
  if (envelope?.status === 'error') {
    const errorType = typeof envelope.errorType === 'string' ? envelope.errorType : 'unknown';
    return { ok: false, failure: { kind: 'query-error', status, errorType, message: `Prometheus answered ${status} ${errorType}: ${scrub(typeof envelope.error === 'string' ? envelope.error : '', sent)}` } };
  }
  if (status < 200 || status > 299) {
    const kind = status === 401 || status === 403 ? 'refused' : 'server-error';
    const excerpt = scrub(text.replace(/\s+/g, ' ').trim().slice(0, excerptLength), sent);
    return { ok: false, failure: { kind, status, message: `HTTP ${status}${excerpt ? `: ${excerpt}` : ''}` } };
  }
  if (envelope?.status !== 'success' || envelope.data?.resultType !== 'vector' || !Array.isArray(envelope.data.result)) {
    const what = envelope === undefined ? `not JSON (${contentType ?? 'no content type'})` : `not an instant vector (resultType ${String(envelope.data?.resultType)})`;
    return { ok: false, failure: { kind: 'malformed', status, message: `the answer is ${what}; is the URL the base of a Prometheus HTTP API?` } };
  }
  const samples: VectorSample[] = [];
  for (const entry of envelope.data.result as unknown[]) {
    const sample = sampleOf(entry);
    if (sample === undefined) return { ok: false, failure: { kind: 'malformed', status, message: 'a sample of the vector is not {metric, value: [time, "number"]}' } };
    // NaN and infinities (a division by zero in someone's recording rule) say nothing of a volume.
    if (Number.isFinite(sample.value)) samples.push(sample);
  }
  return { ok: true, samples, warnings: warningsOf(envelope, sent) };
}

/** Prometheus's warnings (a partial answer), as it said them, without a credential. */
export function warningsOf(envelope: Pick<Envelope, 'warnings'>, sent: Record<string, string>): string[] {
  return Array.isArray(envelope.warnings) ? envelope.warnings.map((w) => scrub(String(w), sent)) : [];
}

function parseEnvelope(contentType: string | null, text: string): Envelope | undefined {
  if (!/json/i.test(contentType ?? '') && !text.trimStart().startsWith('{')) return undefined;
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A sample as the API writes it: `{metric: {label: "value"}, value: [time, "number"]}`; the labels are kept as read. */
function sampleOf(entry: unknown): VectorSample | undefined {
  if (typeof entry !== 'object' || entry === null) return undefined;
  const { metric, value } = entry as { metric?: unknown; value?: unknown };
  if (typeof metric !== 'object' || metric === null || !Array.isArray(value) || typeof value[1] !== 'string') return undefined;
  // JSON gives label values as strings; a reader of a label checks the one it reads (thousands of samples a query).
  return { labels: metric as Record<string, string>, value: Number(value[1]) };
}

/**
 * A refusal's words without the credential sent (a proxy may echo its header): a bearer token, a session token. A
 * SigV4 signature is no secret (it is good for one request), and scrubbing it would blank AWS's own words.
 */
function scrub(text: string, sent: Record<string, string>): string {
  const secrets = [/^Bearer (.+)$/.exec(sent.authorization ?? '')?.[1], sent['x-amz-security-token']].filter((s): s is string => s !== undefined && s.length > 0);
  return secrets.reduce((clean, secret) => clean.split(secret).join('(not shown)'), text);
}
