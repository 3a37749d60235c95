import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  canonicalQuantity, compareQuantities, formatBytesLike, largestStepBelowOrEqual, nextStepAbove, parseQuantity,
  quantityFromBytes, QuantityError,
} from '../../functions/domain/quantity.ts';

const Gi = 1024n ** 3n;

describe('parseQuantity reads what Kubernetes reads, with the value it means and the form it prints', () => {
  const cases: Array<[input: string | number, bytes: bigint, canonical: string]> = [
    ['1Gi', Gi, '1Gi'],
    ['1024Mi', Gi, '1Gi'],
    ['1073741824', Gi, '1073741824'],
    ['1.5Gi', 1536n * 1024n ** 2n, '1536Mi'],
    ['1536Mi', 1536n * 1024n ** 2n, '1536Mi'],
    ['0.5Gi', 512n * 1024n ** 2n, '512Mi'],
    ['1Ki', 1024n, '1Ki'],
    ['1.5Ki', 1536n, '1536'],
    ['1Mi', 1024n ** 2n, '1Mi'],
    ['1Ti', 1024n ** 4n, '1Ti'],
    ['1Pi', 1024n ** 5n, '1Pi'],
    ['1Ei', 1024n ** 6n, '1Ei'],
    ['2048Ki', 2n * 1024n ** 2n, '2Mi'],
    ['1G', 1_000_000_000n, '1G'],
    ['1k', 1000n, '1k'],
    ['1M', 1_000_000n, '1M'],
    ['1T', 10n ** 12n, '1T'],
    ['1P', 10n ** 15n, '1P'],
    ['1E', 10n ** 18n, '1E'],
    ['1500M', 1_500_000_000n, '1500M'],
    ['1.5G', 1_500_000_000n, '1500M'],
    ['1000k', 1_000_000n, '1M'],
    ['2e9', 2_000_000_000n, '2e9'],
    ['1E3', 1000n, '1e3'],
    ['1e0', 1n, '1'],
    ['12e6', 12_000_000n, '12e6'],
    ['100', 100n, '100'],
    ['1000', 1000n, '1k'],
    ['1500', 1500n, '1500'],
    ['0', 0n, '0'],
    ['1.5', 2n, '1500m'],
    ['100m', 1n, '100m'],
    ['0.1', 1n, '100m'],
    ['1u', 1n, '1u'],
    ['1n', 1n, '1n'],
    ['.5Gi', 512n * 1024n ** 2n, '512Mi'],
    ['+1Gi', Gi, '1Gi'],
    ['  20Gi  ', 20n * Gi, '20Gi'],
    [10737418240, 10n * Gi, '10737418240'],
    ['9223372036854775807', (1n << 63n) - 1n, '9223372036854775807'],
  ];
  for (const [input, bytes, canonical] of cases) {
    it(`${JSON.stringify(input)} is ${bytes} bytes and prints as ${canonical}`, () => {
      const q = parseQuantity(input);
      assert.equal(q.bytes, bytes);
      assert.equal(canonicalQuantity(q), canonical);
    });
  }
});

describe('parseQuantity rejects what Kubernetes rejects, quoting the input', () => {
  const invalid = ['20Gb', '-1Gi', 'Gi', '', '   ', '1GiGi', '1e3Gi', '1.2.3Gi', 'ten', '1 Gi', '8Ei', '10E', '1e40', '0x10', 'Infinity', '1,5Gi'];
  for (const input of invalid) {
    it(`${JSON.stringify(input)} is an invalid quantity`, () => {
      assert.throws(() => parseQuantity(input), (error: unknown) => {
        assert.ok(error instanceof QuantityError);
        assert.equal(error.input, input.trim() === '' ? input : input.trim());
        assert.match(error.message, new RegExp(`invalid quantity ${JSON.stringify(input.trim() === '' ? input : input.trim()).replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`));
        return true;
      });
    });
  }
});

describe('compareQuantities is exact', () => {
  const cases: Array<[a: string, b: string, expected: -1 | 0 | 1]> = [
    ['1Gi', '1073741824', 0],
    ['1Gi', '1024Mi', 0],
    ['1G', '1Gi', -1],
    ['1.5Gi', '1536Mi', 0],
    ['20Gi', '10Gi', 1],
    ['100m', '1', -1],
    ['1e3', '1k', 0],
    ['0.5', '500m', 0],
  ];
  for (const [a, b, expected] of cases) {
    it(`${a} compared with ${b} is ${expected}`, () => {
      assert.equal(compareQuantities(parseQuantity(a), parseQuantity(b)), expected);
      assert.equal(compareQuantities(parseQuantity(b), parseQuantity(a)), expected === 0 ? 0 : -expected);
    });
  }
});

describe('formatting keeps the user unit where it is exact', () => {
  const cases: Array<[bytes: bigint, like: string, expected: string]> = [
    [20n * Gi, '10Gi', '20Gi'],
    [1536n * 1024n ** 2n, '1Gi', '1536Mi'],
    [20_000_000_000n, '10G', '20G'],
    [21_474_836_480n, '10G', '21474836480'],
    [2_000_000_000n, '1e9', '2e9'],
    [5n, '1', '5'],
  ];
  for (const [bytes, like, expected] of cases) {
    it(`${bytes} bytes written like ${like} is ${expected}`, () => {
      assert.equal(formatBytesLike(bytes, parseQuantity(like)), expected);
    });
  }

  it('steps in the template unit: the smallest whole unit above 10Gi is 11Gi', () => {
    assert.equal(nextStepAbove(10n * Gi, parseQuantity('20Gi')), 11n * Gi);
    assert.equal(nextStepAbove(10n * Gi + 1n, parseQuantity('20Gi')), 11n * Gi);
    assert.equal(nextStepAbove(10_000_000_000n, parseQuantity('20G')), 11_000_000_000n);
    assert.equal(nextStepAbove(7n, parseQuantity('20')), 8n);
  });

  it('steps down to the largest whole unit at or below a limit', () => {
    assert.equal(largestStepBelowOrEqual(53_687_091_200n, parseQuantity('100Gi')), 50n * Gi);
    assert.equal(largestStepBelowOrEqual(50n * Gi + 5n, parseQuantity('100Gi')), 50n * Gi);
  });

  it('quantityFromBytes prints bytes in the largest exact binary unit', () => {
    assert.equal(quantityFromBytes(50n * Gi).text, '50Gi');
    assert.equal(quantityFromBytes(1000n).text, '1000');
  });
});
