import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity } from '../../../functions/domain/quantity.ts';
import { chooseRecoverySize, statedMaximum, type RecoveryInput } from '../../../functions/proposals/recovery/choose-recovery-size.ts';

const q = parseQuantity;
const failedAt = (capacity: string) => ({ name: `data-${capacity}`, capacity: q(capacity), terminal: true });

describe('chooseRecoverySize (KEP-1790)', () => {
  const cases: Array<[name: string, input: RecoveryInput, expected: string | RegExp]> = [
    ['proposes the largest size under the maximum the driver states', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: ['rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200'], previousGitSize: q('10Gi') }, 'driver-maximum 50Gi'],
    ['rounds a maximum that is not a whole unit down', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: ['exceeds maximum allowed 54000000000'], previousGitSize: undefined }, 'driver-maximum 50Gi'],
    ['reads maximums written with a unit', { failedSize: q('20000Gi'), pvcs: [failedAt('100Gi')], driverMessages: ['volume size 20000GiB exceeds the maximum supported 16384GiB'], previousGitSize: undefined }, 'driver-maximum 16384Gi'],
    ['ignores a stated maximum at or below the capacity and falls back to the previous Git value', { failedSize: q('100Gi'), pvcs: [failedAt('20Gi')], driverMessages: ['exceeds maximum allowed 10737418240'], previousGitSize: q('40Gi') }, 'previous-git-value 40Gi'],
    ['uses the previous Git value when the driver states no maximum', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: ['rpc error: code = Internal desc = backend exploded'], previousGitSize: q('30Gi') }, 'previous-git-value 30Gi'],
    ['skips a previous Git value that is not above the capacity (it can never be requested again)', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi')], driverMessages: [], previousGitSize: q('10Gi') }, 'smallest-step 11Gi'],
    ['steps in the template\'s own unit above the largest failed capacity', { failedSize: q('100G'), pvcs: [failedAt('10G'), failedAt('12G')], driverMessages: [], previousGitSize: undefined }, 'smallest-step 13G'],
    ['says no recovery is possible when a replica already reached the failed size (partial failure)', { failedSize: q('100Gi'), pvcs: [failedAt('10Gi'), { name: 'data-ok', capacity: q('100Gi'), terminal: false }], driverMessages: [], previousGitSize: q('10Gi') }, /^impossible: data-ok already reached 100Gi/],
    ['proposes a driver maximum in a finer unit when no whole step of the template\'s unit fits (1Ti capacity, 1.5Ti failed)', { failedSize: q('1.5Ti'), pvcs: [failedAt('1Ti')], driverMessages: ['exceeds maximum allowed 1200GiB'], previousGitSize: undefined }, 'driver-maximum 1200Gi'],
    ['steps in a finer unit when no whole step of the template\'s unit fits', { failedSize: q('1.5Ti'), pvcs: [failedAt('1Ti')], driverMessages: [], previousGitSize: undefined }, 'smallest-step 1025Gi'],
    ['goes down to Mi when 11Gi failed above a 10Gi capacity', { failedSize: q('11Gi'), pvcs: [failedAt('10Gi')], driverMessages: [], previousGitSize: undefined }, 'smallest-step 10241Mi'],
    ['steps in finer decimal units too (T -> G)', { failedSize: q('1.5T'), pvcs: [failedAt('1T')], driverMessages: ['maximum 1200000000000'], previousGitSize: undefined }, 'driver-maximum 1200G'],
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
      if (decision.kind === 'propose') {
        assert.ok(decision.bytes < input.failedSize.bytes, 'below the failed size');
        assert.ok(input.pvcs.every((p) => !p.terminal || (p.capacity?.bytes ?? 0n) < decision.bytes), 'strictly above every failed capacity');
      }
      if (decision.kind === 'impossible') assert.equal(decision.waysOut.length, 2);
    });
  }

  it('takes the smallest of several stated maximums', () => {
    assert.equal(statedMaximum(['maximum allowed 100', 'exceeds maximum allowed 50']), 50n);
    assert.equal(statedMaximum(['no numbers here']), undefined);
  });
});
