// The loop every per-item GitHub step runs (a pull request's check, a StatefulSet's progress, a template's proposal):
// start an item only with time left, and let one item's failure cost only that item, but a rate limit the whole step,
// which waits for the next pass (GitHostError.rateLimited).
import { isRateLimited } from '../engine/ports.ts';

export interface ItemLoop<T, R> {
  /** Whether there is time for one more item; an item without is handed to `onDeferred`, never started. */
  hasTime?: (() => boolean) | undefined;
  onDeferred: (item: T) => void;
  /** What a failed item leaves: a result of its own, or undefined when it is recorded elsewhere. */
  onFailed: (item: T, message: string) => R | undefined;
}

/** `work` for each item in order; the results of those that gave one, failed ones included when `onFailed` gives one. */
export async function forEachItem<T, R>(items: Iterable<T>, loop: ItemLoop<T, R>, work: (item: T) => Promise<R | undefined>): Promise<R[]> {
  const results: R[] = [];
  for (const item of items) {
    if (loop.hasTime && !loop.hasTime()) {
      loop.onDeferred(item);
      continue;
    }
    let result: R | undefined;
    try {
      result = await work(item);
    } catch (error) {
      if (isRateLimited(error)) throw error;
      result = loop.onFailed(item, error instanceof Error ? error.message : String(error));
    }
    if (result !== undefined) results.push(result);
  }
  return results;
}
