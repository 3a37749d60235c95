// The KEP-1790 recovery size: after a terminal expansion failure, a PVC's request may only go down to a value strictly
// above its capacity, and a PVC that already reached the failed size cannot go back below it. Pure.
import {
  compareQuantities, formatBytesLike, largestStepBelowOrEqual, nextStepAbove, parseQuantity, type Quantity,
} from '../../domain/quantity.ts';
import { sizeAtDriverMaximum } from '../../engine/volumes/at-driver-maximum.ts';
import { smallestStatedMaximum } from '../../engine/volumes/driver-maximum.ts';

export interface RecoveryPvc {
  name: string;
  capacity: Quantity | undefined;
  /** Failed terminally (`*ResizeInfeasible`, or the pre-1.31 `*ResizeFailed`). */
  terminal: boolean;
}

export interface RecoveryInput {
  failedSize: Quantity;
  pvcs: readonly RecoveryPvc[];
  /** What the driver said (conditions and VolumeResizeFailed events), verbatim. */
  driverMessages: readonly string[];
  /** The template's size in Git before the failed one, when known. */
  previousGitSize: Quantity | undefined;
}

export type RecoveryRule = 'driver-maximum' | 'previous-git-value' | 'smallest-step' | 'at-driver-maximum';

export type RecoveryDecision =
  | { kind: 'none-needed' }
  | { kind: 'impossible'; reason: string; waysOut: string[] }
  | { kind: 'propose'; size: string; bytes: bigint; rule: RecoveryRule; explanation: string };

const waysOut = [
  'raise the limit that made the expansion fail (the storage provider\'s maximum volume size, or its quota) and let the expansion be retried',
  'scale the StatefulSet down so that only replicas at one size remain, then set that size',
];

/** Bytes of the smallest maximum any driver message states (engine/volumes/driver-maximum.ts: `exceeds maximum allowed 53687091200`). */
export function statedMaximum(messages: readonly string[]): bigint | undefined {
  return smallestStatedMaximum(messages)?.bytes;
}

export function chooseRecoverySize(input: RecoveryInput): RecoveryDecision {
  const failed = input.pvcs.filter((p) => p.terminal);
  if (failed.length === 0) return { kind: 'none-needed' };
  const reached = input.pvcs.filter((p) => !p.terminal && p.capacity && compareQuantities(p.capacity, input.failedSize) >= 0);
  const like = input.failedSize;
  if (reached.length > 0) {
    return {
      kind: 'impossible',
      reason: `${reached.map((p) => p.name).join(', ')} already reached ${input.failedSize.text} while ${failed.map((p) => p.name).join(', ')} failed; `
        + 'a PVC cannot be lowered to or below its capacity, so no single size recovers every replica',
      waysOut,
    };
  }
  const floor = failed.reduce((max, p) => (p.capacity && p.capacity.bytes > max ? p.capacity.bytes : max), 0n);
  // Volumes at the driver's maximum: no size can succeed, and Git goes back to the size they have.
  const atMaximum = sizeAtDriverMaximum(failed.map((p) => ({ capacity: p.capacity, texts: input.driverMessages })), input.failedSize);
  if (atMaximum) return { kind: 'propose', ...atMaximum, rule: 'at-driver-maximum' };
  const maximum = statedMaximum(input.driverMessages);
  const fits = (bytes: bigint): boolean => bytes > floor && bytes < input.failedSize.bytes && (maximum === undefined || bytes <= maximum);
  const floorText = formatBytesLike(floor, like);

  const units = unitsFromCoarseToFine(like);
  if (maximum !== undefined) {
    // The template's own unit first (50Gi under a 53687091200 maximum); a finer one when no whole step of it fits
    // (1200Gi between a 1Ti capacity and a failed 1.5Ti).
    for (const unit of units) {
      const bytes = largestStepBelowOrEqual(maximum, unit);
      if (!fits(bytes)) continue;
      const size = formatBytesLike(bytes, unit);
      return {
        kind: 'propose', size, bytes, rule: 'driver-maximum',
        explanation: `the driver states a maximum of ${formatBytesLike(maximum, like)}; ${size} is the largest size ${unitWords(unit, like)} under it, and it is above the current capacity ${floorText}`,
      };
    }
  }
  if (input.previousGitSize && fits(input.previousGitSize.bytes)) {
    return {
      kind: 'propose', size: input.previousGitSize.text, bytes: input.previousGitSize.bytes, rule: 'previous-git-value',
      explanation: `${input.previousGitSize.text} was the size in Git before ${input.failedSize.text}, and it is above the current capacity ${floorText}`,
    };
  }
  for (const unit of units) {
    const step = nextStepAbove(floor, unit);
    if (!fits(step)) continue;
    const size = formatBytesLike(step, unit);
    return {
      kind: 'propose', size, bytes: step, rule: 'smallest-step',
      explanation: `${size} is the smallest size ${unitWords(unit, like)} above the current capacity ${floorText}`,
    };
  }
  return {
    kind: 'impossible',
    reason: `no whole number of bytes lies strictly between the capacity ${floorText} and the failed size ${input.failedSize.text}`,
    waysOut,
  };
}

/**
 * The template's unit, then each finer unit of the same family down to Ki / k (Ti -> Gi -> Mi -> Ki; T -> G -> M -> k;
 * e12 -> e9 -> e6 -> e3), then plain bytes: sizes are proposed in the coarsest unit that has a step between the
 * capacity and the failed size.
 */
export function unitsFromCoarseToFine(like: Quantity): Quantity[] {
  const family = like.format === 'BinarySI' ? ['Ei', 'Pi', 'Ti', 'Gi', 'Mi', 'Ki']
    : like.format === 'DecimalExponent' ? ['e18', 'e15', 'e12', 'e9', 'e6', 'e3'] : ['E', 'P', 'T', 'G', 'M', 'k'];
  const own = like.format === 'DecimalExponent' ? like.suffix.toLowerCase() : like.suffix;
  const start = family.indexOf(own);
  const finer = start === -1 ? [] : family.slice(start + 1);
  return [like, ...finer.map((suffix) => parseQuantity(`1${suffix}`)), parseQuantity('1')];
}

function unitWords(unit: Quantity, like: Quantity): string {
  return unit.suffix === like.suffix ? "in the template's unit" : unit.suffix === '' ? 'in bytes' : `in ${unit.suffix} (no whole ${like.suffix || 'unit'} fits)`;
}
