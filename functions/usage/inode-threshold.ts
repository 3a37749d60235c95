// How full a volume's inodes must be for the pass to read them (pure): the lowest growth threshold in play, the
// target's `growth.usedPercent` and every set's `growth-used-percent` annotation, known from Git before the cluster is
// read. Below it a replica's inodes are the cause of nothing (growth, near full: they compare against a threshold at
// least this high), so Prometheus is asked only for the claims at or above it (volume-stats-queries.ts).
import type { DesiredStatefulSet } from '../domain/desired-state.ts';
import { defaultUsedPercent, type GrowthPolicy } from '../domain/usage-config.ts';
import { setPolicy } from './set-policy.ts';

/**
 * The lowest threshold, or undefined (every claim's inodes) when sets sized by size sources take their annotations
 * from the live objects, which the read starts before. Without growth configured: the threshold growth would default to.
 */
export function inodeThreshold(growth: GrowthPolicy | undefined, sets: { statefulSets: readonly Pick<DesiredStatefulSet, 'toolAnnotations'>[]; liveAnnotated: boolean }): number | undefined {
  if (!growth) return defaultUsedPercent;
  if (sets.liveAnnotated) return undefined;
  let lowest = growth.usedPercent;
  for (const sts of sets.statefulSets) {
    if (!sts.toolAnnotations || sts.toolAnnotations.length === 0) continue;
    const policy = setPolicy(growth, sts.toolAnnotations);
    // A set with growth off or in error is held to the target's threshold (size-proposals.ts counts it near full so).
    if (policy.kind === 'on' && policy.usedPercent.value < lowest) lowest = policy.usedPercent.value;
  }
  return lowest;
}
