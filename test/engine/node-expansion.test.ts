// A volume waiting for its node (NodeResizePending, as external-resizer v2.0.0 leaves it on v1.34.9) is said to wait for
// the kubelet, which grows a running pod's volume at its next sync of the pod (a real kubelet v1.34.9 did, the pod
// running: ../shared/conformance/node-v1.34.9/), with no restart advised until the target's stalledAfter has passed;
// then it is stalled, and so is its set, and every stalled claim is named.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exitCodeOf, passVerdict } from '../../functions/engine/report/pass-verdict.ts';
import type { PassReport } from '../../functions/engine/report/pass-report.ts';
import { nodeWaitPolicy, stalledWords } from '../../functions/engine/volumes/node-expansion.ts';
import type { LivePvc } from '../../functions/domain/live-state.ts';
import { parseQuantity } from '../../functions/domain/quantity.ts';
import { runningPod } from './builders.ts';
import { recordedNodePvc, recordedPvc } from '../support/csi-recordings.ts';
import { recordedTemplate } from '../support/recorded-reports.ts';

const waiting = recordedPvc('a/a-mount-2', '1502'); // NodeResizePending at 2Gi since 2026-11-25T20:49:54Z
const began = Date.parse('2026-11-25T20:49:54Z');
const at = (ms: number) => ({ now: new Date(began + ms), stalledAfterSeconds: 3600 });
const onNode1 = [runningPod('web-0', 'r', { namespace: 'csi-probe', node: 'node-1' }), runningPod('web-1', 'r', { namespace: 'csi-probe', node: 'node-1' })];

