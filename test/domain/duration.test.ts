import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { formatDuration, parseDuration } from '../../functions/domain/duration.ts';

describe('durations as a configuration writes them', () => {
  it('reads days, hours, minutes and seconds, largest first', () => {
    assert.deepEqual(['30m', '1h', '1h30m', '2d', '1d2h3m4s', '90s'].map(parseDuration), [1800, 3600, 5400, 172_800, 93_784, 90]);
  });

  it('refuses anything else', () => {
    assert.deepEqual(['', 'h', '1', '1.5h', '30m1h', '1 h', '-1h', 'PT1H'].map(parseDuration), Array(8).fill(undefined));
  });

  it('writes seconds back in the same form', () => {
    assert.deepEqual([5400, 3600, 172_800, 93_784, 45, 0].map(formatDuration), ['1h30m', '1h', '2d', '1d2h3m4s', '45s', '0s']);
  });
});
