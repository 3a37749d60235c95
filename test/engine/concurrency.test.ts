import assert from 'node:assert/strict';
import { test } from 'node:test';
import { mapWithConcurrency } from '../../functions/engine/concurrency.ts';

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve = (): void => undefined;
  const promise = new Promise<void>((r) => { resolve = r; });
  return { promise, resolve };
}

test('results keep the order of the items and no more than `limit` run at once', async () => {
  let running = 0;
  let most = 0;
  const results = await mapWithConcurrency([5, 1, 4, 2, 3], 2, async (n) => {
    running += 1;
    most = Math.max(most, running);
    await new Promise((r) => setTimeout(r, n));
    running -= 1;
    return n * 10;
  });
  assert.deepEqual(results, [50, 10, 40, 20, 30]);
  assert.equal(most, 2);
});

test('a failure starts no new work and is thrown only after the work already started has settled', async () => {
  const started: number[] = [];
  const slow = deferred();
  let slowFinished = false;
  const run = mapWithConcurrency([0, 1, 2, 3, 4], 2, async (n) => {
    started.push(n);
    if (n === 0) {
      await slow.promise;
      slowFinished = true;
      return n;
    }
    throw new Error(`item ${n} failed`);
  });
  let settled = false;
  const outcome = run.then(() => 'resolved', (error: unknown) => (error instanceof Error ? error.message : 'other'));
  void outcome.then(() => { settled = true; });
  await new Promise((r) => setTimeout(r, 5));
  assert.equal(settled, false, 'still waiting for item 0');
  slow.resolve();
  assert.equal(await outcome, 'item 1 failed');
  assert.equal(slowFinished, true);
  assert.deepEqual(started, [0, 1]);
});
