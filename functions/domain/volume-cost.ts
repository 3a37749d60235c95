// What a size change costs per month: the bytes it adds across a template's replicas times the user's price per
// GiB-month of its StorageClass (`prices` in the target's config; there is no built-in price list). Pure arithmetic.
import type { PriceConfig } from './config.ts';
import type { LivePvc } from './live-state.ts';

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

/**
 * Bytes added when every replica's volume grows to `to` bytes. A volume counts at the largest of its request, its
 * capacity and what the resizer allocated (what is or is being provisioned; volumes never shrink, so one at or above
 * `to` adds nothing). A replica with no PVC yet gets one from the template: it counts at the live template's size.
 */
export function growthOfReplicas(
  to: bigint, liveTemplateBytes: bigint | undefined, replicas: number,
  pvcs: ReadonlyArray<Pick<LivePvc, 'request' | 'capacity' | 'allocated'>>,
): bigint {
  const grow = (from: bigint): bigint => (to > from ? to - from : 0n);
  let total = 0n;
  for (const pvc of pvcs) {
    const sizes = [pvc.request?.bytes ?? 0n, pvc.capacity?.bytes ?? 0n, pvc.allocated?.bytes ?? 0n];
    total += grow(sizes.reduce((a, b) => (a > b ? a : b)));
  }
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

/** `+12.80 USD`: signed, two decimals (more for amounts under a cent, so a small change does not read as free). */
export function formatMoney(amount: number, currency: string): string {
  const digits = amount !== 0 && Math.abs(amount) < 0.01 ? 4 : 2;
  return `${amount < 0 ? '-' : '+'}${Math.abs(amount).toFixed(digits)} ${currency}`;
}

/** Floating sums of prices such as 0.08 land beside the cent (100.00000000000001): kept to a millionth. */
function roundMoney(amount: number): number {
  return Math.round(amount * 1e6) / 1e6;
}
