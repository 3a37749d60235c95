// A Prometheus-compatible HTTP API over the sandbox's volume statistics: `/api/v1/query` (GET or POST form-encoded,
// `query`, `time`), answered in Prometheus's JSON envelope and its error shapes (400 bad_data for a query it cannot
// parse, as Prometheus does), for exactly the queries the tool makes (promql.ts). Held to a real Prometheus's answers
// by test/conformance/prometheus/. Optionally behind a bearer token (a 401 as an authenticating proxy gives) or AWS
// SigV4 (a 403 with AWS's JSON, as an Amazon Managed Service for Prometheus workspace gives), with fault injection.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import type { FaultInjector } from '../faults.ts';
import { evaluate, parseQuery, PromqlError, selectedNames, type Series } from './promql.ts';
import { verifySigV4, type SigV4Expectation } from './sigv4.ts';
import type { VolumeStats } from './volume-stats.ts';

export type PrometheusAuth = { bearerToken: string } | { sigv4: SigV4Expectation } | undefined;

export interface PrometheusApiOptions {
  stats: VolumeStats;
  now: () => Date;
  faults: FaultInjector;
  /** Who may ask (changed by tests at any time). */
  auth: () => PrometheusAuth;
  /** Every query asked, in order (the bench counts them). */
  onQuery?: (query: string) => void;
  /** The labels a scrape's relabelling put the kubelet's under (a misconfigured scrape: the claim as `pvc`). */
  relabel?: () => Relabelling;
}

export interface Relabelling {
  namespace?: string;
  persistentvolumeclaim?: string;
  /**
   * The scrape target's own `namespace` label (`kube-system`), which wins over the kubelet's when the scrape does not
   * honor labels: Prometheus then keeps the kubelet's as `exported_namespace` (set `namespace` to say so).
   */
  scrapeNamespace?: string;
  /** A prefix a relabelling put before every metric name (`eks_`). */
  metricPrefix?: string;
}

type Json = Record<string, unknown>;

