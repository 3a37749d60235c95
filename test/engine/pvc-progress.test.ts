import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { describePvc, type PvcState } from '../../functions/engine/volumes/pvc-progress.ts';
import { livePvc, q } from './builders.ts';

const condition = (type: string, message?: string) => ({ type, status: 'True', reason: undefined, message, lastTransitionTime: undefined });

describe('describePvc', () => {
  const cases: Array<{ name: string; pvc: ReturnType<typeof livePvc> | undefined; state: PvcState; message?: RegExp; terminal?: boolean }> = [
    { name: 'a missing PVC is reported as not created yet', pvc: undefined, state: 'missing' },
    { name: 'a PVC at the size with capacity reached is done', pvc: livePvc('p', { request: '20Gi' }), state: 'done' },
    { name: 'a PVC below the size is to be patched', pvc: livePvc('p'), state: 'to-patch' },
    { name: 'a patched PVC with no resize status yet waits for the resizer', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi' }), state: 'patched' },
    { name: 'ControllerResizeInProgress towards the size is resizing on the controller', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi', allocated: '20Gi', resizeStatus: 'ControllerResizeInProgress' }), state: 'resizing-controller' },
    { name: 'NodeResizePending is waiting for the node', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi', allocated: '20Gi', resizeStatus: 'NodeResizePending' }), state: 'waiting-for-node' },
    { name: 'NodeResizeInProgress is resizing on the node', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi', allocated: '20Gi', resizeStatus: 'NodeResizeInProgress' }), state: 'resizing-node' },
    { name: 'a FileSystemResizePending condition is waiting for the node', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi', conditions: [condition('FileSystemResizePending')] }), state: 'waiting-for-node' },
    { name: 'a ControllerResizeError condition is a transient retry with its message', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi', allocated: '20Gi', resizeStatus: 'ControllerResizeInProgress', conditions: [condition('ControllerResizeError', 'rpc error: code = Unavailable')] }), state: 'retrying', message: /Unavailable/ },
    { name: 'ControllerResizeInfeasible at the size is a terminal failure', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi', allocated: '20Gi', resizeStatus: 'ControllerResizeInfeasible', conditions: [condition('ControllerResizeError', 'exceeds maximum allowed')] }), state: 'failed', message: /exceeds maximum/, terminal: true },
    { name: 'the pre-1.31 NodeResizeFailed is a terminal failure too', pvc: livePvc('p', { request: '20Gi', capacity: '10Gi', allocated: '20Gi', resizeStatus: 'NodeResizeFailed' }), state: 'failed', terminal: true },
    { name: 'a terminal failure for another size is history once the request changes (still terminal: should the new size be blocked, the claim stays refused)', pvc: livePvc('p', { request: '100Gi', capacity: '10Gi', allocated: '100Gi', resizeStatus: 'ControllerResizeInfeasible' }), state: 'to-patch', message: /previous expansion failed/, terminal: true },
    { name: 'an expansion in progress towards another size holds the new size back', pvc: livePvc('p', { request: '100Gi', capacity: '10Gi', allocated: '100Gi', resizeStatus: 'ControllerResizeInProgress' }), state: 'in-progress-other-size', message: /in progress to 100Gi; 20Gi will not be attempted until it ends/ },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const progress = describePvc('p', 0, c.pvc, q('20Gi'));
      assert.equal(progress.state, c.state);
      if (c.message) assert.match(progress.message ?? '', c.message);
      assert.equal(progress.terminal, c.terminal ?? false);
    });
  }
});

describe('describePvc with the template\'s volumeAttributesClassName (KEP-3751)', () => {
  const at = (overrides: Parameters<typeof livePvc>[1]) => livePvc('p', { request: '20Gi', volumeAttributesClassName: 'silver', currentVolumeAttributesClassName: 'silver', ...overrides });
  const cases: Array<{ name: string; pvc: ReturnType<typeof livePvc>; state: PvcState; message?: RegExp; terminal?: boolean }> = [
    { name: 'at the size and in the class: done', pvc: at({ volumeAttributesClassName: 'gold', currentVolumeAttributesClassName: 'gold' }), state: 'done' },
    { name: 'at the size, asking for another class: to patch', pvc: at({}), state: 'to-patch' },
    { name: 'below the size and in another class: to patch (one patch for both)', pvc: at({ request: '10Gi' }), state: 'to-patch' },
    { name: 'asking for the class, modification InProgress: modifying', pvc: at({ volumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'InProgress', targetVolumeAttributesClassName: 'gold' } }), state: 'modifying', message: /modifying from silver to gold \(InProgress\)/ },
    {
      name: "refused by the backend's modification limit while InProgress: waiting for the driver's window, in its words",
      pvc: at({
        volumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'InProgress', targetVolumeAttributesClassName: 'gold' },
        conditions: [condition('ModifyingVolume'), condition('ModifyVolumeError', 'Could not modify volume "vol-1": operation error EC2: ModifyVolume, https response error StatusCode: 400, RequestID: r, api error VolumeModificationRateExceeded: You\'ve reached the maximum modification rate per volume limit.')],
      }),
      state: 'waiting-for-window', message: /^waiting for the driver's window: Could not modify volume "vol-1": .*VolumeModificationRateExceeded/,
    },
    { name: 'asking for the class, modification Pending: waiting for the class, said so', pvc: at({ volumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'Pending', targetVolumeAttributesClassName: undefined } }), state: 'class-pending', message: /Pending/ },
    { name: 'Infeasible towards the class: a terminal failure of the class', pvc: at({ volumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'Infeasible', targetVolumeAttributesClassName: 'gold' } }), state: 'failed', message: /refused to modify the volume to VolumeAttributesClass gold \(modifyVolumeStatus Infeasible\); it stays in silver/, terminal: true },
    { name: 'Infeasible towards another class is history once the claim asks for this one', pvc: at({ volumeAttributesClassName: 'silver', modifyVolumeStatus: { status: 'Infeasible', targetVolumeAttributesClassName: 'platinum' } }), state: 'to-patch' },
    { name: 'a size still growing keeps its size state while the class follows', pvc: at({ capacity: '10Gi', volumeAttributesClassName: 'gold' }), state: 'patched' },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const progress = describePvc('p', 0, c.pvc, q('20Gi'), 'gold');
      assert.equal(progress.state, c.state, progress.message);
      if (c.message) assert.match(progress.message ?? '', c.message);
      assert.equal(progress.terminal, c.terminal ?? false);
      if (c.state === 'failed') assert.equal(progress.failedOn, 'class');
    });
  }

  it('a rolled-back class is done though the Infeasible status of the refused one stays (as recorded on v1.34.9)', () => {
    const pvc = at({ volumeAttributesClassName: 'silver', modifyVolumeStatus: { status: 'Infeasible', targetVolumeAttributesClassName: 'gold' } });
    assert.equal(describePvc('p', 0, pvc, q('20Gi'), 'silver').state, 'done');
  });
});

