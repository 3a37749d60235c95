// A refused recreation record is loud at every edge (issue 22): a metric of its own in CloudWatch, so an alarm can say
// someone wrote a record this deployment did not, and exit code 1 from the CLI.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { passMetrics } from '../../functions/lambda/pass-metrics.ts';
import { exitCodeOf } from '../../functions/cli/render-report.ts';

const run = (refused: number): TargetRun => ({
  target: 'prod',
  report: {
    target: 'prod', mode: 'apply', commitSha: 'c0ffee', outcome: 'ok', statefulSets: [], manifestErrors: [], notes: [],
    ...(refused > 0 ? { refusedRecords: Array.from({ length: refused }, (_, i) => ({ configMap: `sts-volume-gitops/r${i}`, statefulSet: 'db/pg', reason: 'no MAC' })) } : {}),
  },
  feedback: undefined, recovery: undefined, error: undefined, deferred: [], durationMs: 5, apiCalls: { github: 0, kubernetes: 3, pvcPatches: 0 },
});

describe('passMetrics', () => {
  it('counts the recreation records a pass refused', () => {
    assert.equal(passMetrics(run(2)).counts.RefusedRecreationRecords, 2);
    assert.equal(passMetrics(run(0)).counts.RefusedRecreationRecords, 0);
  });
});

describe('exitCodeOf', () => {
  it('is 1 when a pass refused a record, though every StatefulSet is fine', () => {
    const [refused, clean] = [run(1).report, run(0).report];
    assert.ok(refused && clean);
    assert.equal(exitCodeOf([refused]), 1);
    assert.equal(exitCodeOf([clean]), 0);
  });
});
