// What a pass counts for in CloudWatch (pure): a refused recreation record has a metric of its own (issue 22), and the
// outcome and the failed and blocked counts are the pass's verdict, the one the CLI's exit code is (issue 30).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { maxRefusedRecordsListed, type PassReport } from '../../functions/engine/report/pass-report.ts';
import { exitCodeOf, passVerdict } from '../../functions/engine/report/pass-verdict.ts';
import { passMetrics } from '../../functions/lambda/pass-metrics.ts';

const run = (refused: number, extra: Partial<PassReport> = {}): TargetRun => ({
  target: 'prod',
  report: {
    target: 'prod', mode: 'apply', commitSha: 'c0ffee', outcome: 'ok', statefulSets: [], manifestErrors: [], notes: [],
    ...(refused > 0 ? { refusedRecords: Array.from({ length: refused }, (_, i) => ({ configMap: `sts-volume-gitops/r${i}`, statefulSet: 'db/pg', reason: 'no MAC' })) } : {}),
    ...extra,
  },
  feedback: undefined, recovery: undefined, error: undefined, deferred: [], durationMs: 5, apiCalls: { github: 0, kubernetes: 3, pvcPatches: 0 },
});

describe('passMetrics', () => {
  it('counts the recreation records a pass refused, and the pass is failed for them, as its exit code says', () => {
    assert.equal(passMetrics(run(2)).counts.RefusedRecreationRecords, 2);
    assert.equal(passMetrics(run(2)).outcome, 'failed');
    assert.equal(passMetrics(run(0)).counts.RefusedRecreationRecords, 0);
    assert.equal(passMetrics(run(0)).outcome, 'ok');
  });

  it('counts every refused record, those the report leaves out of its list too', () => {
    const flood = run(maxRefusedRecordsListed, { refusedRecordsLeftOut: 9980 });
    assert.equal(passMetrics(flood).counts.RefusedRecreationRecords, maxRefusedRecordsListed + 9980);
  });

  it('counts manifest errors, and the pass is blocked for them', () => {
    const metrics = passMetrics(run(0, { manifestErrors: [{ path: 'k8s/a.yaml', line: 1, column: 1, message: 'not YAML' }] }));
    assert.equal(metrics.counts.ManifestErrors, 1);
    assert.equal(metrics.outcome, 'blocked');
    assert.deepEqual(metrics.byReason, [], 'no StatefulSet is counted for a manifest');
  });

  it('counts paths that match no manifest as a manifest problem (its alarm fires), unless size sources are still read', () => {
    const none = (sizeSources: boolean) => passMetrics(run(0, { noManifests: { paths: ['k8s/**/*.yaml'], sizeSources, message: 'no file matches' } }));
    assert.equal(none(false).counts.ManifestErrors, 1);
    assert.equal(none(false).outcome, 'blocked');
    assert.equal(none(true).counts.ManifestErrors, 0, 'its mapped sizes are still applied: the pass is not blocked');
    assert.equal(none(true).outcome, 'ok');
  });

  it('counts the pull requests a pass opened and closed, in total and per proposal kind', () => {
    const withProposals: TargetRun = {
      ...run(0),
      recovery: {
        links: new Map(), writes: [], deferred: [],
        outcomes: [
          { key: 'db/pg/data', kind: 'size-recovery', action: 'opened', pullRequestUrl: 'https://github.test/o/r/pull/1', decision: undefined },
          { key: 'db/es/data', kind: 'class-recovery', action: 'closed', pullRequestUrl: 'https://github.test/o/r/pull/2', decision: undefined },
          { key: 'db/kafka/data', kind: 'size-recovery', action: 'updated', pullRequestUrl: 'https://github.test/o/r/pull/3', decision: undefined },
        ],
      },
    };
    const metrics = passMetrics(withProposals);
    assert.equal(metrics.counts.ProposalPullRequestsOpened, 1);
    assert.equal(metrics.counts.ProposalPullRequestsClosed, 1);
    assert.deepEqual(metrics.byKind, [
      { name: 'ProposalPullRequestsOpened', kind: 'size-recovery', value: 1 },
      { name: 'ProposalPullRequestsClosed', kind: 'class-recovery', value: 1 },
    ]);
    assert.deepEqual(passMetrics(run(0)).byKind, []);
  });

  it('counts the volumes near full that the pass read (0 when usage was not read)', () => {
    const read = run(0, { usage: { source: 'http://prometheus', at: '2026-11-28T08:00:00Z', queries: 5, outcome: 'read', templates: [], nearFull: 4 } });
    assert.equal(passMetrics(read).counts.VolumesNearFull, 4);
    assert.equal(passMetrics(run(0)).counts.VolumesNearFull, 0);
  });

  it('publishes a validation of one pull request (no branch pass) as ok, not failed', () => {
    assert.equal(passMetrics({ ...run(0), report: undefined }).outcome, 'ok');
    assert.equal(passMetrics({ ...run(0), report: undefined, error: 'unreachable' }).outcome, 'failed');
  });
});

describe('exitCodeOf', () => {
  it('is 1 when a pass refused a record, though every StatefulSet is fine', () => {
    assert.equal(exitCodeOf([passVerdict(run(1))]), 1);
    assert.equal(exitCodeOf([passVerdict(run(0))]), 0);
  });
});