describe('describePvc on a node\'s failure, as the kubelet and external-resizer v2.0.0 write it', () => {
  const at = (type: string, time: string, message?: string) => ({ type, status: 'True', reason: undefined, message, lastTransitionTime: time });
  const refused = at('NodeResizeError', '2026-11-25T21:00:00Z', 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 32212254720');
  const claim = (resizeStatus: string, conditions: ReturnType<typeof at>[]) => livePvc('p', { request: '100Gi', capacity: '10Gi', allocated: '100Gi', resizeStatus, conditions });
  // The kubelet marks NodeResizeInfeasible; the resizer hands it back as NodeResizePending ("case 3", its Resizing and
  // FileSystemResizePending rewritten, the error kept); the kubelet tries again (NodeResizeInProgress) and is refused.
  const cycle = [
    claim('NodeResizeInfeasible', [at('Resizing', '2026-11-25T20:59:58Z'), at('FileSystemResizePending', '2026-11-25T20:59:59Z'), refused]),
    claim('NodeResizePending', [at('Resizing', '2026-11-25T21:00:01Z'), at('FileSystemResizePending', '2026-11-25T21:00:01Z'), refused]),
    claim('NodeResizeInProgress', [at('Resizing', '2026-11-25T21:00:01Z'), at('FileSystemResizePending', '2026-11-25T21:00:01Z'), refused]),
  ];

  it('reads every status of the refusal\'s retry cycle as the same terminal failure, quoting the node\'s condition since it was first written', () => {
    const read = cycle.map((pvc) => describePvc('p', 0, pvc, q('100Gi')));
    for (const progress of read) {
      assert.deepEqual(
        { state: progress.state, terminal: progress.terminal, failedOn: progress.failedOn, since: progress.since, message: progress.message, condition: progress.condition?.type },
        { state: 'failed', terminal: true, failedOn: 'size', since: '2026-11-25T21:00:00Z', message: refused.message, condition: 'NodeResizeError' },
      );
    }
  });

  it('a node error the kubelet retries (not infeasible: the status stays NodeResizeInProgress) is retrying, dated from its first failure', () => {
    const passing = at('NodeResizeError', '2026-11-25T21:00:00Z', 'failed to expand pvc with rpc error: code = Internal desc = resize2fs temporarily failed');
    const progress = describePvc('p', 0, claim('NodeResizeInProgress', [at('Resizing', '2026-11-25T20:59:58Z'), at('FileSystemResizePending', '2026-11-25T20:59:59Z'), passing]), q('100Gi'));
    assert.deepEqual([progress.state, progress.terminal, progress.since, progress.condition?.type], ['retrying', false, '2026-11-25T21:00:00Z', 'NodeResizeError']);
    assert.match(progress.message ?? '', /code = Internal/);
  });

  it('a ControllerResizeError kept beside FileSystemResizePending after a passing controller error is waiting for the node, not retrying', () => {
    const passed = at('ControllerResizeError', '2026-11-25T20:59:58Z', 'failed to expand pvc with rpc error: code = Internal desc = backend temporarily unavailable');
    const pending = describePvc('p', 0, claim('NodeResizePending', [at('Resizing', '2026-11-25T20:59:58Z'), passed, at('FileSystemResizePending', '2026-11-25T20:59:59Z', 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.')]), q('100Gi'));
    assert.deepEqual([pending.state, pending.since, pending.condition?.type], ['waiting-for-node', '2026-11-25T20:59:59Z', 'FileSystemResizePending']);
    assert.equal(describePvc('p', 0, claim('NodeResizeInProgress', [passed]), q('100Gi')).state, 'resizing-node');
    assert.equal(describePvc('p', 0, claim('ControllerResizeInProgress', [passed]), q('100Gi')).state, 'retrying', 'while the controller step runs, it is that step\'s error');
  });
});
