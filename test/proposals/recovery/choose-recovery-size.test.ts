import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { parseQuantity } from '../../../functions/domain/quantity.ts';
import { chooseRecoverySize, statedMaximum, type RecoveryInput } from '../../../functions/proposals/recovery/choose-recovery-size.ts';

const q = parseQuantity;
/** What csi-driver-host-path says of a size above its --max-volume-size (recorded: csi-v1.34.9/b/). */
const refusal = (requested: bigint, maximum: bigint): string => `failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity ${requested} exceeds maximum allowed ${maximum}`;
const failedAt = (capacity: string) => ({ name: `data-${capacity}`, capacity: q(capacity), terminal: true });

describe('chooseRecoverySize (KEP-1790)', () => {
  const cases: Array<[name: string, input: RecoveryInput, expected: string | RegExp]> = [
    ['proposes the largest size under the maximum the driver states', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: ['rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200'], previousGitSize: q('10Gi') }, 'driver-maximum 50Gi'],
    ['rounds a maximum that is not a whole unit down', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: [refusal(107374182400n, 54000000000n)], previousGitSize: undefined }, 'driver-maximum 50Gi'],
    ['reads no maximum from words no driver is known to write (engine/volumes/driver-maximum.ts)', { failedSize: q('20000Gi'), pvcs: [failedAt('100Gi')], driverMessages: ['volume size 20000GiB exceeds the maximum supported 16384GiB'], previousGitSize: undefined }, 'smallest-step 101Gi'],
    ['reads no maximum from a part of the driver\'s sentence, and falls back to the previous Git value', { failedSize: q('100Gi'), pvcs: [failedAt('20Gi')], driverMessages: ['exceeds maximum allowed 10737418240'], previousGitSize: q('40Gi') }, 'previous-git-value 40Gi'],
    // Issue 35: volumes at the driver's maximum, Git asking for more. 51Gi, 51201Mi, 52428801Ki and 53687091201 bytes were proposed.
    ['at the driver\'s maximum, proposes Git back to the size the volumes have: no size above it can succeed', { failedSize: q('60Gi'), pvcs: [failedAt('50Gi'), failedAt('50Gi')], driverMessages: [refusal(64424509440n, 53687091200n)], previousGitSize: q('50Gi') }, 'at-driver-maximum 50Gi'],
    ['at the driver\'s maximum in bytes too: never a byte above it', { failedSize: q('53687091300'), pvcs: [failedAt('53687091200')], driverMessages: [refusal(53687091300n, 53687091200n)], previousGitSize: undefined }, 'at-driver-maximum 50Gi'],
    ['a previous Git value above the maximum is not proposed', { failedSize: q('100Gi'), pvcs: [failedAt('40Gi')], driverMessages: [refusal(107374182400n, 53687091200n)], previousGitSize: q('80Gi') }, 'driver-maximum 50Gi'],
    ['uses the previous Git value when the driver states no maximum', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: ['rpc error: code = Internal desc = backend exploded'], previousGitSize: q('30Gi') }, 'previous-git-value 30Gi'],
    ['skips a previous Git value that is not above the capacity (it can never be requested again)', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: [], previousGitSize: q('10Gi') }, 'smallest-step 11Gi'],
    ['steps in the template\'s own unit above the largest failed capacity', { failedSize: q('100G'), pvcs: [failedAt('10G'), failedAt('12G')], driverMessages: [], previousGitSize: undefined }, 'smallest-step 13G'],
    ['says no recovery is possible when a replica already reached the failed size (partial failure)', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi'), { name: 'data-ok', capacity: q('100Gi'), terminal: false }], driverMessages: [], previousGitSize: q('10Gi') }, /^impossible: data-ok already reached 100Gi/],
    ['proposes a driver maximum in a finer unit when no whole step of the template\'s unit fits (1Ti capacity, 1.5Ti failed)', { failedSize: q('1.5Ti'), pvcs: [failedAt('1Ti')], driverMessages: [refusal(1649267441664n, 1288490188800n)], previousGitSize: undefined }, 'driver-maximum 1200Gi'],
    ['steps in a finer unit when no whole step of the template\'s unit fits', { failedSize: q('1.5Ti'), pvcs: [failedAt('1Ti')], driverMessages: [], previousGitSize: undefined }, 'smallest-step 1025Gi'],
    ['goes down to Mi when 11Gi failed above a 10Gi capacity', { failedSize: q('11Gi'), pvcs: [failedAt('10Gi')], driverMessages: [], previousGitSize: undefined }, 'smallest-step 10241Mi'],
    ['steps in finer decimal units too (T -> G)', { failedSize: q('1.5T'), pvcs: [failedAt('1T')], driverMessages: [refusal(1500000000000n, 1200000000000n)], previousGitSize: undefined }, 'driver-maximum 1200G'],
    ['keeps the exponent form of an exponent-written template (e12 -> e9)', { failedSize: q('1.5e12'), pvcs: [failedAt('1e12')], driverMessages: [], previousGitSize: undefined }, 'smallest-step 1001e9'],
    ['says no recovery is possible when not even one byte fits between capacity and the failed size', { failedSize: q('10737418241'), pvcs: [failedAt('10Gi')], driverMessages: [], previousGitSize: undefined }, /^impossible: no whole number of bytes/],
    ['needs nothing when no failure is terminal (transient errors keep retrying)', { failedSize: q('100Gi'), pvcs: [{ name: 'a', capacity: q('10Gi'), terminal: false }], driverMessages: ['ControllerResizeError'], previousGitSize: undefined }, 'none-needed'],
  ];
  for (const [name, input, expected] of cases) {
    it(name, () => {
      const decision = chooseRecoverySize(input);
      const text = decision.kind === 'propose' ? `${decision.rule} ${decision.size}` : decision.kind === 'impossible' ? `impossible: ${decision.reason}` : decision.kind;
      if (typeof expected === 'string') assert.equal(text, expected);
      else assert.match(text, expected);
      const maximum = statedMaximum(input.driverMessages);
      if (decision.kind === 'propose') {
        assert.ok(decision.bytes < input.failedSize.bytes, 'below the failed size');
        assert.ok(maximum === undefined || decision.bytes <= maximum, 'never above what the driver stated');
        if (decision.rule === 'at-driver-maximum') {
          // Git back to the size the volumes have: the claims are left as they are (KEP-1790 lowers only above capacity).
          assert.ok(input.pvcs.every((p) => !p.terminal || (p.capacity?.bytes ?? 0n) <= decision.bytes), 'no volume above it');
          assert.match(decision.explanation, /^no size can succeed: the driver's maximum is \S+ and the volumes have \S+; /);
        } else {
          assert.ok(input.pvcs.every((p) => !p.terminal || (p.capacity?.bytes ?? 0n) < decision.bytes), 'strictly above every failed capacity');
        }
      }
      if (decision.kind === 'impossible') assert.equal(decision.waysOut.length, 2);
    });
  }

  it('takes the smallest of several stated maximums', () => {
    assert.equal(statedMaximum([refusal(200n, 100n), refusal(100n, 50n)]), 50n);
    assert.equal(statedMaximum(['maximum allowed 100', 'no numbers here']), undefined);
  });

  it('never proposes a size above the maximum the driver stated, wherever the volumes and the failed size are (issue 35)', () => {
    const maximum = 53687091200n;
    const units: Record<string, bigint> = { Gi: 2n ** 30n, Mi: 2n ** 20n, G: 10n ** 9n, '': 1n };
    fc.assert(fc.property(
      fc.oneof(fc.bigInt({ min: 1n, max: maximum + 2n ** 31n }), fc.constantFrom(maximum, maximum - 1n, maximum + 1n, maximum - 2n ** 30n)), fc.integer({ min: 1, max: 100 }), fc.constantFrom('Gi', 'Mi', 'G', ''),
      (capacity, steps, unit) => {
        const step = units[unit] ?? 1n;
        const failedSize = q(`${capacity / step + BigInt(steps)}${unit}`);
        const decision = chooseRecoverySize({
          failedSize, pvcs: [{ name: 'data-web-0', capacity: q(String(capacity)), terminal: true }],
          driverMessages: [refusal(failedSize.bytes, maximum)], previousGitSize: undefined,
        });
        if (decision.kind !== 'propose') return;
        // A volume larger than the maximum (lowered since) can only be proposed back to its own size.
        assert.ok(decision.bytes <= (capacity > maximum ? capacity : maximum), `${decision.size} is above the maximum`);
        assert.ok(decision.rule === 'at-driver-maximum' ? capacity >= maximum && decision.bytes === capacity : decision.bytes > capacity, decision.size);
      },
    ), { numRuns: 300 });
  });
});
