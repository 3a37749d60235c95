// The blob cache is bounded in bytes: the least recently used blobs leave first, and what is read again stays.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { BlobCache } from '../../functions/adapters/github/blob-cache.ts';

describe('BlobCache', () => {
  it('drops the least recently used blobs to stay within its bytes, a read counting as a use', () => {
    const cache = new BlobCache(10);
    cache.set('a', 'aaaa', 4);
    cache.set('b', 'bbbb', 4);
    assert.equal(cache.get('a'), 'aaaa'); // a is now the most recent
    cache.set('c', 'cccc', 4);
    assert.deepEqual([cache.get('a'), cache.get('b'), cache.get('c')], ['aaaa', undefined, 'cccc']);
    assert.equal(cache.bytes, 8);
  });

  it('keeps nothing larger than its bound, and counts a blob set twice once', () => {
    const cache = new BlobCache(10);
    cache.set('a', 'aaaa', 4);
    cache.set('a', 'aaaa', 4);
    assert.equal(cache.bytes, 4);
    cache.set('huge', 'x'.repeat(11), 11);
    assert.equal(cache.get('huge'), undefined);
    assert.equal(cache.get('a'), 'aaaa', 'a blob too large to keep pushes nothing out');
  });
});
