// A pass's verdict (issue 30 item 1): a resize that failed for good, a blocked set, a manifest error or a refused record
// make the pass `failed` or `blocked` with a reason per set, whatever `report.outcome` says of how far it got.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { maxRefusedRecordsListed, refusedRecordCount, refusedRecordsField, reportFromPlan, type PassReport, type StatefulSetReport } from '../../functions/engine/report/pass-report.ts';
import { exitCodeOf, passVerdict, statefulSetSeverity, statefulSetsWith } from '../../functions/engine/report/pass-verdict.ts';
import { desiredSet, desiredTemplate, pgWorld } from './builders.ts';

const allowAll = { allowedNamespaces: ['*'] };

function report(statefulSets: StatefulSetReport[], extra: Partial<PassReport> = {}): PassReport {
  return { target: 'prod', mode: 'apply', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...extra };
}

/** db/pg as a plan reports it: growing 10Gi -> `size` over three replicas. */
function pgReport(size: string): StatefulSetReport {
  const [plan] = planTarget([desiredSet({ templates: [desiredTemplate({ size })] })], pgWorld(), allowAll);
  assert.ok(plan);
  return reportFromPlan(plan, 'c0ffee');
}

/** pg with its replica-1 PVC failed terminally, on its size or its class. */
function failedPg(failedOn: 'size' | 'class'): StatefulSetReport {
  const sts = pgReport('20Gi');
  const template = sts.templates[0];
  assert.ok(template);
  return {
    ...sts, outcome: 'failed',
    templates: [{ ...template, pvcs: template.pvcs.map((p) => (p.ordinal === 1 ? { ...p, state: 'failed', terminal: true, message: 'exceeds maximum allowed', failedOn } : p)) }],
  };
}

const run = (r: PassReport | undefined, error?: string) => ({ target: 'prod', report: r, error });

