// Regressions for what the hostile corpus found in product code (each also a case of the corpus).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity, QuantityError } from '../../functions/domain/quantity.ts';
import { escapeMarkdown } from '../../functions/feedback/escape-markdown.ts';

describe('found by the hostile corpus', () => {
  it('a quantity error quotes at most 64 characters of the value and says how long it was', () => {
    const value = `${'9'.repeat(10_000)}Gi`;
    assert.throws(() => parseQuantity(value), (error: unknown) => error instanceof QuantityError
      && error.message.length < 200 && error.message.includes(`"${'9'.repeat(64)}"… (10002 characters)`) && error.input === value);
    assert.throws(() => parseQuantity('20Gb'), /^QuantityError: invalid quantity "20Gb": unknown suffix/);
  });

  it('escapeMarkdown breaks GitHub\'s bare www. autolinks as it breaks ://', () => {
    assert.equal(escapeMarkdown('see www.evil.example or WWW.Evil.example'), 'see www&#8203;.evil.example or WWW&#8203;.Evil.example');
  });
});
