// The cost of a change where people read a plan: the pull request's status and comment, and the CLI's plan output.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { costSummary, reportFromPlan, type PassReport } from '../../functions/engine/run-pass.ts';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { planAnnotations } from '../../functions/feedback/render-check-run.ts';
import { renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { desiredSet, desiredTemplate, livePvc, liveSet, pgWorld, q, runningPod } from '../engine/builders.ts';

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

  it('says a class change alone as the class change, with no size arrow and no cost: the class recovery, in the comment, the check and the CLI', () => {
    // The driver refused `extreme`: the claims ask for it, the volumes stay in `gold`; the recovery asks for `gold` back.
    const refused = { volumeAttributesClassName: 'extreme', currentVolumeAttributesClassName: 'gold', modifyVolumeStatus: { status: 'Infeasible', targetVolumeAttributesClassName: 'extreme' } };
    const world = pgWorld({ 0: refused, 1: refused, 2: refused }, { size: '30Gi' });
    for (const pvc of world.namespaces.get('db')?.pvcs ?? []) Object.assign(pvc, { request: q('30Gi'), capacity: q('30Gi') });
    world.server = { major: 1, minor: 34, gitVersion: 'v1.34.9' };
    world.volumeAttributesClasses = ['gold', 'extreme'].map((name) => ({ name, driverName: 'ebs.csi.aws.com', parameters: {}, deleting: false }));
    const live = world.namespaces.get('db')?.statefulSets[0]?.templates[0];
    assert.ok(live);
    live.volumeAttributesClassName = 'extreme';
    const desired = desiredSet({ templates: [desiredTemplate({ size: '30Gi', volumeAttributesClassName: 'gold' })] });
    const plans = planTarget([desired], world, { allowedNamespaces: ['*'], prices: { currency: 'USD', perGiBMonth: { standard: 0.1 } } });
    const statefulSets = plans.map((p) => reportFromPlan(p, 'c0ffee'));
    assert.equal(statefulSets[0]?.templates[0]?.action, 'resize', JSON.stringify(statefulSets[0]?.templates[0]?.reasons));
    const summary = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets, errors: [] });
    assert.equal(summary.description, 'db/pg: 3 PVCs class extreme → gold');
    assert.match(summary.markdown, /\| db\/pg \| data \| 3 \| class extreme → gold \| standard \(expandable\) \|/);
    assert.doesNotMatch(summary.markdown, /30Gi → 30Gi|Storage cost|0\.00/);
    const [annotation] = planAnnotations(statefulSets, []);
    assert.equal(annotation?.message, 'VolumeAttributesClass extreme → gold on 3 PVCs (StorageClass standard)');
    const cost = costSummary(statefulSets);
    assert.equal(cost, undefined, 'a class change adds no storage to pay for');
    const text = renderPassReport({ target: 'prod', mode: 'plan', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...(cost ? { cost } : {}) });
    assert.match(text, /~ db\/pg \(OrderedReady, 3 replicas\): will change class\n {6}data: 30Gi, class extreme -> gold \[standard\] 0\/3 done/);
    assert.doesNotMatch(text, /cost|0\.00/);
  });

  it('says a template that only catches up with its volumes (an autoscaler\'s size written back) as that: nothing grows, no cost, in the status, comment, check and CLI', () => {
    // The live template still asks for 20Gi; an autoscaler already grew every volume to 30Gi; Git now says 30Gi.
    const grown = { request: '30Gi', capacity: '30Gi' };
    const world = pgWorld({ 0: grown, 1: grown, 2: grown }, { size: '20Gi' });
    const plans = planTarget([desiredSet({ templates: [desiredTemplate({ size: '30Gi' })] })], world, { allowedNamespaces: ['*'], prices: { currency: 'USD', perGiBMonth: { standard: 0.1 } } });
    const statefulSets = plans.map((p) => reportFromPlan(p, 'c0ffee'));
    assert.equal(statefulSets[0]?.templates[0]?.action, 'resize', JSON.stringify(statefulSets[0]?.templates[0]?.reasons));
    const summary = renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets, errors: [] });
    assert.equal(summary.description, 'db/pg: the template catches up with its volumes, already 30Gi: nothing grows, no cost');
    assert.match(summary.markdown, /\| db\/pg \| data \| 3 \| 20Gi → 30Gi<br>volumes already 30Gi \| standard \(expandable\) \| no quota \| ✅ will update the template \|/);
    assert.doesNotMatch(summary.markdown, /30Gi → 30Gi|Storage cost|0\.00|request raised/);
    const [annotation] = planAnnotations(statefulSets, []);
    assert.equal(annotation?.title, 'db/pg data: will update the template');
    assert.equal(annotation?.message, '20Gi → 30Gi (the template catches up with its volumes, already 30Gi: nothing grows, no cost)');
    const cost = costSummary(statefulSets);
    assert.equal(cost, undefined, 'nothing grows, so nothing is added to the bill');
    const text = renderPassReport({ target: 'prod', mode: 'plan', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...(cost ? { cost } : {}) });
    assert.match(text, /\n {6}data: 20Gi -> 30Gi \(the template catches up with its volumes, already 30Gi: nothing grows, no cost\) \[standard\] 3\/3 done/);
    assert.doesNotMatch(text, /30Gi -> 30Gi|cost:|0\.00|request raised/);
  });

  it('still prices a template raised beyond what some volumes have: only a template every volume already matches catches up', () => {
    const world = pgWorld({ 0: { request: '30Gi', capacity: '30Gi' } }, { size: '20Gi' });
    for (const [index, pvc] of (world.namespaces.get('db')?.pvcs ?? []).entries()) if (index > 0) Object.assign(pvc, { request: q('20Gi'), capacity: q('20Gi') });
    const plans = planTarget([desiredSet({ templates: [desiredTemplate({ size: '30Gi' })] })], world, { allowedNamespaces: ['*'], prices: { currency: 'USD', perGiBMonth: { standard: 0.1 } } });
    const statefulSets = plans.map((p) => reportFromPlan(p, 'c0ffee'));
    assert.equal(statefulSets[0]?.templates[0]?.catchesUp, undefined);
    assert.equal(renderPlanComment({ target: 'prod', headSha: 'b'.repeat(40), links, statefulSets, errors: [] }).description, 'db/pg: 3 PVCs grow 20Gi–30Gi → 30Gi (request raised from 20Gi); +2.00 USD a month');
  });
});
