// Size guardrails (issue 22): an expansion cannot be undone, so a typo (`10Ti` for `10Gi`) is paid for every month.
// Per template change: a largest size, a largest growth factor over the live size (default 5: `50Gi` from `10Gi`
// passes, `50Gi` from `5Gi`, an extra zero, does not) and a largest monthly cost increase; set on the target,
// overridden per size source.
// Pure: the reasons a change is blocked, each naming the value, the limit and where to raise it. A reason is always
// shown under its StatefulSet, template and file:line (the comment's bullet, the annotation on the line, the CLI's
// template line), so it names none of them again.
// Every limit fails closed: what it cannot measure (no current size to grow from, no price to count) blocks the
// change, naming what to set, rather than letting it through unmeasured.
import type { GuardrailsConfig, SizeSourceConfig } from '../../domain/config.ts';
import { formatBytesLike, parseQuantity, type Quantity } from '../../domain/quantity.ts';
import { factor, formatMoney, monthly, showSize, unitPrice } from '../../domain/spelling.ts';
import type { VolumeCost } from '../../domain/volume-cost.ts';

export type GuardrailCode = 'size-limit' | 'growth-limit' | 'growth-unknown' | 'cost-limit' | 'cost-unknown';

/**
 * The growth allowed in one change unless set. Below 10, so that the classic typo, an extra zero (`5Gi` -> `50Gi`,
 * exactly 10x), is caught; 5 rather than 9 so that a digit slipped or doubled (`10Gi` -> `90Gi`, `20Gi` -> `200Gi`)
 * is too, while the growths people ask for (double, triple, `20Gi` -> `100Gi`) pass. More is set on purpose.
 */
export const defaultMaxGrowthFactor = 5;

/** One template's change. Its StatefulSet, template and file:line are not here: a reason is shown under them. */
export interface GuardedChange {
  /** The size it grows from: the largest of the live template's and its PVCs'. */
  from: Quantity | undefined;
  to: Quantity;
  cost: VolumeCost | undefined;
  /** The size source that maps this template, if one does: its guardrails override the target's. */
  sizeSource: SizeSourceConfig | undefined;
}

export interface GuardrailReason {
  code: GuardrailCode;
  message: string;
}

type LimitKey = keyof GuardrailsConfig;

export interface Limit<T> {
  value: T;
  setBy: 'size source' | 'target' | 'default';
}

/** A limit as it applies to a change: its size source's, else the target's; undefined when neither sets it. */
export function limitOf<K extends LimitKey>(key: K, change: GuardedChange, target: GuardrailsConfig | undefined): Limit<NonNullable<GuardrailsConfig[K]>> | undefined {
  const fromSource = change.sizeSource?.guardrails?.[key];
  if (fromSource !== undefined && fromSource !== null) return { value: fromSource, setBy: 'size source' };
  const fromTarget = target?.[key];
  if (fromTarget !== undefined && fromTarget !== null) return { value: fromTarget, setBy: 'target' };
  return undefined;
}

/** Where a limit is set, in parentheses: `(guardrails.maxSize, set on the target)`. */
function setting(key: LimitKey, limit: Limit<unknown>): string {
  const name = `guardrails.${key}`;
  return limit.setBy === 'default' ? `(${name}, the default)` : `(${name}, set on the ${limit.setBy})`;
}

/** How to raise a limit: `raise guardrails.maxSize in the target's configuration`. */
function raise(key: LimitKey, limit: Limit<unknown>, change: GuardedChange): string {
  const name = `guardrails.${key}`;
  return limit.setBy === 'size source' ? `raise ${name} on the template's size source`
    : change.sizeSource ? `raise ${name} on the target, or on the template's size source for this template alone`
      : `raise ${name} in the target's configuration`;
}

/** The caution every limit shares, said once per change, before the first way out. */
const caution = 'an expansion cannot be undone, so check the value first; if it is meant, ';

/**
 * One reason, said for the subject it has: the first names the value (`7Ei`) and gives the caution; the others go on
 * with `it`, so several reasons never repeat the value or the sentence.
 */
interface ReasonWords {
  code: GuardrailCode;
  /** Follows the subject: `is above the largest size allowed, 4Ti (...)`; `: no prices are configured, ...` with `colon`. */
  fact: string;
  colon?: boolean;
  /** How to get past it, after the caution: `raise guardrails.maxSize in the target's configuration`. */
  wayOut: string;
  /** `own`: the way out carries its own caution (an unknown size); `none`: it raises no limit (a price to add). */
  caution?: 'shared' | 'own' | 'none';
}

function sentences(change: GuardedChange, words: readonly ReasonWords[]): GuardrailReason[] {
  let cautionSaid = false;
  return words.map((reason, index) => {
    const subject = index === 0 ? at(change) : 'it';
    const lead = reason.colon ? (index === 0 ? `${subject}: ${reason.fact}` : reason.fact) : `${subject} ${reason.fact}`;
    const kind = reason.caution ?? 'shared';
    const warn = !cautionSaid && kind === 'shared';
    cautionSaid ||= warn || kind === 'own';
    return { code: reason.code, message: `${lead}; ${warn ? caution : ''}${reason.wayOut}` };
  });
}

