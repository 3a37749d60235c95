// The per-item loop of the GitHub steps: an item without time left is deferred and never started, one item's failure
// is recorded and the others go on, a rate limit (the port's GitHostError) stops the whole step.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GitHostError } from '../../functions/engine/ports.ts';
import { forEachItem } from '../../functions/feedback/for-each-item.ts';

describe('forEachItem', () => {
  it('records a failed item and goes on with the next', async () => {
    const failed: string[] = [];
    const results = await forEachItem([1, 2, 3], {
      onDeferred: () => assert.fail('nothing is deferred with no budget'),
      onFailed: (item, message) => { failed.push(`${item}: ${message}`); return undefined; },
    }, async (item) => {
      if (item === 2) throw new GitHostError('locked', 403, false);
      return item * 10;
    });
    assert.deepEqual(results, [10, 30]);
    assert.deepEqual(failed, ['2: locked']);
  });

  it('keeps what onFailed gives for a failed item among the results', async () => {
    const results = await forEachItem(['a', 'b'], { onDeferred: () => undefined, onFailed: (item, message) => `${item} failed: ${message}` },
      async (item) => { if (item === 'a') throw new Error('no'); return `${item} done`; });
    assert.deepEqual(results, ['a failed: no', 'b done']);
  });

  it('defers the items it has no time for, without starting them', async () => {
    let budget = 1;
    const deferred: number[] = [];
    const started: number[] = [];
    await forEachItem([1, 2, 3], { hasTime: () => budget-- > 0, onDeferred: (item) => deferred.push(item), onFailed: () => undefined },
      async (item) => { started.push(item); return item; });
    assert.deepEqual([started, deferred], [[1], [2, 3]]);
  });

  it('stops at a rate limit, which the whole step waits out', async () => {
    const started: number[] = [];
    await assert.rejects(forEachItem([1, 2], { onDeferred: () => undefined, onFailed: () => undefined }, async (item) => {
      started.push(item);
      throw new GitHostError('GitHub rate limit (429): slow down', 429, true);
    }), (error) => error instanceof GitHostError && error.rateLimited);
    assert.deepEqual(started, [1]);
  });
});
