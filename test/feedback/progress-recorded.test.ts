// The texts people read after merge and on pull requests, over claims and Events real CSI sidecars recorded on
// v1.34.9: a class change named as one, a stalled node expansion said to be stalled, a failure quoted in the words of
// the attempt that failed.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planAnnotations } from '../../functions/feedback/render-check-run.ts';
import { renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { progressDescription, progressState, renderProgressComment } from '../../functions/feedback/render-progress.ts';
import { recordedPvc, recordedWarnings } from '../support/csi-recordings.ts';
import { eventsOf, recordedTemplate } from '../support/recorded-reports.ts';
import { runningPod } from '../engine/builders.ts';

const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };

describe('a class change alone is named as one', () => {
  // Both claims asked for `broken` and the resizer is at it (InProgress), their volumes still in `fast`, at 1Gi.
  const modifying = recordedTemplate({ recorded: recordedPvc('c/c-vac', '1853'), size: '1Gi', className: 'broken' });

  it('in the progress status and comment', () => {
    assert.equal(modifying.template.change, 'class');
    assert.equal(progressDescription(modifying.sts), 'changing class: 0/2 replicas in broken');
    const comment = renderProgressComment({ target: 'prod', sts: modifying.sts, commitSha: 'd'.repeat(40) });
    assert.match(comment.markdown, /^### 🔄 Volume class change of csi-probe\/web \(prod\)$/m);
    // The template's heading says where it goes: the class, not its size (which does not change).
    assert.match(comment.markdown, /^#### `data` → VolumeAttributesClass broken: 0\/2 done$/m);
  });

  it('when it has finished too (what changed is kept from when it was first seen)', () => {
    const done = recordedTemplate({ recorded: recordedPvc('c/c-vac', '1843'), size: '1Gi', className: 'fast', previous: [{ ...modifying.template, desiredClass: 'fast' }] });
    assert.equal(done.template.finished, true);
    assert.equal(progressDescription(done.sts), '2/2 replicas in fast');
    assert.match(renderProgressComment({ target: 'prod', sts: done.sts, commitSha: 'd'.repeat(40) }).markdown, /^### ✅ Volume class change of csi-probe\/web/m);
  });

  it('in the plan comment and the check\'s annotation of a pull request', () => {
    const planned = recordedTemplate({
      recorded: recordedPvc('c/c-vac', '1843'), size: '1Gi', className: 'broken', plan: { action: 'resize', volumeAttributesClass: { from: 'fast', to: 'broken' } },
    });
    const plan = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: [planned.sts], errors: [] });
    assert.match(plan.markdown, /\| csi-probe\/web \| data \| 2 \| class fast → broken \| standard \(expandable\) \| no quota \| ✅ will change class \|/);
    assert.equal(plan.description, 'csi-probe/web: 2 PVCs class fast → broken');
    const [annotation] = planAnnotations([planned.sts], []);
    assert.equal(annotation?.title, 'csi-probe/web data: will change class');
    assert.equal(annotation?.message, 'VolumeAttributesClass fast → broken on 2 PVCs (StorageClass standard)');
  });

  it('a resize alone keeps its words', () => {
    const growing = recordedTemplate({ recorded: recordedPvc('a/a-mount-2', '1498'), size: '2Gi' });
    assert.equal(progressDescription(growing.sts), 'resizing: 0/2 replicas at 2Gi');
    assert.match(renderProgressComment({ target: 'prod', sts: growing.sts, commitSha: 'd'.repeat(40) }).markdown, /^### 🔄 Volume resize of csi-probe\/web/m);
  });
});

describe('a refused class after an expansion that failed and was lowered', () => {
  const events = [...eventsOf(recordedWarnings('b', 'b-infeasible'), 0, 1), ...eventsOf(recordedWarnings('c', 'c-vac'), 0, 1)];
  const { sts } = recordedTemplate({ recorded: recordedPvc('c/c-vac', '1855'), size: '1Gi', className: 'broken', events });
  const comment = renderProgressComment({
    target: 'prod', sts, commitSha: 'd'.repeat(40), recoveryLinks: new Map([['csi-probe/web/data', 'https://github.com/acme/gitops/pull/7']]),
  });

  it('quotes the driver\'s reason for the class since the refusal, never the resolved VolumeResizeFailed', () => {
    assert.match(comment.markdown, /The driver said \(since 2026-11-25T20:53:30\.000Z\):\n`{3,}text\ndata-web-0: ModifyVolumeError \(InvalidArgument\): invalid parameters: \[notAMutableParameter\]\n/);
    assert.doesNotMatch(comment.markdown, /VolumeResizeFailed|exceeds maximum|20:51:14/);
    assert.equal(comment.state, 'failure');
  });

  it('says its recovery pull request proposes a class, not a size', () => {
    assert.match(comment.markdown, /A recovery pull request proposes the VolumeAttributesClass the volumes still have: https:\/\/github\.com\/acme\/gitops\/pull\/7/);
    assert.doesNotMatch(comment.markdown, /proposes a size/);
  });

  it('shows why no class recovery was proposed, with ways out for a class', () => {
    const noted = renderProgressComment({ target: 'prod', sts, commitSha: 'd'.repeat(40), recoveryNotes: new Map([['csi-probe/web/data', { 'class-recovery': 'the refused volumes are in fast, slow' }]]) });
    assert.match(noted.markdown, /No recovery pull request for the class: the refused volumes are in fast, slow\.\n\nWays out: have the driver accept the class/);
  });
});

describe('a node expansion that stalled', () => {
  const since = Date.parse('2026-11-25T20:49:54Z');
  const { sts } = recordedTemplate({ recorded: recordedPvc('a/a-mount-2', '1502'), size: '2Gi', nodeWaits: { now: new Date(since + 2 * 3600_000), stalledAfterSeconds: 3600 } });

  it('is a failing progress check that names every stalled claim, not a pending one for ever', () => {
    assert.equal(progressState(sts), 'failure');
    assert.match(progressDescription(sts), /^data: data-web-0, data-web-1 stalled; data-web-0: waiting for the node since 2026-11-25T20:49:54\.000Z, longer than stalledAfter 1h: the res…$/);
    const comment = renderProgressComment({ target: 'prod', sts, commitSha: 'd'.repeat(40) });
    assert.match(comment.markdown, /Desired state from commit ddddddd\. data: data-web-0, data-web-1 stalled\.\n/);
    assert.match(comment.markdown, /\| data-web-0 \| 2Gi \| 1Gi \| ⚠️ stalled: waiting for the node since 2026-11-25T20:49:54\.000Z, longer than stalledAfter 1h: the resizer says "Waiting for user to \\\(re-\\\)start a pod to finish file system resize of volume on node\.".*restart it \\\(kubectl delete pod -n csi-probe web-0/);
    assert.match(comment.markdown, /\| data-web-1 \| 2Gi \| 1Gi \| ⚠️ stalled: .*restart it \\\(kubectl delete pod -n csi-probe web-1/);
  });

  it('names the stalled claims of every template in the title and the headline', () => {
    const other = recordedTemplate({ recorded: recordedPvc('a/a-mount-2', '1502'), replicas: 1, size: '2Gi', nodeWaits: { now: new Date(since + 2 * 3600_000), stalledAfterSeconds: 3600 } });
    const logs = { ...other.template, templateName: 'logs', pvcs: other.template.pvcs.map((p) => ({ ...p, name: 'logs-web-0' })) };
    const both = { ...sts, templates: [...sts.templates, logs] };
    const comment = renderProgressComment({ target: 'prod', sts: both, commitSha: 'd'.repeat(40) });
    assert.match(comment.markdown, /data: data-web-0, data-web-1 stalled; logs: logs-web-0 stalled\.\n/);
    assert.match(comment.title, /^data: data-web-0, data-web-1 stalled; data-web-0: .*; logs: logs-web-0 stalled, waiting for the node since/);
  });
});

describe('a node expansion waiting for its pod, before stalledAfter', () => {
  const since = Date.parse('2026-11-25T20:49:54Z');
  const pods = ['web-0', 'web-1'].map((name) => runningPod(name, 'r', { namespace: 'csi-probe', node: 'node-1' }));
  const { sts } = recordedTemplate({ recorded: recordedPvc('a/a-mount-2', '1502'), size: '2Gi', nodeWaits: { now: new Date(since + 60_000), stalledAfterSeconds: 3600 }, pods });

  it('is a pending status that names the volumes waiting for their node, not one that only says resizing', () => {
    assert.equal(progressState(sts), 'pending');
    assert.equal(progressDescription(sts), 'resizing: 0/2 replicas at 2Gi; data-web-0, data-web-1 wait for their node to expand the file system');
  });

  it('says in the comment what the kubelet does with the pods running, and advises no restart', () => {
    const comment = renderProgressComment({ target: 'prod', sts, commitSha: 'd'.repeat(40) });
    assert.match(comment.markdown, /\| data-web-1 \| 2Gi \| 1Gi \| ⏳ waiting for the node to expand the file system: the kubelet on node-1 expands the file system at its next sync of pod web-1, which runs/);
    assert.doesNotMatch(comment.markdown, /restart it|kubectl delete pod/);
  });
});