/** The subject of the first reason: the value, whose StatefulSet, template and file:line the reason is shown under. */
function at(change: GuardedChange): string {
  return change.to.text;
}

/** Why this change may not go ahead; empty when every limit holds. */
export function guardrailReasons(change: GuardedChange, target: GuardrailsConfig | undefined): GuardrailReason[] {
  const words: ReasonWords[] = [];
  // A lower request (recovering from a failed expansion, KEP-1790) asks for less than a size that was let through:
  // neither its size nor its cost is held back. It still costs what its volumes grow from their capacity (shown).
  const grows = change.from === undefined || change.to.bytes > change.from.bytes;
  const maxSize = limitOf('maxSize', change, target);
  if (maxSize) {
    const limit = parseQuantity(maxSize.value); // checked when the config was read
    if (grows && change.to.bytes > limit.bytes) {
      words.push({ code: 'size-limit', fact: `is above the largest size allowed, ${limit.text} ${setting('maxSize', maxSize)}`, wayOut: raise('maxSize', maxSize, change) });
    }
  }
  const growth = limitOf('maxGrowthFactor', change, target) ?? { value: defaultMaxGrowthFactor, setBy: 'default' as const };
  const from = change.from;
  if (from === undefined || from.bytes === 0n) {
    // No size to grow from (a live template with no readable size and no PVC yet): the factor cannot be measured.
    // An explicit maxSize bounds the change instead (checked above); without one, nothing would, so it is blocked.
    if (!maxSize) words.push(growthUnknown(change, growth));
  } else if (change.to.bytes * 1_000_000n > BigInt(Math.round(growth.value * 1_000_000)) * from.bytes) {
    // Exact for factors with up to six decimals: to > factor x from, in integers.
    const times = factor(Number(change.to.bytes) / Number(from.bytes));
    words.push({
      code: 'growth-limit',
      fact: `is ${times} the current size ${showSize(formatBytesLike(from.bytes, change.to))}, more than the ${growth.value}x allowed in one change ${setting('maxGrowthFactor', growth)}`,
      wayOut: raise('maxGrowthFactor', growth, change),
    });
  }
  const maxCost = limitOf('maxMonthlyIncrease', change, target);
  const cost = change.cost;
  if (maxCost && cost === undefined && grows) {
    // The configuration refuses a cost limit without prices; a caller that passes none still gets no unmeasured change.
    words.push({
      code: 'cost-unknown', colon: true, caution: 'none',
      fact: `no prices are configured, so the change cannot be held against the largest monthly increase allowed, ${maxCost.value} ${setting('maxMonthlyIncrease', maxCost)}`,
      wayOut: 'add prices.perGiBMonth for its StorageClass',
    });
  } else if (maxCost && cost && cost.growthBytes > 0n && grows) {
    if (cost.monthlyIncrease === undefined || cost.pricePerGiBMonth === undefined) {
      words.push({
        code: 'cost-unknown', colon: true, caution: 'none',
        fact: `StorageClass ${cost.storageClassName ?? '(none)'} has no price in prices.perGiBMonth, so the change cannot be held `
          + `against the largest monthly increase allowed, ${formatMoney(maxCost.value, cost.currency)} ${setting('maxMonthlyIncrease', maxCost)}`,
        wayOut: 'add the class\'s price',
      });
    } else if (cost.monthlyIncrease > maxCost.value) {
      words.push({
        code: 'cost-limit',
        fact: `adds ${monthly(cost.monthlyIncrease, cost.currency)} (${showSize(formatBytesLike(cost.growthBytes, change.to))} more on `
          + `${cost.storageClassName ?? '?'} at ${unitPrice(cost.pricePerGiBMonth, cost.currency)}), more than the ${formatMoney(maxCost.value, cost.currency)} allowed `
          + setting('maxMonthlyIncrease', maxCost),
        wayOut: raise('maxMonthlyIncrease', maxCost, change),
      });
    }
  }
  return sentences(change, words);
}

/** Why a change with no current size is blocked, and what bounds it instead: a maxSize on the target or its size source. */
function growthUnknown(change: GuardedChange, growth: Limit<number>): ReasonWords {
  const set = change.sizeSource
    ? 'set guardrails.maxSize on the target, or on the template\'s size source for this template alone'
    : 'set guardrails.maxSize in the target\'s configuration';
  return {
    code: 'growth-unknown', colon: true, caution: 'own',
    fact: `the template's current size is unknown (its live template has no readable storage request `
      + `and none of its PVCs exists), so the growth cannot be held against the ${growth.value}x allowed in one change ${setting('maxGrowthFactor', growth)}`,
    wayOut: `${set} to bound the new size (an expansion cannot be undone), and the change is held against it instead`,
  };
}
