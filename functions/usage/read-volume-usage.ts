// A pass's read of its volumes' usage: the five queries of volume-stats-queries.ts sent at once, their answers joined
// per claim. Any query that fails fails the read (typed: the pass then skips growth and says why); a claim without used
// and capacity series is simply not in the result (its pod is not running, or Prometheus has not scraped it).
import type { ClaimUsage, UsageReadFailure } from '../domain/volume-usage.ts';
import { queryInstant, type PrometheusEndpoint, type VectorSample } from './prometheus-api.ts';
import { volumeStatsQueries } from './volume-stats-queries.ts';

export type UsageReading =
  | { ok: true; claims: Map<string, ClaimUsage>; warnings: string[]; queries: number }
  | { ok: false; failure: UsageReadFailure; queries: number };

/** `namespace/claim`, the key of a claim's usage. */
export function claimKey(namespace: string, claim: string): string {
  return `${namespace}/${claim}`;
}

export async function readVolumeUsage(endpoint: PrometheusEndpoint, namespaces: readonly string[], at: Date, timeoutMs: number): Promise<UsageReading> {
  const queries = volumeStatsQueries(namespaces);
  const answers = await Promise.all(queries.map((q) => queryInstant(endpoint, q.promql, at, timeoutMs)));
  const failed = answers.find((a) => !a.ok);
  if (failed && !failed.ok) return { ok: false, failure: failed.failure, queries: queries.length };
  const byFamily = new Map(queries.map((q, index) => {
    const answer = answers[index];
    return [q.reads, answer?.ok ? valuesByClaim(answer.samples) : new Map<string, number>()] as const;
  }));
  const claims = new Map<string, ClaimUsage>();
  const used = byFamily.get('usedBytes') ?? new Map<string, number>();
  for (const [key, usedBytes] of used) {
    const capacityBytes = byFamily.get('capacityBytes')?.get(key);
    if (capacityBytes === undefined || capacityBytes <= 0) continue;
    const [namespace = '', claim = ''] = key.split('/');
    const inodesUsed = byFamily.get('inodesUsed')?.get(key);
    const inodes = byFamily.get('inodes')?.get(key);
    const perSecond = byFamily.get('bytesPerSecond')?.get(key);
    claims.set(key, {
      namespace, claim, usedBytes, capacityBytes,
      ...(inodesUsed !== undefined && inodes !== undefined && inodes > 0 ? { inodesUsed, inodes } : {}),
      ...(perSecond !== undefined ? { bytesPerDay: perSecond * 86_400 } : {}),
    });
  }
  const warnings = [...new Set(answers.flatMap((a) => (a.ok ? a.warnings : [])))];
  return { ok: true, claims, warnings, queries: queries.length };
}

function valuesByClaim(samples: readonly VectorSample[]): Map<string, number> {
  const values = new Map<string, number>();
  for (const { labels, value } of samples) {
    const { namespace, persistentvolumeclaim: claim } = labels;
    if (typeof namespace !== 'string' || typeof claim !== 'string') continue;
    const key = claimKey(namespace, claim);
    // The queries collapse a claim's series already (max by); another layer (a federation) may not have: keep the max.
    values.set(key, Math.max(value, values.get(key) ?? -Infinity));
  }
  return values;
}
