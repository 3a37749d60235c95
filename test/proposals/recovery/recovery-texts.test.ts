// The recovery pull requests' bodies over claims and Events real CSI sidecars recorded on v1.34.9: the driver's own
// words from the failed claims' conditions first (they outlive Events), the Events of the attempt that failed, never an
// earlier resolved failure, and advice that holds for the real external-resizer's slow retries.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity as q } from '../../../functions/domain/quantity.ts';
import { composeBody } from '../../../functions/proposals/body/compose-body.ts';
import { classRecoveryBody, sizeRecoveryBody } from '../../../functions/proposals/recovery/recovery-texts.ts';
import { recordedPvc, recordedWarnings } from '../../support/csi-recordings.ts';
import { eventsOf, recordedTemplate } from '../../support/recorded-reports.ts';

const resizeFailed = recordedWarnings('b', 'b-infeasible');
const modifyFailed = recordedWarnings('c', 'c-vac');
const decision = { kind: 'propose' as const, size: '50Gi', bytes: 53687091200n, rule: 'driver-maximum' as const, explanation: 'the driver states a maximum of 50Gi' };

function quoted(body: string): string {
  return /What the storage driver said:\n\n`{3,}text\n([\s\S]*?)\n`{3,}/.exec(body)?.[1] ?? '';
}

describe('the recovery pull request of a failed expansion', () => {
  const { template, sts } = recordedTemplate({ recorded: recordedPvc('b/b-infeasible', '1626'), size: '100Gi', events: eventsOf(resizeFailed, 0, 1) });
  const body = composeBody(sizeRecoveryBody({ sts, template, failed: '100Gi', decision }));

  it('quotes the ControllerResizeError condition first, then the attempt\'s VolumeResizeFailed Events, since the attempt began', () => {
    assert.deepEqual(quoted(body).split('\n'), [
      'data-web-0: ControllerResizeError: failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200',
      'data-web-1: ControllerResizeError: failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200',
      'data-web-0: VolumeResizeFailed: resize volume "pvc-c6651a6c-d662-485f-ada6-5db4122b619c" by resizer "hostpath.csi.k8s.io" failed: rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200',
      'data-web-1: VolumeResizeFailed: resize volume "pvc-c6651a6c-d662-485f-ada6-5db4122b619c" by resizer "hostpath.csi.k8s.io" failed: rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200',
    ]);
    assert.match(body, /2 of 2 PVCs cannot grow to 100Gi \(since 2026-11-25T20:51:14\.000Z\):/);
  });

  it('still quotes the driver once the Events have expired: the condition carries its words', () => {
    const expired = recordedTemplate({ recorded: recordedPvc('b/b-infeasible', '1626'), size: '100Gi' });
    const text = composeBody(sizeRecoveryBody({ ...expired, failed: '100Gi', decision }));
    assert.match(quoted(text), /^data-web-0: ControllerResizeError: failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200$/m);
  });

  it('says how the real external-resizer retries an infeasible claim, and how to have it retried now', () => {
    assert.doesNotMatch(body, /retried as it is/);
    assert.match(body, /Raise the limit that made the expansion fail .*, then close this pull request \(closed unmerged, it is not proposed again\)\. The external-resizer keeps a claim whose expansion it found infeasible in a slow-retry set and tries the same request again only once its `--retry-interval-max` has passed \(5 minutes by default\); to have it retried at once, restart the external-resizer/);
  });
});

describe('the recovery pull request of a size the node refused', () => {
  // The kubelet's NodeResizeError, kept while the resizer hands the claim back (NodeResizePending) for another try.
  const pending = recordedPvc('a/a-mount-2', '1502');
  const refused = {
    ...pending, request: q('100Gi'), allocated: q('100Gi'),
    conditions: [...pending.conditions, { type: 'NodeResizeError', status: 'True', reason: undefined, lastTransitionTime: '2026-11-25T20:50:10Z', message: 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 32212254720' }],
  };
  const { template, sts } = recordedTemplate({ recorded: refused, size: '100Gi' });
  const body = composeBody(sizeRecoveryBody({ sts, template, failed: '100Gi', decision: { ...decision, size: '30Gi' } }));

  it('quotes the node\'s condition, since its first refusal', () => {
    assert.match(quoted(body), /^data-web-0: NodeResizeError: failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 32212254720$/m);
    assert.match(body, /2 of 2 PVCs cannot grow to 100Gi \(since 2026-11-25T20:50:10Z\):/);
  });

  it('says the kubelet retries a size refused on the node by itself, and when lowering it recovers', () => {
    assert.doesNotMatch(body, /slow-retry set/);
    assert.match(body, /then close this pull request \(closed unmerged, it is not proposed again\)\. The kubelet tries the node expansion again by itself: the external-resizer hands a claim refused on the node back to it at once, and it retries with a backoff of up to about two minutes\./);
    assert.match(body, /Lowering a size refused on the node recovers a driver that expands volumes on the node alone \(KEP-1790 case 2\); one that expanded the volume on its controller first keeps that size, and only a node expansion that succeeds finishes it\./);
  });
});

describe('the recovery pull request of a refused class', () => {
  // The claims failed at 100Gi before (b), were lowered and grew; now the class `broken` is refused (c).
  const events = [...eventsOf(resizeFailed, 0, 1), ...eventsOf(modifyFailed, 0, 1)];
  const { template, sts } = recordedTemplate({ recorded: recordedPvc('c/c-vac', '1855'), size: '1Gi', className: 'broken', events });
  const body = composeBody(classRecoveryBody({ sts, template, failed: 'broken', decision: { className: 'fast', explanation: 'they are still in fast' } }));

  it('quotes the ModifyVolumeError condition (the driver\'s reason) and the VolumeModifyFailed Events, never the resolved expansion failure', () => {
    assert.deepEqual(quoted(body).split('\n'), [
      'data-web-0: ModifyVolumeError (InvalidArgument): invalid parameters: [notAMutableParameter]',
      'data-web-1: ModifyVolumeError (InvalidArgument): invalid parameters: [notAMutableParameter]',
      'data-web-0: VolumeModifyFailed: rpc error: code = InvalidArgument desc = invalid parameters: [notAMutableParameter]',
      'data-web-1: VolumeModifyFailed: rpc error: code = InvalidArgument desc = invalid parameters: [notAMutableParameter]',
    ]);
    assert.doesNotMatch(body, /VolumeResizeFailed|exceeds maximum/);
    assert.match(body, /2 of 2 volumes cannot be given the attributes of broken \(`modifyVolumeStatus: Infeasible`, since 2026-11-25T20:53:30\.000Z\):/);
  });

  it('quotes the driver\'s reason with no Event left', () => {
    const expired = recordedTemplate({ recorded: recordedPvc('c/c-vac', '1855'), size: '1Gi', className: 'broken' });
    const text = composeBody(classRecoveryBody({ ...expired, failed: 'broken', decision: { className: 'fast', explanation: 'x' } }));
    assert.match(quoted(text), /invalid parameters: \[notAMutableParameter\]/);
  });

  it('gives advice that holds for the real resizer\'s slow retries of a refused modification', () => {
    assert.match(body, /Have the driver accept broken \(a VolumeAttributesClass's parameters cannot be edited.*\), then close this pull request.*The external-resizer keeps a claim whose modification it found infeasible in a slow-retry set/);
  });
});
