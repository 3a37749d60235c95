// The cost of a change where people read a plan: the pull request's status and comment, and the CLI's plan output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { costSummary, reportFromPlan, type PassReport } from '../../functions/engine/run-pass.ts';
import { planTarget } from '../../functions/engine/plan.ts';
import { planAnnotations } from '../../functions/feedback/render-check-run.ts';
import { renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { desiredSet, desiredTemplate, livePvc, liveSet, pgWorld, runningPod } from '../engine/builders.ts';

const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };

function reports(): PassReport['statefulSets'] {
  const world = pgWorld();
  const db = world.namespaces.get('db');
  db?.statefulSets.push(liveSet({ name: 'cache', replicas: 2, uid: 'uid-cache' }));
  db?.pvcs.push(livePvc('data-cache-0'), livePvc('data-cache-1'));
  db?.pods.push(runningPod('cache-0', 'cache-rev1'), runningPod('cache-1', 'cache-rev1'));
  const cache = desiredSet({ name: 'cache', replicas: 2, templates: [desiredTemplate({ size: '15Gi' })] });
  const plans = planTarget([desiredSet(), cache], world, { allowedNamespaces: ['*'], prices: { currency: 'EUR', perGiBMonth: { standard: 0.1 } } });
  return plans.map((p) => reportFromPlan(p, 'c0ffee'));
}

describe('the cost of a change, rendered', () => {
  it('puts the monthly increase per StatefulSet and in total in the plan comment and the status', () => {
    const summary = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets: reports(), errors: [] });
    assert.equal(summary.state, 'success');
    assert.match(summary.description, /; \+4\.00 EUR a month$/);
    assert.match(summary.markdown, /\n\*\*Storage cost:\*\* \\\+4\.00 EUR a month \\\(db\/pg \\\+3\.00 EUR; db\/cache \\\+1\.00 EUR\\\)\n/);
  });

  it('shows each template\'s cost and each StatefulSet\'s in the CLI plan, and the total under the summary', () => {
    const statefulSets = reports();
    const cost = costSummary(statefulSets);
    const text = renderPassReport({ target: 'prod', mode: 'plan', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...(cost ? { cost } : {}) });
    assert.match(text, /~ db\/pg \(OrderedReady, 3 replicas\): will resize, \+3\.00 EUR a month\n\s+data: 10Gi -> 20Gi \[standard\] 0\/3 done {2}\(k8s\/db\/pg\.yaml:30\)\n\s+cost: \+3\.00 EUR a month \(30Gi more on standard at 0\.1 EUR per GiB-month\)/);
    assert.match(text, /storage cost of the resizes: \+4\.00 EUR a month$/);
  });

  it('says which classes have no price instead of counting them as free', () => {
    const world = pgWorld();
    const plans = planTarget([desiredSet()], world, { allowedNamespaces: ['*'], prices: { currency: 'USD', perGiBMonth: { gp3: 0.08 } } });
    const statefulSets = plans.map((p) => reportFromPlan(p, 'c0ffee'));
    const summary = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets, errors: [] });
    assert.match(summary.markdown, /\\\+0\.00 USD a month \\\(db\/pg \\\+0\.00 USD\\\); not counted: no price for StorageClass standard/);
    assert.match(summary.description, /; \+0\.00 USD a month \(no price for standard\)$/);
    const cost = costSummary(statefulSets);
    const text = renderPassReport({ target: 'prod', mode: 'plan', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...(cost ? { cost } : {}) });
    assert.match(text, /cost: 30Gi more on standard, no price for the class in prices\.perGiBMonth/);
  });

  it('says a recovery grows the volumes from their capacity while its request goes down, in the comment, the check and the CLI', () => {
    const failed = { request: '100Gi', capacity: '20Gi', resizeStatus: 'ControllerResizeInfeasible', allocated: '100Gi' };
    const world = pgWorld({ 0: failed, 1: failed, 2: failed }, { size: '100Gi' });
    const plans = planTarget([desiredSet({ templates: [desiredTemplate({ size: '50Gi' })] })], world, { allowedNamespaces: ['*'], prices: { currency: 'USD', perGiBMonth: { standard: 0.125 } } });
    const statefulSets = plans.map((p) => reportFromPlan(p, 'c0ffee'));
    const summary = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets, errors: [] });
    assert.equal(summary.description, 'db/pg: 3 PVCs grow 20Gi → 50Gi (request lowered from 100Gi); +11.25 USD a month');
    assert.match(summary.markdown, /\| 3 \| 100Gi → 50Gi<br>volumes 20Gi → 50Gi \| standard \(expandable\) \|/);
    const [annotation] = planAnnotations(statefulSets, []);
    assert.equal(annotation?.message, '20Gi → 50Gi on 3 PVCs (StorageClass standard), +11.25 USD a month; request lowered from 100Gi');
    const cost = costSummary(statefulSets);
    const text = renderPassReport({ target: 'prod', mode: 'plan', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...(cost ? { cost } : {}) });
    assert.match(text, /\n {6}data: 20Gi -> 50Gi \(request lowered from 100Gi\) \[standard\]/);
  });

  it('keeps the words of an ordinary resize: from the live size, with its cost on the annotation', () => {
    const statefulSets = reports();
    const annotations = planAnnotations(statefulSets, []);
    assert.equal(annotations[0]?.message, '10Gi → 20Gi on 3 PVCs (StorageClass standard), +3.00 EUR a month');
    assert.doesNotMatch(renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets, errors: [] }).markdown, /volumes|request lowered/);
  });
});
