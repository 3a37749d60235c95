// A failed claim's report keeps only the Events of the attempt that failed (by reason and time), over the claims and
// Events real CSI sidecars recorded on v1.34.9.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PvcEvent } from '../../functions/domain/live-state.ts';
import { eventsOfFailedAttempts } from '../../functions/engine/volumes/failure-evidence.ts';
import { describePvc } from '../../functions/engine/volumes/pvc-progress.ts';
import { parseQuantity } from '../../functions/domain/quantity.ts';
import { recordedPvc, recordedWarnings } from '../support/csi-recordings.ts';
import { eventsOf, recordedTemplate } from '../support/recorded-reports.ts';

const resizeFailed = recordedWarnings('b', 'b-infeasible');
const modifyFailed = recordedWarnings('c', 'c-vac');

describe('the Events a failed claim\'s report keeps', () => {
  it('a refused class keeps its VolumeModifyFailed, not the VolumeResizeFailed of an earlier expansion that was lowered and done', () => {
    const { template } = recordedTemplate({
      recorded: recordedPvc('c/c-vac', '1855'), size: '1Gi', className: 'broken', events: [...eventsOf(resizeFailed, 0, 1), ...eventsOf(modifyFailed, 0, 1)],
    });
    assert.deepEqual(template.pvcs.map((p) => [p.state, p.failedOn]), [['failed', 'class'], ['failed', 'class']]);
    assert.deepEqual(template.failureEvents.map((e) => `${e.pvcName} ${e.reason}`), ['data-web-0 VolumeModifyFailed', 'data-web-1 VolumeModifyFailed']);
  });

  it('a failed expansion keeps the Events of its own attempt, not those of an earlier attempt at another size', () => {
    const earlier: PvcEvent = {
      namespace: 'csi-probe', pvcName: 'b-infeasible', reason: 'VolumeResizeFailed', type: 'Warning', count: 2, lastTimestamp: '2026-11-25T20:40:02.000Z',
      message: 'resize volume "pvc-c6651a6c-d662-485f-ada6-5db4122b619c" by resizer "hostpath.csi.k8s.io" failed: rpc error: code = OutOfRange desc = Requested capacity 214748364800 exceeds maximum allowed 53687091200',
    };
    const { template } = recordedTemplate({ recorded: recordedPvc('b/b-infeasible', '1626'), size: '100Gi', events: eventsOf([earlier, ...resizeFailed], 0, 1) });
    assert.deepEqual(template.failureEvents.map((e) => e.lastTimestamp), ['2026-11-25T20:51:14.000Z', '2026-11-25T20:51:14.000Z']);
    assert.ok(template.failureEvents.every((e) => e.message.includes('107374182400')));
  });

  it('a claim that did not fail keeps none (waiting for the node after a lowered request)', () => {
    const { template } = recordedTemplate({ recorded: recordedPvc('b/b-infeasible', '1665'), size: '3Gi', events: eventsOf(resizeFailed, 0, 1) });
    assert.deepEqual(template.failureEvents, []);
  });

  it('without a date for the attempt (no condition, as before 1.31), only the newest Event of its reasons', () => {
    const claim = { ...recordedPvc('b/b-infeasible', '1626'), resizeStatus: 'ControllerResizeFailed', conditions: [] };
    const progress = describePvc('b-infeasible', 0, claim, parseQuantity('100Gi'));
    const older = { ...resizeFailed[0]!, lastTimestamp: '2026-11-25T20:40:00.000Z', message: 'an earlier attempt' };
    assert.deepEqual(eventsOfFailedAttempts([progress], [older, ...resizeFailed]).map((e) => e.lastTimestamp), ['2026-11-25T20:51:14.000Z']);
  });

  it('dates a claim failing on the controller from its failure\'s first Event: the resizer re-dates its condition at each retry', () => {
    // Five minutes on, the resizer has tried the infeasible expansion again: a new ControllerResizeError time, the
    // same Event counted once more (its first time kept).
    const later = (time: string | undefined): string => new Date(Date.parse(time ?? '') + 5 * 60_000).toISOString();
    const recorded = recordedPvc('b/b-infeasible', '1626');
    const retried = { ...recorded, conditions: recorded.conditions.map((c) => (c.type === 'ControllerResizeError' ? { ...c, lastTransitionTime: later(c.lastTransitionTime) } : c)) };
    const counted = resizeFailed.map((e) => ({ ...e, lastTimestamp: later(e.lastTimestamp), count: e.count + 1 }));
    const first = recordedTemplate({ recorded, size: '100Gi', events: eventsOf(resizeFailed, 0, 1) }).template;
    const again = recordedTemplate({ recorded: retried, size: '100Gi', events: eventsOf(counted, 0, 1) }).template;
    assert.deepEqual(again.pvcs.map((p) => p.since), ['2026-11-25T20:51:14.000Z', '2026-11-25T20:51:14.000Z']);
    assert.deepEqual(again.pvcs.map((p) => p.since), first.pvcs.map((p) => p.since), 'a retry that changed nothing changes no date');
    // Without its Events (expired), the condition's time is all there is.
    assert.deepEqual(recordedTemplate({ recorded: retried, size: '100Gi' }).template.pvcs.map((p) => p.since), ['2026-11-25T20:56:14.000Z', '2026-11-25T20:56:14.000Z']);
  });

  it('never dates a failure before the pass that began this change: the recorder counts a repeat of an older, resolved failure on its old Event', () => {
    // 100Gi failed at 20:51 and was lowered and done; at 21:30 Git asks for 100Gi again, and the same resizer pod
    // answers with the same message: its Event keeps the old first time (counted on), the condition has the new attempt.
    const at = (time: string): string => new Date(time).toISOString();
    const recorded = recordedPvc('b/b-infeasible', '1626');
    const retried = { ...recorded, conditions: recorded.conditions.map((c) => (c.type === 'ControllerResizeError' ? { ...c, lastTransitionTime: at('2026-11-25T21:35:00Z') } : c)) };
    const counted = resizeFailed.map((e) => ({ ...e, lastTimestamp: at('2026-11-25T21:35:00Z'), count: e.count + 7 }));
    const earlier = [{ templateName: 'data', desiredSize: '50Gi', commitSha: 'a'.repeat(40), replicas: 2, readyReplicas: 2 }];
    const began = recordedTemplate({ recorded: retried, size: '100Gi', events: eventsOf(counted, 0, 1), previous: earlier, now: new Date('2026-11-25T21:30:00Z') });
    assert.deepEqual(began.template.pvcs.map((p) => p.since), [at('2026-11-25T21:30:00Z'), at('2026-11-25T21:30:00Z')]);
    // Later passes keep the time the change began (the status annotation carries it), whatever their own clock says.
    const kept = recordedTemplate({ recorded: retried, size: '100Gi', events: eventsOf(counted, 0, 1), previous: [began.template], now: new Date('2026-11-25T22:00:00Z') });
    assert.deepEqual(kept.template.pvcs.map((p) => p.since), [at('2026-11-25T21:30:00Z'), at('2026-11-25T21:30:00Z')]);
  });
});
