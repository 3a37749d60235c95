// Which GitHub deliveries this webhook instance queued lately, by `X-GitHub-Delivery` id. GitHub signs a delivery's
// body, not a time: a captured delivery verifies whenever it is sent again, and the queue's FIFO deduplication drops a
// copy for five minutes only. Passes are level-triggered, so a copy costs quota (a pass's reads, the App's rate
// limit), never a wrong write; it is counted, not refused, since GitHub's own "Redeliver" sends the same id. The
// memory is one warm instance's (others count their own): a count of repeats is a lower bound.

/** How long an id is remembered: longer than a warm instance usually lives. */
export const deliveryMemoryMs = 24 * 60 * 60_000;
/** At most this many ids (about 40 bytes each): the oldest are forgotten first. */
export const deliveryMemoryIds = 10_000;

export class DeliveryMemory {
  /** Id -> when it was queued; a Map iterates in insertion order, so the oldest come first. */
  private readonly queuedAt = new Map<string, number>();

  constructor(private readonly options: { windowMs?: number; maxIds?: number; now?: () => number } = {}) {}

  /** Remembers `id` as queued now; true when it was queued before within the window. */
  queuedBefore(id: string): boolean {
    const now = (this.options.now ?? Date.now)();
    const windowMs = this.options.windowMs ?? deliveryMemoryMs;
    for (const [oldest, at] of this.queuedAt) {
      if (now - at < windowMs) break;
      this.queuedAt.delete(oldest);
    }
    const before = this.queuedAt.has(id);
    // Re-inserted, so it is forgotten last.
    this.queuedAt.delete(id);
    this.queuedAt.set(id, now);
    const maxIds = this.options.maxIds ?? deliveryMemoryIds;
    for (const oldest of this.queuedAt.keys()) {
      if (this.queuedAt.size <= maxIds) break;
      this.queuedAt.delete(oldest);
    }
    return before;
  }
}
