// A volume waiting for its node (NodeResizePending, as external-resizer v2.0.0 leaves it on v1.34.9 until a pod mounts
// it) is said to wait, with what to do, until the target's stalledAfter; then it is stalled, and so is its set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { exitCodeOf, passVerdict } from '../../functions/engine/pass-verdict.ts';
import type { PassReport } from '../../functions/engine/pass-report.ts';
import { nodeWaitPolicy } from '../../functions/engine/node-expansion.ts';
import type { LivePvc } from '../../functions/domain/live-state.ts';
import { runningPod } from './builders.ts';
import { recordedPvc } from '../support/csi-recordings.ts';
import { recordedTemplate } from '../support/recorded-reports.ts';

const waiting = recordedPvc('a/a-mount-2', '1502'); // NodeResizePending at 2Gi since 2026-11-25T20:49:54Z
const began = Date.parse('2026-11-25T20:49:54Z');
const at = (ms: number) => ({ now: new Date(began + ms), stalledAfterSeconds: 3600 });

describe('a volume waiting for its node', () => {
  it('is waiting, quoting the resizer\'s condition and what a person does, before stalledAfter', () => {
    const { template, sts } = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(3599_000) });
    assert.deepEqual(template.pvcs.map((p) => p.state), ['waiting-for-node', 'waiting-for-node']);
    assert.equal(template.pvcs[0]?.message, 'Waiting for user to (re-)start a pod to finish file system resize of volume on node.; if pod web-0 is not running, '
      + 'the expansion waits until it runs on a node; if it runs, restart it (kubectl delete pod -n csi-probe web-0: its StatefulSet recreates it) so that its node expands the file system');
    assert.equal(sts.outcome, 'in-progress');
  });

  it('is stalled once stalledAfter has passed since the wait began, and so is its set (exit code 1)', () => {
    const { template, sts } = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(3600_000) });
    assert.deepEqual(template.pvcs.map((p) => p.state), ['stalled-on-node', 'stalled-on-node']);
    assert.match(template.pvcs[0]?.message ?? '', /^waiting for the node since 2026-11-25T20:49:54\.000Z, longer than stalledAfter 1h: Waiting for user to \(re-\)start a pod/);
    assert.equal(sts.outcome, 'stalled');
    assert.match(template.lastError ?? '', /^data-web-0 stalled: waiting for the node since/);
    const report: PassReport = { target: 't', mode: 'apply', commitSha: 'c'.repeat(40), outcome: 'ok', statefulSets: [sts], manifestErrors: [], notes: [] };
    assert.equal(exitCodeOf([passVerdict({ target: 't', report, error: undefined })]), 1);
    assert.deepEqual(passVerdict({ target: 't', report, error: undefined }).problems.map((p) => p.reason), ['node-expansion-stalled']);
    assert.equal(exitCodeOf([passVerdict({ target: 't', report: { ...report, statefulSets: [recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(60_000) }).sts] }, error: undefined })]), 0);
  });

  it('says what the pods\' phases call for: a Pending pod must run, a running one be restarted', () => {
    const pods = [runningPod('web-0', 'r', { namespace: 'csi-probe', phase: 'Pending' }), runningPod('web-1', 'r', { namespace: 'csi-probe' })];
    const { template } = recordedTemplate({ recorded: waiting, size: '2Gi', nodeWaits: at(60_000), pods });
    assert.match(template.pvcs[0]?.message ?? '', /; pod web-0 is Pending: the expansion waits until it runs on a node$/);
    assert.match(template.pvcs[1]?.message ?? '', /; pod web-1 runs: restart it \(kubectl delete pod -n csi-probe web-1: its StatefulSet recreates it\) so that its node expands the file system$/);
  });

  it('a node expansion the kubelet retries after an error is said to be retried on the node, and stalled past stalledAfter since its first failure', () => {
    const failing: LivePvc = {
      ...waiting, resizeStatus: 'NodeResizeInProgress',
      conditions: [...waiting.conditions, { type: 'NodeResizeError', status: 'True', reason: undefined, lastTransitionTime: '2026-11-25T20:49:54Z', message: 'failed to expand pvc with rpc error: code = Internal desc = resize2fs failed' }],
    };
    const retrying = recordedTemplate({ recorded: failing, size: '2Gi', nodeWaits: at(60_000) });
    assert.deepEqual(retrying.template.pvcs.map((p) => p.state), ['retrying', 'retrying']);
    assert.equal(retrying.template.pvcs[0]?.message, "failed to expand pvc with rpc error: code = Internal desc = resize2fs failed; the kubelet on pod web-0's node retries it; "
      + "if it keeps failing, read the pod's Events and that kubelet's log");
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
