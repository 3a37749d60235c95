// A busy pass (the target's Lease held by another live pass) says who holds it, since and until when, in the CLI's
// report, and keeps each waiting change's progress check and comment saying so, rather than stale or silent.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { holdWords } from '../../functions/engine/lease/busy-pass.ts';
import type { LeaseHold, PassReport } from '../../functions/engine/report/pass-report.ts';
import { progressState, renderProgressComment } from '../../functions/feedback/render-progress.ts';
import { recordedPvc } from '../support/csi-recordings.ts';
import { recordedTemplate } from '../support/recorded-reports.ts';

const hold: LeaseHold = {
  lease: 'sts-volume-gitops/sts-volume-gitops-prod', holder: 'cli-vm-22824', since: '2026-11-27T10:00:01.000Z', until: '2026-11-27T10:00:31.512Z',
};
const waitingFor = holdWords(hold);
// A change under way (the controller step done, waiting for the node), as a busy pass plans it.
const planned = recordedTemplate({ recorded: recordedPvc('a/a-mount-2', '1502'), size: '2Gi' }).sts;
const waiting = { ...planned, outcome: 'waiting' as const, waitingFor, notes: [`waiting: ${waitingFor}`] };

describe('a busy pass', () => {
  it('words the hold with its holder, since and until when', () => {
    assert.equal(waitingFor, 'another pass (cli-vm-22824) holds the target since 2026-11-27T10:00:01.000Z until 2026-11-27T10:00:31.512Z');
    assert.equal(holdWords({ ...hold, since: undefined }), 'another pass (cli-vm-22824) holds the target until 2026-11-27T10:00:31.512Z');
  });

  it('keeps the change\'s progress check pending, saying it waits for that pass and until when', () => {
    const comment = renderProgressComment({ target: 'prod', sts: waiting, commitSha: 'd'.repeat(40) });
    assert.equal(progressState(waiting), 'pending');
    assert.equal(comment.title, `waiting: ${waitingFor}; resizing: 0/2 replicas at 2Gi`);
    assert.match(comment.markdown, /Desired state from commit ddddddd\. waiting: another pass \\\(cli-vm-22824\\\) holds the target since 2026-11-27T10:00:01\.000Z until 2026-11-27T10:00:31\.512Z; resizing: 0\/2 replicas at 2Gi\./);
  });

  it('says in the CLI who holds the target, since and until when, and which changes wait', () => {
    const report: PassReport = {
      target: 'prod', mode: 'apply', commitSha: 'c'.repeat(40), outcome: 'busy', heldBy: hold, statefulSets: [waiting], manifestErrors: [],
      notes: [`lease ${hold.lease}: ${waitingFor}`],
    };
    const text = renderPassReport(report);
    assert.match(text, /^ {2}busy: lease sts-volume-gitops\/sts-volume-gitops-prod: another pass \(cli-vm-22824\) holds the target since 2026-11-27T10:00:01\.000Z until 2026-11-27T10:00:31\.512Z$/m);
    assert.match(text, /^ {2}… csi-probe\/web \(OrderedReady, 2 replicas\): waiting$/m);
    assert.match(text, /note: waiting: another pass \(cli-vm-22824\)/);
  });
});
