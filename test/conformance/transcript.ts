// Reading a recorded transcript (/work/shared/conformance/README.md gives the line format): one JSON object per HTTP
// exchange, written when the exchange ended, so lines are sorted back into arrival (`seq`) order here.
import { readFileSync } from 'node:fs';

export interface Exchange {
  seq: number;
  /** ms since the recorder started, at arrival. */
  t: number;
  durationMs: number;
  method: string;
  path: string;
  client: string;
  note?: string;
  requestContentType: string | null;
  requestBody: unknown;
  status: number;
  responseContentType: string | null;
  responseWarning?: string;
  responseBody: unknown;
  watch?: boolean;
  watchEnd?: string;
}

/** The kubectl wrapper's `GET /version` before every kubectl command: noise, not part of what was recorded. */
const noiseClients = new Set(['kubectl-dispatcher']);

export function loadTranscript(path: string): Exchange[] {
  const lines = readFileSync(path, 'utf8').split('\n').filter((line) => line.trim() !== '');
  return lines
    .map((line, index) => {
      try {
        return JSON.parse(line) as Exchange;
      } catch (error) {
        throw new Error(`${path}:${index + 1}: not a JSON line`, { cause: error });
      }
    })
    .filter((exchange) => !noiseClients.has(exchange.client))
    .sort((a, b) => a.seq - b.seq);
}

/** Discovery and OpenAPI answers were reduced by the recorder (their bodies are summaries). */
export function isDiscovery(path: string): boolean {
  const pathname = path.split('?')[0] ?? '';
  return pathname.startsWith('/openapi/') || pathname === '/openapi/v2' || pathname === '/api' || pathname === '/apis'
    || /^\/api\/v1$/.test(pathname) || /^\/apis\/[^/]+(\/[^/]+)?$/.test(pathname) || pathname === '/version';
}

/** A body the recorder replaced by a summary (discovery, OpenAPI, or a kubectl poll identical to the previous one). */
export function isSummary(body: unknown): boolean {
  return typeof body === 'object' && body !== null && !Array.isArray(body) && 'summary' in body;
}