describe('passVerdict', () => {
  it('finds a pass that completed with a resize failed for good failed, naming the set and the reason', () => {
    const verdict = passVerdict(run(report([pgReport('20Gi'), failedPg('size')])));
    assert.equal(verdict.outcome, 'failed', 'report.outcome is ok: the pass got everywhere, and a resize failed');
    assert.deepEqual(verdict.problems, [{ severity: 'failed', kind: 'statefulset', reason: 'expansion-failed', subject: 'db/pg', message: 'data-pg-1: exceeds maximum allowed' }]);
    assert.equal(statefulSetsWith(verdict, 'failed'), 1);
    assert.equal(passVerdict(run(report([failedPg('class')]))).problems[0]?.reason, 'class-modification-failed');
  });

  it('finds a read-only plan of a set whose volume cannot grow failed, as a pass that applies does (plan exits as reconcile)', () => {
    const infeasible = pgWorld({ 0: { request: '100Gi', capacity: '10Gi', resizeStatus: 'ControllerResizeInfeasible', allocated: '100Gi' } }, { size: '100Gi' });
    const [plan] = planTarget([desiredSet({ templates: [desiredTemplate({ size: '100Gi' })] })], infeasible, allowAll);
    assert.ok(plan);
    const sts = reportFromPlan(plan, 'c0ffee');
    assert.equal(sts.outcome, 'failed');
    assert.deepEqual(passVerdict(run(report([sts], { mode: 'plan' }))).problems.map((p) => [p.reason, p.subject]), [['expansion-failed', 'db/pg']]);
  });

  it('finds a set the plan blocks blocked, by the rule that blocks it (the plan\'s own code)', () => {
    const blocked = pgReport('500Gi'); // 50x the live size: past the default growth factor of 10
    assert.equal(blocked.outcome, 'blocked');
    const verdict = passVerdict(run(report([blocked])));
    assert.equal(verdict.outcome, 'blocked');
    assert.deepEqual(verdict.problems.map((p) => [p.severity, p.reason, p.subject]), [['blocked', 'growth-limit', 'db/pg']]);
    assert.match(verdict.problems[0]?.message ?? '', /^data: /);
  });

  it('counts a set once however many reasons block it, and each reason once', () => {
    const [plan] = planTarget([desiredSet({ namespace: 'elsewhere' })], pgWorld(), { allowedNamespaces: ['db'] });
    assert.ok(plan);
    const outside = reportFromPlan(plan, 'c0ffee');
    const twice = { ...outside, templates: [...outside.templates, ...outside.templates.map((t) => ({ ...t, templateName: 'logs' }))] };
    const verdict = passVerdict(run(report([twice])));
    assert.deepEqual(verdict.problems.map((p) => p.reason), ['namespace-not-allowed']);
    assert.equal(statefulSetsWith(verdict, 'blocked'), 1);
  });

  it('says failed before blocked, and blocked before how far the pass got', () => {
    const blockedAndFailed = report([pgReport('500Gi'), { ...failedPg('size'), name: 'pg2' }], { outcome: 'incomplete' });
    assert.equal(passVerdict(run(blockedAndFailed)).outcome, 'failed');
    assert.equal(passVerdict(run(report([pgReport('500Gi')], { outcome: 'incomplete' }))).outcome, 'blocked');
    assert.equal(passVerdict(run(report([pgReport('20Gi')], { outcome: 'incomplete' }))).outcome, 'incomplete');
    assert.equal(passVerdict(run(report([], { outcome: 'busy' }))).outcome, 'busy');
    assert.equal(passVerdict(run(report([pgReport('20Gi')]))).outcome, 'ok');
  });

  it('finds manifest errors blocked and refused records failed', () => {
    const withError = report([], { manifestErrors: [{ path: 'k8s/db/pg.yaml', line: 3, column: 1, message: 'bad indentation' }] });
    assert.deepEqual(passVerdict(run(withError)).problems.map((p) => [p.severity, p.kind, p.reason, p.subject]), [['blocked', 'manifest', 'manifest-error', 'k8s/db/pg.yaml:3']]);
    const refused = report([], { refusedRecords: [{ configMap: 'sts-volume-gitops/r', statefulSet: 'db/pg', reason: 'no MAC' }] });
    assert.deepEqual(passVerdict(run(refused)).problems.map((p) => [p.severity, p.reason, p.subject]), [['failed', 'record-refused', 'sts-volume-gitops/r']]);
  });

  it('lists at most the first refused records a flood leaves, and one problem saying how many more there are', () => {
    const refused = refusedRecordsField(Array.from({ length: 5000 }, (_, i) => ({ configMap: `sts-volume-gitops/r${i}`, statefulSet: 'db/pg', reason: 'no MAC' })));
    assert.equal(refused.refusedRecords?.length, maxRefusedRecordsListed);
    assert.equal(refused.refusedRecordsLeftOut, 5000 - maxRefusedRecordsListed);
    assert.equal(refusedRecordCount(refused), 5000);
    const problems = passVerdict(run(report([], refused))).problems;
    assert.equal(problems.length, maxRefusedRecordsListed + 1);
    assert.deepEqual(problems.slice(-2).map((p) => [p.severity, p.reason, p.subject, p.message]), [
      ['failed', 'record-refused', `sts-volume-gitops/r${maxRefusedRecordsListed - 1}`, 'db/pg: no MAC'],
      ['failed', 'record-refused', '4,980 more recreation records',
        '4,980 more recreation records refused, left out of the report, which lists the first 20: `kubectl get configmaps -n sts-volume-gitops` shows them all'],
    ]);
    // As many as the report lists, none is left out and the report has no count of the rest.
    assert.deepEqual(Object.keys(refusedRecordsField(refused.refusedRecords ?? [])), ['refusedRecords']);
    assert.deepEqual(refusedRecordsField([]), {});
  });

  it('finds a target that failed failed: before its pass, or in a GitHub step after it', () => {
    assert.deepEqual(passVerdict(run(undefined, 'cannot read kubeconfig')).problems.map((p) => [p.severity, p.reason, p.subject]), [['failed', 'pass-failed', 'prod']]);
    assert.equal(passVerdict(run(report([]), 'GitHub: 502')).problems[0]?.reason, 'github-step-failed');
  });

  it('finds a validation of one pull request (no branch pass, no error) ok', () => {
    assert.deepEqual(passVerdict(run(undefined)), { outcome: 'ok', problems: [] });
  });

  it('counts a set blocked while applied, by its own code, and an outcome without a finer reason under its name', () => {
    const keyless = { ...pgReport('20Gi'), outcome: 'blocked' as const, blockedBy: 'record-key-missing' as const, notes: ['set targets[].recordKey'] };
    assert.deepEqual(passVerdict(run(report([keyless]))).problems.map((p) => [p.reason, p.message]), [['record-key-missing', 'set targets[].recordKey']]);
    const bare = { ...pgReport('20Gi'), outcome: 'failed' as const };
    assert.deepEqual(passVerdict(run(report([bare]))).problems.map((p) => p.reason), ['failed']);
  });

  it('judges every StatefulSet outcome (a new one must be given its severity)', () => {
    assert.deepEqual(Object.entries(statefulSetSeverity).filter(([, s]) => s !== undefined).map(([o]) => o).sort(), ['blocked', 'failed', 'namespace-not-allowed', 'stalled']);
  });
});

describe('exitCodeOf', () => {
  it('is 1 when any run is blocked or failed, 0 when every run is ok, busy or incomplete', () => {
    const ok = passVerdict(run(report([])));
    assert.equal(exitCodeOf([ok, passVerdict(run(report([], { outcome: 'busy' })))]), 0);
    assert.equal(exitCodeOf([ok, passVerdict(run(report([failedPg('size')])))]), 1);
    assert.equal(exitCodeOf([passVerdict(run(report([pgReport('500Gi')])))]), 1);
    assert.equal(exitCodeOf([passVerdict(run(undefined, 'unreachable'))]), 1);
  });
});
