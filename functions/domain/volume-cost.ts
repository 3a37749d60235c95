// What a size change costs per month: the bytes it adds across a template's replicas times the user's price per
// GiB-month of its StorageClass (`prices` in the target's config; there is no built-in price list). Pure arithmetic.
import type { PriceConfig } from './config.ts';
import { expansionFailedForGood, type LivePvc, type PvcCondition } from './live-state.ts';
import { reportedQuantity } from './quantity.ts';

const bytesPerGiB = 2 ** 30;

export interface VolumeCost {
  storageClassName: string | undefined;
  /** Bytes the change adds, summed over the replicas' volumes. */
  growthBytes: bigint;
  currency: string;
  /** The configured price of the class; undefined when the class has none (the cost is then unknown). */
  pricePerGiBMonth: number | undefined;
  /** growth in GiB x price; undefined when the class has no price. */
  monthlyIncrease: number | undefined;
}

/** What the cost needs to know of a volume (a LivePvc has it all). */
export type VolumeSizes = Pick<LivePvc, 'request' | 'capacity' | 'allocated'> & {
  resizeStatus?: string | undefined;
  /** The claim's conditions: a node's refusal is read from its NodeResizeError (live-state.ts `refusedOnNode`). */
  conditions?: readonly PvcCondition[];
  /** Its expansion failed for good, when that is known without `resizeStatus` (a pass report's terminal PVC). */
  failed?: boolean;
};

/**
 * The size a volume is paid for once what is under way completes: its capacity (what is provisioned, what the cloud
 * bills), or the size an expansion is already working towards (allocatedResources, or a request the resizer has not
 * taken up yet). A size that failed for good (`*ResizeInfeasible`) is never provisioned, so it does not count: a
 * request lowered from an infeasible 100Gi to 50Gi grows a 20Gi volume by 30Gi. This is not the ResourceQuota's rule
 * (max(request, allocated), which keeps counting the failed size until the resizer lets it go, KEP-1790): the quota
 * guards what was asked, the cost what is provisioned.
 */
export function committedBytes(volume: VolumeSizes): bigint {
  const failed = volume.failed ?? expansionFailedForGood({ resizeStatus: volume.resizeStatus, conditions: volume.conditions ?? [] });
  const failedSize = volume.allocated ?? volume.request;
  const sizes = [volume.capacity?.bytes ?? 0n];
  if (!failed) sizes.push(volume.allocated?.bytes ?? 0n, volume.request?.bytes ?? 0n);
  // After a failure, a request for another size than the failed one is a new attempt the resizer takes up (KEP-1790).
  else if (volume.request && failedSize && volume.request.bytes !== failedSize.bytes) sizes.push(volume.request.bytes);
  return sizes.reduce((a, b) => (a > b ? a : b));
}

/** A volume as a pass report spells it (sizes as text, `failed` for good or not), for committedBytes and growthOfReplicas. */
export function reportedVolume(volume: { request: string | undefined; capacity: string | undefined; failed: boolean }): VolumeSizes {
  return { request: reportedQuantity(volume.request), capacity: reportedQuantity(volume.capacity), allocated: undefined, failed: volume.failed };
}

/**
 * Bytes added when every replica's volume grows to `to` bytes: from its committed size (above; volumes never shrink,
 * so one at or above `to` adds nothing). A replica with no PVC yet gets one from the template: it counts at the live
 * template's size.
 */
export function growthOfReplicas(
  to: bigint, liveTemplateBytes: bigint | undefined, replicas: number, pvcs: readonly VolumeSizes[],
): bigint {
  const grow = (from: bigint): bigint => (to > from ? to - from : 0n);
  let total = 0n;
  for (const pvc of pvcs) total += grow(committedBytes(pvc));
  const missing = Math.max(0, replicas - pvcs.length);
  return total + BigInt(missing) * grow(liveTemplateBytes ?? 0n);
}

/** The monthly cost of `growthBytes` on a class; undefined when the target configures no prices at all. */
export function costOfGrowth(growthBytes: bigint, storageClassName: string | undefined, prices: PriceConfig | undefined): VolumeCost | undefined {
  if (!prices) return undefined;
  const price = storageClassName === undefined ? undefined : prices.perGiBMonth[storageClassName];
  return {
    storageClassName, growthBytes, currency: prices.currency, pricePerGiBMonth: price,
    monthlyIncrease: price === undefined ? undefined : roundMoney((Number(growthBytes) / bytesPerGiB) * price),
  };
}

export interface CostTotal {
  currency: string;
  /** The sum of the priced costs. */
  monthlyIncrease: number;
  /** Classes of changes that have no price, so the sum leaves them out. */
  unpricedClasses: string[];
}

/** What a sum needs of a cost (a VolumeCost, or its form in a pass report). */
export type PricedChange = Pick<VolumeCost, 'currency' | 'monthlyIncrease' | 'storageClassName'>;

/** The sum of several costs (one currency: a target's); undefined when none is known to have a cost. */
export function totalCost(costs: ReadonlyArray<PricedChange | undefined>): CostTotal | undefined {
  const known = costs.filter((c): c is PricedChange => c !== undefined);
  const [first] = known;
  if (!first) return undefined;
  const unpriced = known.filter((c) => c.monthlyIncrease === undefined).map((c) => c.storageClassName ?? '(no class)');
  return {
    currency: first.currency,
    monthlyIncrease: roundMoney(known.reduce((sum, c) => sum + (c.monthlyIncrease ?? 0), 0)),
    unpricedClasses: [...new Set(unpriced)].sort(),
  };
}

/** Floating sums of prices such as 0.08 land beside the cent (100.00000000000001): kept to a millionth. */
function roundMoney(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}
