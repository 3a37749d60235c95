// Which files of a commit a pass reads, from the sizes a listing gives (pure): over the per-file limit a file is left
// unread, and a commit whose other files are too many or too large together is refused whole.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { filesToRead, SourceTooLargeError, type SourceLimits } from '../../functions/domain/source-limits.ts';

const limits: SourceLimits = { maxFileBytes: 100, maxCommitBytes: 250, maxCommitFiles: 3 };
const sha = 'a'.repeat(40);

describe('filesToRead', () => {
  it('reads the files within the per-file limit and names the others with their size', () => {
    const chosen = filesToRead([{ path: 'a.yaml', bytes: 100 }, { path: 'b.yaml', bytes: 101 }, { path: 'c.yaml', bytes: 0 }], sha, limits);
    assert.deepEqual(chosen.read.map((f) => f.path), ['a.yaml', 'c.yaml']);
    assert.deepEqual([...chosen.tooLarge], [['b.yaml', 101]]);
  });

  it('refuses a commit whose readable files are too large together or too many, whatever the files over the limit', () => {
    assert.throws(() => filesToRead([{ path: 'a', bytes: 100 }, { path: 'b', bytes: 100 }, { path: 'c', bytes: 51 }], sha, limits), (error: unknown) =>
      error instanceof SourceTooLargeError && error.message === `the files the target's paths match at ${'a'.repeat(12)} are 251 bytes together, over the limit of 250 bytes a pass reads; nothing was read: narrow the paths`);
    assert.throws(() => filesToRead(['a', 'b', 'c', 'd'].map((path) => ({ path, bytes: 1 })), '/srv/gitops', limits), (error: unknown) =>
      error instanceof SourceTooLargeError && error.message === 'the target\'s paths match 4 files at /srv/gitops, over the limit of 3 a pass reads; nothing was read: narrow the paths');
    assert.equal(filesToRead([{ path: 'a', bytes: 100 }, { path: 'b', bytes: 100 }, { path: 'huge', bytes: 10 ** 12 }], sha, limits).read.length, 2);
  });
});