function send(res: ServerResponse, status: number, body: Json | string, headers: Record<string, string> = {}): void {
  const text = typeof body === 'string' ? body : JSON.stringify(body);
  res.writeHead(status, { 'content-type': typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json', ...headers });
  res.end(text);
}

/**
 * An answer of the API itself, gzipped when the client accepts it, as Prometheus's API does (its handlers are wrapped
 * in util/httputil's CompressionHandler: gzip or deflate by Accept-Encoding).
 */
function sendApi(req: IncomingMessage, res: ServerResponse, status: number, body: Json): void {
  if (!/\bgzip\b/.test(req.headers['accept-encoding'] ?? '')) return send(res, status, body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-encoding': 'gzip' });
  res.end(gzipSync(JSON.stringify(body)));
}

function badData(req: IncomingMessage, res: ServerResponse, error: string): void {
  sendApi(req, res, 400, { status: 'error', errorType: 'bad_data', error });
}

async function bodyOf(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

/** `time` as Prometheus reads it: unix seconds (with a fraction) or RFC 3339; absent: now. */
function timeOf(text: string | null, now: Date): number | undefined {
  if (text === null || text === '') return now.getTime() / 1000;
  if (/^-?\d+(\.\d+)?$/.test(text)) return Number(text);
  const parsed = Date.parse(text);
  return Number.isNaN(parsed) ? undefined : parsed / 1000;
}

/** Prometheus prints sample values with Go's strconv.FormatFloat(v, 'f', -1, 64): no exponent, the shortest exact digits. */
function formatValue(value: number): string {
  if (Number.isNaN(value)) return 'NaN';
  if (!Number.isFinite(value)) return value > 0 ? '+Inf' : '-Inf';
  if (Number.isInteger(value) && Math.abs(value) < 1e21) return BigInt(value).toString();
  const text = String(value);
  return /e/.test(text) ? value.toFixed(20).replace(/0+$/, '') : text;
}

/** The series at a time: every family's, or only the ones a query names (the others would be filtered out anyway). */
function seriesAt(stats: VolumeStats, atMs: number, relabel: Relabelling, only: readonly string[] | undefined): Series[] {
  const prefix = relabel.metricPrefix ?? '';
  const scrape: Record<string, string> = relabel.scrapeNamespace !== undefined ? { namespace: relabel.scrapeNamespace } : {};
  return stats.samples(atMs).flatMap((sample) => Object.entries(sample.values).filter(([name]) => only === undefined || only.includes(prefix + name)).map(([name, value]) => ({
    labels: { __name__: prefix + name, instance: sample.instance, job: 'kubelet', ...scrape, [relabel.namespace ?? 'namespace']: sample.namespace, [relabel.persistentvolumeclaim ?? 'persistentvolumeclaim']: sample.claim },
    value,
    ...(name === 'kubelet_volume_stats_used_bytes' ? { slope: (windowMs: number) => sample.bytesPerSecond(windowMs, atMs) } : {}),
  })));
}

export function createPrometheusApi(options: PrometheusApiOptions): Server {
  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox');
    if (url.pathname === '/-/ready' || url.pathname === '/-/healthy') return send(res, 200, 'Prometheus Server is Ready.\n');
    if (url.pathname !== '/api/v1/query') return send(res, 404, '404 page not found\n');
    if (req.method !== 'GET' && req.method !== 'POST') return send(res, 405, 'Method Not Allowed\n');
    const body = req.method === 'POST' ? await bodyOf(req) : '';
    const fault = options.faults.match(req.method, 'query', undefined);
    if (fault?.latencyMs) await new Promise((resolve) => setTimeout(resolve, fault.latencyMs));
    if (fault?.failure === 'reset' || fault?.failure === 'drop-reply') {
      req.socket.destroy();
      return undefined;
    }
    if (typeof fault?.failure === 'number') return send(res, fault.failure, `injected failure ${fault.failure}\n`);
    const refusal = await refused(req, body, url, options.auth());
    if (refusal) return send(res, refusal.status, refusal.body, refusal.headers);
    const form = req.method === 'POST' && (req.headers['content-type'] ?? '').startsWith('application/x-www-form-urlencoded')
      ? new URLSearchParams(body) : new URLSearchParams();
    const param = (name: string): string | null => form.get(name) ?? url.searchParams.get(name);
    const time = timeOf(param('time'), options.now());
    if (time === undefined) return badData(req, res, `invalid parameter "time": Invalid time value for 'time': cannot parse ${JSON.stringify(param('time'))} to a valid timestamp`);
    const query = param('query') ?? '';
    options.onQuery?.(query);
    let parsed;
    try {
      parsed = parseQuery(query);
    } catch (error) {
      if (error instanceof PromqlError) return badData(req, res, `invalid parameter "query": ${error.message}`);
      throw error;
    }
    const result = evaluate(parsed, seriesAt(options.stats, time * 1000, options.relabel?.() ?? {}, selectedNames(parsed)));
    return sendApi(req, res, 200, { status: 'success', data: { resultType: 'vector', result: result.map((s) => ({ metric: s.metric, value: [time, formatValue(s.value)] })) } });
  };
  return createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, `${(error as Error).message}\n`));
  });
}

/** Why a request is refused before it reaches the API, as the component in front of it says it. */
async function refused(req: IncomingMessage, body: string, url: URL, auth: PrometheusAuth): Promise<{ status: number; body: Json | string; headers?: Record<string, string> } | undefined> {
  if (auth === undefined) return undefined;
  if ('bearerToken' in auth) {
    return req.headers.authorization === `Bearer ${auth.bearerToken}` ? undefined : { status: 401, body: 'Unauthorized\n', headers: { 'www-authenticate': 'Bearer' } };
  }
  const problem = await verifySigV4({ method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body }, auth.sigv4);
  return problem === undefined ? undefined : { status: 403, body: { message: problem.message }, headers: { 'x-amzn-errortype': problem.type } };
}
