// A CSI driver's modification cooldown (issue 36 item 5): AWS EBS accepts one modification per volume every six hours,
// so a resize or class change of a volume modified within that window is refused by the backend until the window
// ends. Pure: whether a volume is within its driver's window, and until when. Where the last modification's time is
// read from, and what plan and feedback say of it, come with the change that uses this.
import { defaultModificationCooldowns } from './usage-config.ts';
import { parseDuration } from './duration.ts';

/** Seconds of the driver's cooldown: the target's setting (`drivers.<name>.modificationCooldown`), else the default, else none. */
export function modificationCooldownOf(driver: string | undefined, configured?: Readonly<Record<string, number>>): number {
  if (driver === undefined) return 0;
  const set = configured?.[driver];
  if (set !== undefined) return set;
  const fallback = defaultModificationCooldowns[driver];
  return fallback === undefined ? 0 : parseDuration(fallback) ?? 0;
}

export type ModificationWindow =
  | { within: false }
  | { within: true; driver: string; cooldownSeconds: number; until: Date };

/** Whether a volume last modified at `modifiedAt` is still within its driver's window at `now`, and until when. */
export function modificationWindow(
  driver: string | undefined, modifiedAt: Date | undefined, now: Date, configured?: Readonly<Record<string, number>>,
): ModificationWindow {
  const cooldownSeconds = modificationCooldownOf(driver, configured);
  if (driver === undefined || modifiedAt === undefined || cooldownSeconds === 0) return { within: false };
  const until = new Date(modifiedAt.getTime() + cooldownSeconds * 1000);
  return until.getTime() > now.getTime() ? { within: true, driver, cooldownSeconds, until } : { within: false };
}
