// How big a growth is (pure): a step of the current size (a percentage, or a size) in whole Gi and never under 1Gi, and
// the size a replica needs: the fewest steps after which it is below the threshold (bytes and inodes) and no longer
// fills within `fullWithin` at its pace. A volume's file system grows with it (its overhead and inode tables are a
// share of it), so the kubelet's capacity after growing to N is its capacity now x N / the size now.
import type { GrowthStep } from '../domain/usage-config.ts';
import type { ReplicaUsage } from '../domain/volume-usage.ts';
import { parseQuantity } from '../domain/quantity.ts';

export const gibibyte = 1n << 30n;

export function roundUpToGi(bytes: bigint): bigint {
  return ((bytes + gibibyte - 1n) / gibibyte) * gibibyte;
}

export function roundDownToGi(bytes: bigint): bigint {
  return (bytes / gibibyte) * gibibyte;
}

/** One step in bytes: the percentage of `current` or the size, rounded up to whole Gi, at least 1Gi. */
export function stepBytes(current: bigint, step: GrowthStep): bigint {
  const raw = 'percent' in step ? (current * BigInt(Math.round(step.percent * 1000))) / 100_000n : parseQuantity(step.size).bytes;
  const rounded = roundUpToGi(raw);
  return rounded < gibibyte ? gibibyte : rounded;
}

export interface NeedPolicy {
  usedPercent: number;
  fullWithinSeconds: number | undefined;
}

/**
 * The growth factor (new size / size now) above which this replica is no longer a reason to grow: below the threshold in
 * bytes and inodes, and filling beyond `fullWithin`. At most 1 when it is no reason now.
 */
export function factorNeeded(replica: ReplicaUsage, policy: NeedPolicy): number {
  const threshold = policy.usedPercent / 100;
  const factors = [replica.usedBytes / (replica.capacityBytes * threshold)];
  if (replica.inodesUsed !== undefined && replica.inodes !== undefined && replica.inodes > 0) factors.push(replica.inodesUsed / (replica.inodes * threshold));
  if (policy.fullWithinSeconds !== undefined && replica.bytesPerDay !== undefined && replica.bytesPerDay > 0) {
    factors.push((replica.usedBytes + replica.bytesPerDay * (policy.fullWithinSeconds / 86_400)) / replica.capacityBytes);
  }
  return Math.max(...factors);
}

/**
 * The smallest size `current + k x step` (k >= 1) strictly above `current x factor`: one step at least, more when one
 * is not enough for the fullest replica.
 */
export function sizeForFactor(current: bigint, step: bigint, factor: number): bigint {
  const wanted = Number(current) * factor;
  const steps = Math.max(1, Math.floor((wanted - Number(current)) / Number(step)) + 1);
  return current + BigInt(steps) * step;
}

/** A replica's used share of its file system once the volume is `to` bytes (the file system grown in proportion). */
export function usedPercentAt(replica: ReplicaUsage, current: bigint, to: bigint): number {
  return (replica.usedBytes / (replica.capacityBytes * (Number(to) / Number(current)))) * 100;
}
