// describePvc over the claims real CSI sidecars wrote (external-resizer v2.0.0 and csi-driver-host-path v1.17.1 in
// front of kube-apiserver v1.34.9; ../shared/conformance/csi-v1.34.9/), each read through the adapter's own mapping.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { parseQuantity } from '../../functions/domain/quantity.ts';
import { describePvc } from '../../functions/engine/volumes/pvc-progress.ts';
import { recordedPvc, recordedVersions } from '../support/csi-recordings.ts';

const q = parseQuantity;
const outOfRange = 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200';
const waitingForPod = 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.';

describe('an expansion beyond the driver\'s maximum, as recorded (b/b-infeasible)', () => {
  it('ControllerResizeInfeasible is a terminal failure though Resizing stays True beside ControllerResizeError', () => {
    const pvc = recordedPvc('b/b-infeasible', '1626');
    assert.ok(pvc.conditions.some((c) => c.type === 'Resizing' && c.status === 'True'), 'the recording keeps Resizing');
    const progress = describePvc('b-infeasible', 0, pvc, q('100Gi'));
    assert.equal(progress.state, 'failed');
    assert.equal(progress.terminal, true);
    assert.equal(progress.failedOn, 'size');
    assert.equal(progress.message, outOfRange);
    assert.deepEqual(progress.condition, { type: 'ControllerResizeError', message: outOfRange });
    // The resizer dates the error condition from the resize's start: the attempt's start, not its Resizing's refresh.
    assert.equal(progress.since, '2026-11-25T20:51:14.000Z');
  });

  it('the lowered request (KEP-1790) is in progress, the old failure history, until the node step', () => {
    assert.equal(describePvc('b-infeasible', 0, recordedPvc('b/b-infeasible', '1661'), q('3Gi')).state, 'patched');
    assert.equal(describePvc('b-infeasible', 0, recordedPvc('b/b-infeasible', '1662'), q('3Gi')).state, 'resizing-controller');
    const pending = describePvc('b-infeasible', 0, recordedPvc('b/b-infeasible', '1665'), q('3Gi'));
    assert.equal(pending.state, 'waiting-for-node');
    assert.equal(pending.terminal, false);
  });

  it('the nonode driver\'s claim is done at the lowered size', () => {
    const last = recordedVersions('b/b-nonode').at(-1);
    assert.ok(last);
    assert.equal(describePvc('b-nonode', 0, last.pvc, q('3Gi')).state, 'done');
  });
});

describe('NodeResizePending, as recorded (a/a-mount-2, a/a-mount)', () => {
  it('is waiting for the node, quoting the FileSystemResizePending condition, since it was set', () => {
    const progress = describePvc('a-mount-2', 0, recordedPvc('a/a-mount-2', '1502'), q('2Gi'));
    assert.equal(progress.state, 'waiting-for-node');
    assert.equal(progress.message, waitingForPod);
    assert.deepEqual(progress.condition, { type: 'FileSystemResizePending', message: waitingForPod });
    assert.equal(progress.since, '2026-11-25T20:49:54.000Z');
  });

  it('a larger request while NodeResizePending waits for the node step first, and says so', () => {
    const progress = describePvc('a-mount', 0, recordedPvc('a/a-mount', '1803'), q('100Gi'));
    assert.equal(progress.state, 'waiting-for-node');
    assert.match(progress.message ?? '', /^Waiting for user to \(re-\)start a pod.*; 2Gi is allocated, and 100Gi is attempted once the node has finished$/);
    assert.equal(progress.since, '2026-11-25T20:47:17.000Z', 'the wait began with the first request, not the larger one');
  });
});

describe('VolumeAttributesClass changes, as recorded (c/c-vac)', () => {
  it('InProgress towards the class is modifying, since its ModifyingVolume condition', () => {
    const progress = describePvc('c-vac', 0, recordedPvc('c/c-vac', '1840'), q('1Gi'), 'fast');
    assert.equal(progress.state, 'modifying');
    assert.equal(progress.since, '2026-11-25T20:53:16.000Z');
  });

  it('Infeasible is a terminal failure of the class, quoting the ModifyVolumeError condition the driver\'s words are in', () => {
    const progress = describePvc('c-vac', 0, recordedPvc('c/c-vac', '1855'), q('1Gi'), 'broken');
    assert.equal(progress.state, 'failed');
    assert.equal(progress.failedOn, 'class');
    assert.equal(progress.terminal, true);
    assert.equal(progress.message, 'the driver refused to modify the volume to VolumeAttributesClass broken: invalid parameters: [notAMutableParameter] (modifyVolumeStatus Infeasible, InvalidArgument); it stays in fast');
    assert.deepEqual(progress.condition, { type: 'ModifyVolumeError', reason: 'InvalidArgument', message: 'invalid parameters: [notAMutableParameter]' });
    assert.equal(progress.since, '2026-11-25T20:53:30.000Z');
  });

  it('the rollback that still lists the old ModifyVolumeError while InProgress is not a new failure', () => {
    for (const rv of ['1865', '1866', '1868']) {
      const progress = describePvc('c-vac', 0, recordedPvc('c/c-vac', rv), q('1Gi'), 'fast');
      assert.equal(progress.state, 'done', rv);
      assert.equal(progress.condition, undefined, rv);
    }
  });

  it('a class that does not exist is Pending, told apart from Infeasible', () => {
    const progress = describePvc('c-vac', 0, recordedPvc('c/c-vac', '1902'), q('1Gi'), 'does-not-exist');
    assert.equal(progress.state, 'class-pending');
    assert.equal(progress.terminal, false);
    assert.match(progress.message ?? '', /modifyVolumeStatus Pending\): VolumeAttributesClass does-not-exist does not exist or is not yet known to it; create the class, or name one that exists/);
  });

  it('a modification to another class after a refused one does not carry the refused one\'s status', () => {
    // spec slow while the status still says Pending from does-not-exist, then InProgress to slow
    const stale = describePvc('c-vac', 0, recordedPvc('c/c-vac', '1921'), q('1Gi'), 'slow');
    assert.equal(stale.state, 'modifying');
    assert.equal(stale.message, 'modifying from fast to slow (InProgress)');
  });
});
