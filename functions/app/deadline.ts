// One time budget per invocation: how long a single API request may take, and whether there is time for a step.
export const maxRequestTimeoutMs = 30_000;
/** Kept back at the end of an invocation to log, publish metrics and return. */
export const closingReserveMs = 5_000;
/** A step (recovery pull requests, feedback) is started only with at least this much time left. */
export const minimumStepMs = 20_000;

export type RemainingMs = () => number;

/** A request may take up to 30 s, never past the invocation's end (less the closing reserve), and at least 1 s. */
export function requestTimeoutMs(remainingMs: RemainingMs | undefined): number {
  if (!remainingMs) return maxRequestTimeoutMs;
  return Math.max(1_000, Math.min(maxRequestTimeoutMs, remainingMs() - closingReserveMs));
}

/** Whether waiting `waitMs` (a rate limit's retry-after) still leaves time to finish. */
export function canWait(remainingMs: RemainingMs | undefined, waitMs: number): boolean {
  return remainingMs === undefined || waitMs + closingReserveMs + maxRequestTimeoutMs <= remainingMs();
}

export function hasTimeFor(remainingMs: RemainingMs | undefined, stepMs = minimumStepMs): boolean {
  return remainingMs === undefined || remainingMs() >= stepMs + closingReserveMs;
}
