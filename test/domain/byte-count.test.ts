import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { byteCount } from '../../functions/domain/byte-count.ts';

describe('a count of bytes as a person reads it', () => {
  it('below a KiB: the bytes alone', () => {
    assert.equal(byteCount(0), '0 bytes');
    assert.equal(byteCount(251), '251 bytes');
    assert.equal(byteCount(1023), '1,023 bytes');
  });
  it('from a KiB up: the binary unit, whole where it is whole, and the grouped bytes', () => {
    assert.equal(byteCount(1024 * 1024), '1 MiB (1,048,576 bytes)');
    assert.equal(byteCount(95 * 1024 * 1024), '95 MiB (99,614,720 bytes)');
    assert.equal(byteCount(1_100_000), '1.0 MiB (1,100,000 bytes)');
    assert.equal(byteCount(1024 ** 4 * 3), '3 TiB (3,298,534,883,328 bytes)');
  });
  it('never writes a run of more than three digits (GitHub would take seven as a commit)', () => {
    for (const bytes of [1, 999_999, 2 ** 31, 1024 ** 3 * 1.5, Number.MAX_SAFE_INTEGER]) assert.doesNotMatch(byteCount(bytes), /\d{4}/);
  });
});