describe('a volume waiting for its node', () => {
  it('with its pod running, waits for the kubelet\'s next sync of the pod on its node: no restart is advised before stalledAfter', () => {
    const { template, sts } = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(3599_000), pods: onNode1 });
    assert.deepEqual(template.pvcs.map((p) => p.state), ['waiting-for-node', 'waiting-for-node']);
    assert.equal(template.pvcs[0]?.message, 'the kubelet on node-1 expands the file system at its next sync of pod web-0, which runs '
      + '(every --sync-frequency, 1m by default); no restart is needed unless it still waits after stalledAfter (1h)');
    assert.doesNotMatch(template.pvcs.map((p) => p.message).join(' '), /restart it|kubectl delete pod/);
    assert.equal(sts.outcome, 'in-progress');
    assert.equal(template.lastError, undefined);
  });

  it('says so as the recording shows it: NodeResizePending with the pod running, then NodeResizeInProgress, the kubelet at work', () => {
    const pods = [runningPod('web-0', 'r', { namespace: 'csi-probe', node: 'node-1' })];
    const pending = recordedTemplate({ recorded: recordedNodePvc('3336'), replicas: 1, size: '2Gi', nodeWaits: at(0), pods });
    assert.deepEqual(pending.template.pvcs.map((p) => [p.state, p.condition?.type]), [['waiting-for-node', 'FileSystemResizePending']]);
    assert.match(pending.template.pvcs[0]?.message ?? '', /^the kubelet on node-1 expands the file system at its next sync of pod web-0, which runs/);
    const inProgress = recordedTemplate({ recorded: recordedNodePvc('3422'), replicas: 1, size: '2Gi', nodeWaits: at(0), pods });
    assert.deepEqual(inProgress.template.pvcs.map((p) => [p.state, p.message]), [['resizing-node', 'NodeResizeInProgress: the kubelet on node-1 is expanding the file system']]);
    const done = recordedTemplate({ recorded: recordedNodePvc('3423'), replicas: 1, size: '2Gi', nodeWaits: at(0), pods });
    assert.deepEqual(done.template.pvcs.map((p) => p.state), ['done']);
  });

  it('with its pod not running (or not read), waits for the pod to start; a larger request behind it is said to wait its turn', () => {
    const pods = [runningPod('web-0', 'r', { namespace: 'csi-probe', phase: 'Pending' })];
    const { template } = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(60_000), pods });
    assert.equal(template.pvcs[0]?.message, 'pod web-0 is Pending: the kubelet expands the file system when the pod starts on a node');
    assert.equal(template.pvcs[1]?.message, 'pod web-1 does not exist: the kubelet expands the file system when it runs on a node');
    const unread = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(60_000) });
    assert.equal(unread.template.pvcs[0]?.message, 'the kubelet expands the file system at its next sync of pod web-0, or when the pod starts on a node');
    const larger = recordedTemplate({ recorded: { ...waiting, request: parseQuantity('3Gi') }, size: '3Gi', nodeWaits: at(60_000), pods: onNode1 });
    assert.match(larger.template.pvcs[0]?.message ?? '', /no restart is needed unless it still waits after stalledAfter \(1h\); 2Gi is allocated, and 3Gi is attempted once the node has finished$/);
  });

  it('is stalled once stalledAfter has passed since the wait began, quoting the resizer and advising the restart; so is its set (exit code 1)', () => {
    const { template, sts } = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(3600_000), pods: onNode1 });
    assert.deepEqual(template.pvcs.map((p) => p.state), ['stalled-on-node', 'stalled-on-node']);
    assert.equal(template.pvcs[0]?.message, 'waiting for the node since 2026-11-25T20:49:54.000Z, longer than stalledAfter 1h: the resizer says "Waiting for user '
      + 'to (re-)start a pod to finish file system resize of volume on node."; pod web-0 runs on node-1: restart it (kubectl delete pod -n csi-probe web-0: '
      + 'its StatefulSet recreates it) so that the kubelet expands the file system as it mounts the volume (a driver without online expansion needs this), '
      + "or read pod web-0's Events and the kubelet's log on node-1");
    assert.equal(sts.outcome, 'stalled');
    assert.match(template.lastError ?? '', /^data-web-0, data-web-1 stalled; data-web-0: waiting for the node since/);
    const report: PassReport = { target: 't', mode: 'apply', commitSha: 'c'.repeat(40), outcome: 'ok', statefulSets: [sts], manifestErrors: [], notes: [] };
    assert.equal(exitCodeOf([passVerdict({ target: 't', report, error: undefined })]), 1);
    assert.deepEqual(passVerdict({ target: 't', report, error: undefined }).problems.map((p) => p.reason), ['node-expansion-stalled']);
    assert.equal(exitCodeOf([passVerdict({ target: 't', report: { ...report, statefulSets: [recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(60_000) }).sts] }, error: undefined })]), 0);
  });

  it('stalled with its pod not running, says the pod must run', () => {
    const pods = [runningPod('web-0', 'r', { namespace: 'csi-probe', phase: 'Pending' })];
    const { template } = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(3600_000), pods });
    assert.match(template.pvcs[0]?.message ?? '', /; pod web-0 is Pending: the expansion waits until it runs on a node \(kubectl describe pod -n csi-probe web-0\)$/);
  });

  it('names every stalled claim, each one\'s words with it when alone', () => {
    const claim = (name: string, state: 'stalled-on-node' | 'done', message?: string) => ({ name, state, message });
    assert.equal(stalledWords([claim('data-web-0', 'done'), claim('data-web-1', 'stalled-on-node', 'waiting for the node since T')]), 'data-web-1 stalled, waiting for the node since T');
    assert.equal(stalledWords([claim('data-web-0', 'stalled-on-node', 'waiting A'), claim('data-web-1', 'done'), claim('data-web-2', 'stalled-on-node', 'waiting B')]),
      'data-web-0, data-web-2 stalled; data-web-0: waiting A');
    assert.equal(stalledWords([claim('data-web-0', 'done')]), undefined);
  });

  it('a node expansion the kubelet retries after an error is said to be retried on the node, and stalled past stalledAfter since its first failure', () => {
    const failing: LivePvc = {
      ...waiting, resizeStatus: 'NodeResizeInProgress',
      conditions: [...waiting.conditions, { type: 'NodeResizeError', status: 'True', reason: undefined, lastTransitionTime: '2026-11-25T20:49:54Z', message: 'failed to expand pvc with rpc error: code = Internal desc = resize2fs failed' }],
    };
    const retrying = recordedTemplate({ recorded: failing, size: '2Gi', nodeWaits: at(60_000) });
    assert.deepEqual(retrying.template.pvcs.map((p) => p.state), ['retrying', 'retrying']);
    assert.equal(retrying.template.pvcs[0]?.message, "failed to expand pvc with rpc error: code = Internal desc = resize2fs failed; the kubelet on pod web-0's node retries it; "
      + "if it keeps failing, read pod web-0's Events and its node's kubelet log");
    const stalled = recordedTemplate({ recorded: failing, size: '2Gi', nodeWaits: at(3600_000) });
    assert.deepEqual(stalled.template.pvcs.map((p) => p.state), ['stalled-on-node', 'stalled-on-node']);
    assert.match(stalled.template.pvcs[0]?.message ?? '', /^failing on the node since 2026-11-25T20:49:54Z, longer than stalledAfter 1h: failed to expand pvc with rpc error: code = Internal/);
    assert.equal(stalled.sts.outcome, 'stalled');
  });

  it('takes stalledAfter from the target, 1h by default', () => {
    assert.equal(nodeWaitPolicy({}, new Date(0)).stalledAfterSeconds, 3600);
    assert.equal(nodeWaitPolicy({ stalledAfterSeconds: 600 }, new Date(0)).stalledAfterSeconds, 600);
  });
});
