// A pass's read of its volumes' usage: the five queries of volume-stats-queries.ts sent at once, their answers joined
// per claim. Any query that fails fails the read (typed: the pass then skips growth and says why); a claim without used
// and capacity series is simply not in the result (its pod is not running, or Prometheus has not scraped it). A claim
// whose inodes are below `inodesFromPercent` full has no inode reading (not asked for: it is the cause of nothing).
import type { ClaimUsage, UsageReadFailure } from '../domain/volume-usage.ts';
import { readClaimVector, type ClaimValues, type ClaimVectorAnswer } from './claim-vector.ts';
import { postQuery, type PrometheusEndpoint } from './prometheus-api.ts';
import { volumeStatsQueries, type VolumeStatsQuery } from './volume-stats-queries.ts';

export type UsageReading =
  | { ok: true; claims: Map<string, ClaimUsage>; warnings: string[]; queries: number }
  | { ok: false; failure: UsageReadFailure; queries: number };

/** `namespace/claim`, the key of a claim's usage. */
export function claimKey(namespace: string, claim: string): string {
  return `${namespace}/${claim}`;
}

export async function readVolumeUsage(endpoint: PrometheusEndpoint, namespaces: readonly string[], at: Date, timeoutMs: number, inodesFromPercent: number | undefined): Promise<UsageReading> {
  const queries = volumeStatsQueries(namespaces, inodesFromPercent);
  const answers = await Promise.all(queries.map((q) => queryClaims(endpoint, q.promql, at, timeoutMs)));
  const failed = answers.find((a) => !a.ok);
  if (failed && !failed.ok) return { ok: false, failure: failed.failure, queries: queries.length };
  // One index of the claims, filled family by family: a slot per query's value (the max of a claim's samples).
  const index: ClaimIndex = { slots: new Map(), order: [] };
  queries.forEach((q, at) => {
    const answer = answers[at];
    if (answer?.ok) collect(answer.samples, at, queries.length, index);
  });
  const slotOf = (family: VolumeStatsQuery['reads']): number => queries.findIndex((q) => q.reads === family);
  const [usedAt, capacityAt, inodesUsedAt, inodesAt, perSecondAt] = [slotOf('usedBytes'), slotOf('capacityBytes'), slotOf('inodesUsed'), slotOf('inodes'), slotOf('bytesPerSecond')];
  const claims = new Map<string, ClaimUsage>();
  for (const { namespace, claim, values } of index.order) {
    const usedBytes = values[usedAt];
    const capacityBytes = values[capacityAt];
    if (usedBytes === undefined || capacityBytes === undefined || !(usedBytes > -Infinity) || !(capacityBytes > 0)) continue;
    const usage: ClaimUsage = { namespace, claim, usedBytes, capacityBytes };
    const inodesUsed = values[inodesUsedAt] ?? -Infinity;
    const inodes = values[inodesAt] ?? -Infinity;
    if (inodesUsed > -Infinity && inodes > 0) {
      usage.inodesUsed = inodesUsed;
      usage.inodes = inodes;
    }
    const perSecond = values[perSecondAt] ?? -Infinity;
    if (perSecond > -Infinity) usage.bytesPerDay = perSecond * 86_400;
    claims.set(claimKey(namespace, claim), usage);
  }
  const warnings = [...new Set(answers.flatMap((a) => (a.ok ? a.warnings : [])))];
  return { ok: true, claims, warnings, queries: queries.length };
}

/** One query's answer, read for its claims alone (claim-vector.ts). */
async function queryClaims(endpoint: PrometheusEndpoint, promql: string, at: Date, timeoutMs: number): Promise<ClaimVectorAnswer> {
  const exchange = await postQuery(endpoint, promql, at, timeoutMs);
  return exchange.ok ? readClaimVector(exchange.status, exchange.contentType, exchange.text, exchange.sent) : exchange;
}

/**
 * The claims by namespace then claim (the label strings as read: no key built per sample), and in the order first
 * seen: Prometheus lists each family's series of the same claims in the same order (its recorded answers do), so a
 * claim at the place it had in the first answer is found by comparing two strings, not by two lookups of strings
 * never hashed; a claim elsewhere is looked up.
 */
interface ClaimIndex {
  slots: Map<string, Map<string, number[]>>;
  order: Array<{ namespace: string; claim: string; values: number[] }>;
}

/** Each sample's value into its claim's slot `slot` (a claim first seen gets `width` empty slots, -Infinity). */
function collect(samples: ClaimValues, slot: number, width: number, index: ClaimIndex): void {
  const { namespaces, claims, values: sampled } = samples;
  for (let i = 0; i < sampled.length; i++) {
    const namespace = namespaces[i] as string;
    const claim = claims[i] as string;
    const value = sampled[i] as number;
    const placed = index.order[i];
    let values = placed !== undefined && placed.claim === claim && placed.namespace === namespace ? placed.values : undefined;
    if (!values) {
      let byClaim = index.slots.get(namespace);
      if (!byClaim) index.slots.set(namespace, byClaim = new Map<string, number[]>());
      values = byClaim.get(claim);
      if (!values) {
        byClaim.set(claim, values = new Array<number>(width).fill(-Infinity));
        index.order.push({ namespace, claim, values });
      }
    }
    // The queries collapse a claim's series already (max by); another layer (a federation) may not have: keep the max.
    if (value > (values[slot] ?? -Infinity)) values[slot] = value;
  }
}
