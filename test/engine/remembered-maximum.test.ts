// What a pass remembers of a driver's maximum on a template's status (engine/volumes/remembered-maximum.ts): the latest thing
// the driver said on the template's claims, kept once their condition is gone (a recovery drops it, as recorded),
// written again only when it is a day newer, forgotten after a week or when a volume of the driver is larger.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { rememberMaximum, rememberedForMs, statementsOn, type RememberedMaximum } from '../../functions/engine/volumes/remembered-maximum.ts';
import { livePvc } from './builders.ts';
import { recordedPvc, renamed } from '../support/csi-recordings.ts';

const driver = 'hostpath.csi.k8s.io';
const failing = renamed(recordedPvc('b/b-infeasible', '1626'), 'data-web-0');
/** The same claim once its request was lowered to 3Gi (KEP-1790): the error condition is gone. */
const recovered = renamed(recordedPvc('b/b-infeasible', '1665'), 'data-web-0');
const hour = 60 * 60 * 1000;

function saidBefore(statement: RememberedMaximum, ms: number): RememberedMaximum {
  return { ...statement, saidAt: new Date(Date.parse(statement.saidAt) - ms).toISOString() };
}

describe('the maximum a driver stated, remembered on the template\'s status', () => {
  const [said] = statementsOn([failing], driver);

  it('is what the driver says on a failed claim: its bytes, words, time and claim', () => {
    assert.deepEqual(said, {
      driver, bytes: '53687091200', claim: 'csi-probe/data-web-0', saidAt: '2026-11-25T20:51:14.000Z',
      words: 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200',
    });
    assert.ok(!recovered.conditions.some((c) => c.type === 'ControllerResizeError'), 'the recording drops the condition once the request is lowered');
    assert.deepEqual(statementsOn([recovered], driver), []);
  });

  it('is kept once the claims no longer say it, for a week', () => {
    assert.ok(said);
    const now = new Date(Date.parse(said.saidAt) + rememberedForMs - hour);
    assert.deepEqual(rememberMaximum(said, driver, [recovered], now), said);
    assert.equal(rememberMaximum(said, driver, [recovered], new Date(Date.parse(said.saidAt) + rememberedForMs + hour)), undefined);
    assert.deepEqual(rememberMaximum(said, driver, [recovered], undefined), said, 'a read-only pass forgets nothing');
  });

  it('is not written again while the driver keeps saying it (its retries re-date the condition), but a day later it is', () => {
    assert.ok(said);
    const earlier = saidBefore(said, 5 * 60 * 1000);
    assert.equal(rememberMaximum(earlier, driver, [failing], undefined), earlier);
    const old = saidBefore(said, 25 * hour);
    assert.deepEqual(rememberMaximum(old, driver, [failing], undefined), said);
  });

  it('is forgotten when a volume of the driver is larger than it (the maximum was raised), or for another driver', () => {
    assert.ok(said);
    assert.equal(rememberMaximum(said, driver, [recovered, livePvc('data-web-1', { request: '60Gi', capacity: '60Gi' })], undefined), undefined);
    assert.equal(rememberMaximum(said, 'ebs.csi.aws.com', [recovered], undefined), undefined);
    assert.equal(rememberMaximum(said, undefined, [failing], undefined), undefined);
  });

  it('takes the driver\'s new word over the one remembered', () => {
    assert.ok(said);
    const raised = { ...said, bytes: '107374182400', saidAt: '2026-11-01T00:00:00.000Z' };
    assert.deepEqual(rememberMaximum(raised, driver, [failing], undefined), said);
  });
});
