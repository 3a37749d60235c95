// A CSI driver's modification limit (issue 36 item 5): how many modifications of one volume its backend accepts within
// a rolling window, and none while one is under way. AWS EBS, since 15 January 2026 (the ModifyVolume API reference):
// "You can modify a volume up to four times within a rolling 24-hour period, as long as ... all previous modifications
// for that volume are complete"; before, one every six hours (still written `modificationCooldown: 6h`, one per 6h).
// Pure: whether a volume may be modified now, and if not, until when; which modification times are worth remembering.
import { parseDuration } from './duration.ts';

/** At most `count` modifications of a volume within any `perSeconds`; `perSeconds` 0: no limit. */
export interface ModificationLimit {
  count: number;
  perSeconds: number;
}

/** The limits the tool knows without configuration, by driver name. */
export const defaultModificationLimits: Readonly<Record<string, ModificationLimit>> = { 'ebs.csi.aws.com': { count: 4, perSeconds: 24 * 3_600 } };

/** The driver's limit: the target's setting (`drivers.<name>.modificationLimit` or `.modificationCooldown`), else the default; none when off. */
export function modificationLimitOf(driver: string | undefined, configured?: Readonly<Record<string, ModificationLimit>>): ModificationLimit | undefined {
  if (driver === undefined) return undefined;
  const limit = configured?.[driver] ?? defaultModificationLimits[driver];
  return limit === undefined || limit.perSeconds <= 0 || limit.count < 1 ? undefined : limit;
}

/** The old form, `modificationCooldown: 6h`: one modification per that time (0s: none); undefined when no duration. */
export function limitOfCooldown(text: string): ModificationLimit | undefined {
  const seconds = parseDuration(text);
  return seconds === undefined ? undefined : { count: 1, perSeconds: seconds };
}

/** What is known of a volume's modifications: when each was made (any order), and whether one is under way now. */
export interface ModificationHistory {
  modifiedAt: readonly Date[];
  /** A modification the backend took and has not completed (the claim's Resizing/ModifyingVolume...): since when, if said. */
  underWay?: { since?: Date };
}

export type ModificationWindow =
  | { within: false }
  /** The volume had its `limit.count` modifications within the window (`modifiedAt`, oldest first): the next is accepted at `until`. */
  | { within: true; reason: 'limit'; driver: string; limit: ModificationLimit; modifiedAt: Date[]; until: Date }
  /** A modification is under way: the next is accepted once it completes, a time nobody knows beforehand. */
  | { within: true; reason: 'under-way'; driver: string; limit: ModificationLimit; since?: Date };

/** Whether the driver refuses a modification of the volume at `now`, and until when. */
export function modificationWindow(
  driver: string | undefined, history: ModificationHistory, now: Date, configured?: Readonly<Record<string, ModificationLimit>>,
): ModificationWindow {
  const limit = modificationLimitOf(driver, configured);
  if (driver === undefined || limit === undefined) return { within: false };
  if (history.underWay) return { within: true, reason: 'under-way', driver, limit, ...(history.underWay.since ? { since: history.underWay.since } : {}) };
  const recent = withinWindow(history.modifiedAt, limit, now);
  if (recent.length < limit.count) return { within: false };
  // The next is accepted when fewer than `count` remain in the window: when the oldest of the newest `count` leaves it.
  const counted = recent.slice(-limit.count);
  const oldest = counted[0] ?? now;
  return { within: true, reason: 'limit', driver, limit, modifiedAt: counted, until: new Date(oldest.getTime() + limit.perSeconds * 1000) };
}

/** The times still within the window at `now`, oldest first (a time in the future is kept: a clock behind another). */
function withinWindow(times: readonly Date[], limit: ModificationLimit, now: Date): Date[] {
  const start = now.getTime() - limit.perSeconds * 1000;
  return times.filter((t) => t.getTime() > start).sort((a, b) => a.getTime() - b.getTime());
}

/**
 * The modification times worth remembering at `now`: those within the window, the newest `count` of them (older ones
 * can no longer hold a modification back), so the record stays as small as the limit.
 */
export function modificationsToRemember(times: readonly Date[], limit: ModificationLimit | undefined, now: Date): Date[] {
  if (limit === undefined) return [];
  return withinWindow(times, limit, now).slice(-limit.count);
}
