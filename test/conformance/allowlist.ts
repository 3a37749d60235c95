// The explicit allowlist of replay differences: each entry names the exchanges it covers and why the sandbox may
// answer differently there. None may cover a request the product (client `kubernetes-client-javascript`) sends.
import { readFileSync } from 'node:fs';
import type { Exchange } from './transcript.ts';

export interface AllowlistEntry {
  /** The recorded server's version (`1.26`, `1.34`); both when absent. */
  version?: string;
  /** Transcript name (`probes`, `edge-cases`, ...); every transcript when absent. */
  transcript?: string;
  /** Recorded `seq` numbers covered. */
  seq?: number[];
  method?: string;
  /** A regular expression over the recorded path (query included). */
  path?: string;
  client?: string;
  reason: string;
}

export function loadAllowlist(file = new URL('./allowlist.json', import.meta.url)): AllowlistEntry[] {
  const entries = JSON.parse(readFileSync(file, 'utf8')) as AllowlistEntry[];
  for (const entry of entries) {
    if (typeof entry.reason !== 'string' || entry.reason.trim() === '') throw new Error(`allowlist entry without a reason: ${JSON.stringify(entry)}`);
    if (entry.seq === undefined && entry.path === undefined) throw new Error(`allowlist entry must name seq or path: ${JSON.stringify(entry)}`);
    if (entry.client === 'kubernetes-client-javascript') throw new Error(`the product's own requests may not be allowlisted: ${entry.reason}`);
  }
  return entries;
}

/** The index of the first entry covering this exchange, if any. */
export function matchAllowlist(entries: AllowlistEntry[], transcript: string, exchange: Exchange, version: string): number | undefined {
  const index = entries.findIndex((entry) => (entry.version === undefined || entry.version === version)
    && (entry.transcript === undefined || entry.transcript === transcript)
    && (entry.seq === undefined || entry.seq.includes(exchange.seq))
    && (entry.method === undefined || entry.method === exchange.method)
    && (entry.path === undefined || new RegExp(entry.path).test(exchange.path))
    && (entry.client === undefined || entry.client === exchange.client)
    && exchange.client !== 'kubernetes-client-javascript');
  return index >= 0 ? index : undefined;
}
