// Which delivery ids the webhook counts as queued again: within the window, and within the bound on ids kept.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { DeliveryMemory } from '../../functions/app/delivery-memory.ts';

describe('DeliveryMemory', () => {
  it('tells an id queued before within the window, and forgets it after', () => {
    let now = 0;
    const memory = new DeliveryMemory({ windowMs: 1_000, now: () => now });
    assert.equal(memory.queuedBefore('a'), false);
    now = 999;
    assert.equal(memory.queuedBefore('a'), true);
    // Seen again at 999: remembered from then on.
    now = 1_500;
    assert.equal(memory.queuedBefore('a'), true);
    now = 2_499;
    assert.equal(memory.queuedBefore('b'), false);
    now = 2_500;
    assert.equal(memory.queuedBefore('a'), false, 'a window after it was last seen, it is new again');
  });

  it('keeps at most maxIds, forgetting the oldest first', () => {
    const memory = new DeliveryMemory({ maxIds: 2, now: () => 0 });
    for (const id of ['a', 'b', 'c']) assert.equal(memory.queuedBefore(id), false);
    assert.equal(memory.queuedBefore('c'), true);
    assert.equal(memory.queuedBefore('b'), true);
    assert.equal(memory.queuedBefore('a'), false, 'the oldest was forgotten to keep two');
  });
});
