// The maximum a driver stated, remembered. A claim's error condition goes when the failure is resolved (a recovery's
// lower request drops it, as recorded in ../shared/conformance/csi-v1.34.9/b/) and Events expire within an hour, but
// the driver's maximum is still true the next day: a person's next change above it would fail the same way. So a
// pass keeps what the driver said on each template's status annotation (template-status.ts), where the plan of a
// pull request reads it (plan-driver-maximum.ts): which driver, the bytes, its words, when, and on which claim. Pure.
import type { LivePvc } from '../../domain/live-state.ts';
import { statedMaximumIn } from './driver-maximum.ts';

export interface RememberedMaximum {
  /** The CSI driver (the StorageClass's provisioner) that said it. */
  driver: string;
  /** Its maximum in bytes, as a decimal string (JSON has no BigInt). */
  bytes: string;
  /** The whole text it said it in (cut at `maxWordsLength`). */
  words: string;
  /** When: the condition's time (the external-resizer dates it by the attempt). */
  saidAt: string;
  /** `namespace/name` of the claim it was said of. */
  claim: string;
}

/**
 * How long a statement is remembered once no claim says it any more: long enough for a failure, its recovery and the
 * next change a person tries; short enough that a maximum raised since is not held against a change for long. A
 * volume of the driver found larger than the maximum forgets it at once (it was raised).
 */
export const rememberedForMs = 7 * 24 * 60 * 60 * 1000;

/** A statement still said is written again only when it is this much newer: a retry every 5 minutes writes nothing. */
const refreshAfterMs = 24 * 60 * 60 * 1000;

/** An annotation has room for other things: a driver's sentence is kept whole up to this length. */
const maxWordsLength = 1000;

const errorConditions = new Set(['ControllerResizeError', 'NodeResizeError']);

/** What `driver` says of its maximum on these claims now (their error conditions), newest first. */
export function statementsOn(pvcs: readonly LivePvc[], driver: string): RememberedMaximum[] {
  const found: RememberedMaximum[] = [];
  for (const pvc of pvcs) {
    for (const condition of pvc.conditions) {
      if (!errorConditions.has(condition.type) || condition.status !== 'True' || !condition.lastTransitionTime) continue;
      const stated = statedMaximumIn(condition.message ?? '');
      if (!stated) continue;
      found.push({
        driver, bytes: stated.bytes.toString(), words: stated.words.slice(0, maxWordsLength), saidAt: condition.lastTransitionTime,
        claim: `${pvc.namespace}/${pvc.name}`,
      });
    }
  }
  return found.sort((a, b) => Date.parse(b.saidAt) - Date.parse(a.saidAt));
}

/** Whether a claim of the driver has a volume larger than the statement's maximum: it was raised since. */
export function contradicted(statement: RememberedMaximum, pvcs: readonly LivePvc[]): boolean {
  const bytes = BigInt(statement.bytes);
  return pvcs.some((p) => p.capacity !== undefined && p.capacity.bytes > bytes);
}

/** Whether a remembered statement is older than `rememberedForMs` at `now`. */
export function forgotten(statement: RememberedMaximum, now: Date): boolean {
  const said = Date.parse(statement.saidAt);
  return Number.isNaN(said) || now.getTime() - said > rememberedForMs;
}

/** When a remembered statement is forgotten, for the texts that quote it. */
export function rememberedUntil(statement: RememberedMaximum): string | undefined {
  const said = Date.parse(statement.saidAt);
  return Number.isNaN(said) ? undefined : new Date(said + rememberedForMs).toISOString();
}

/**
 * What a template's status keeps: the driver's latest statement on the template's claims, else the one remembered
 * (for the same driver) until a volume of that driver is larger than it or it is older than `rememberedForMs`.
 * `driver` undefined (no class, no provisioner) keeps nothing. `now` undefined (a read-only pass) forgets nothing.
 */
export function rememberMaximum(
  earlier: RememberedMaximum | undefined, driver: string | undefined, pvcs: readonly LivePvc[], now: Date | undefined,
): RememberedMaximum | undefined {
  if (driver === undefined) return undefined;
  const kept = earlier?.driver === driver ? earlier : undefined;
  const [current] = statementsOn(pvcs, driver);
  if (current) {
    const sameAsKept = kept !== undefined && kept.bytes === current.bytes && Date.parse(current.saidAt) - Date.parse(kept.saidAt) < refreshAfterMs;
    return sameAsKept ? kept : current;
  }
  if (!kept || contradicted(kept, pvcs) || (now !== undefined && forgotten(kept, now))) return undefined;
  return kept;
}
