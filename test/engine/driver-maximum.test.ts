// The maximum a driver states, read from its own words (engine/volumes/driver-maximum.ts): the texts the recorded
// csi-driver-host-path wrote behind the real external-resizer (../shared/conformance/csi-v1.34.9/b/), the same words
// from another driver, and texts that state no maximum (read as none, never guessed).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { smallestStatedMaximum, statedMaximumIn } from '../../functions/engine/volumes/driver-maximum.ts';
import { recordedPvc, recordedWarnings } from '../support/csi-recordings.ts';

describe('a driver\'s stated maximum, read from its words', () => {
  it('reads the recorded ControllerResizeError condition: bytes, the refused size and the words', () => {
    const condition = recordedPvc('b/b-infeasible', '1626').conditions.find((c) => c.type === 'ControllerResizeError');
    assert.ok(condition?.message);
    assert.deepEqual(statedMaximumIn(condition.message), { bytes: 53687091200n, requested: 107374182400n, words: condition.message });
  });

  it('reads the recorded VolumeResizeFailed Event, which names the driver', () => {
    const [event] = recordedWarnings('b', 'b-infeasible').filter((e) => e.reason === 'VolumeResizeFailed');
    assert.ok(event);
    assert.match(event.message, /by resizer "hostpath\.csi\.k8s\.io"/);
    assert.equal(statedMaximumIn(event.message)?.bytes, 53687091200n);
  });

  it('reads the same words from csi-driver-lvm (metal-stack/csi-driver-lvm issue 52)', () => {
    assert.equal(statedMaximumIn('rpc error: code = OutOfRange desc = Requested capacity 1099511627776 exceeds maximum allowed 1099511627776')?.bytes, 1099511627776n);
  });

  it('reads no maximum where a driver states none, nor from a form no driver is known to write', () => {
    for (const text of [
      'invalid parameters: [notAMutableParameter]',
      'rpc error: code = Internal desc = resize disk d-gw8 get error: SDK.ServerError ErrorCode: InvalidParameter Message: The specified parameter "NewSize" is not valid.',
      'rpc error: code = Internal desc = backend temporarily unavailable',
      'exceeds maximum allowed 53687091200',
      'volume size 20000GiB exceeds the maximum supported 16384GiB',
      'Requested capacity 60Gi exceeds maximum allowed 50Gi',
    ]) assert.equal(statedMaximumIn(text), undefined, text);
  });

  it('takes the smallest maximum of several texts', () => {
    const texts = ['Requested capacity 300 exceeds maximum allowed 200', 'no maximum here', 'Requested capacity 300 exceeds maximum allowed 100'];
    assert.equal(smallestStatedMaximum(texts)?.bytes, 100n);
    assert.equal(smallestStatedMaximum(['no maximum here']), undefined);
  });
});
