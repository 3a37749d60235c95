// The plan's guardrails (issue 22 items 2-3, issue 24 item 3): size limits, sets another controller owns, the cost of
// a change. Pure: planTarget over builders' data.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { SizeSourceConfig } from '../../functions/domain/config.ts';
import type { ControllerOwner } from '../../functions/domain/live-state.ts';
import { planTarget, type PlanOptions, type TemplatePlan } from '../../functions/engine/plan/plan.ts';
import { costSummary, reportFromPlan } from '../../functions/engine/report/pass-report.ts';
import { desiredSet, desiredTemplate, livePvc, pgWorld } from './builders.ts';

const allowAll: PlanOptions = { allowedNamespaces: ['*'] };

function planOf(size: string, options: Partial<PlanOptions> = {}, world = pgWorld(), sizedBy?: SizeSourceConfig[]): TemplatePlan {
  const desired = desiredSet({ templates: [desiredTemplate({ size })], ...(sizedBy ? { sizedBy } : {}) });
  const template = planTarget([desired], world, { ...allowAll, ...options })[0]?.templates[0];
  assert.ok(template);
  return template;
}

const source = (extra: Partial<SizeSourceConfig> = {}): SizeSourceConfig => ({
  file: 'apps/pg/values.yaml', path: 'primary.persistence.size', statefulSet: 'db/pg', template: 'data', ...extra,
});

describe('size guardrails', () => {
  it('blocks 7Ei from 10Gi by the default growth factor, naming the value, the limit and how to raise it', () => {
    const plan = planOf('7Ei');
    assert.equal(plan.action, 'blocked');
    assert.deepEqual(plan.reasons.map((r) => r.code), ['growth-limit']);
    assert.equal(plan.reasons[0]?.message, '7Ei is 751,619,276.8x the current size 10Gi, more than the 5x allowed in one change '
      + '(guardrails.maxGrowthFactor, the default); an expansion cannot be undone, so check the value first; if it is meant, '
      + 'raise guardrails.maxGrowthFactor in the target\'s configuration');
  });

  it('allows a 5x jump by default and blocks what is beyond it, the extra-zero typo among them (issue 37 item 18)', () => {
    assert.equal(planOf('50Gi').action, 'resize');
    assert.deepEqual(planOf('51Gi').reasons.map((r) => r.code), ['growth-limit']);
    // 10Gi -> 100Gi: an extra zero, exactly 10x, which a default of 10 let through.
    assert.match(planOf('100Gi').reasons[0]?.message ?? '', /^100Gi is 10x the current size 10Gi, more than the 5x allowed in one change \(guardrails\.maxGrowthFactor, the default\)/);
    assert.equal(planOf('100Gi', { guardrails: { maxGrowthFactor: 10 } }).action, 'resize', 'a 10x growth meant is set on purpose');
    assert.equal(planOf('25Gi', { guardrails: { maxGrowthFactor: 2.5 } }).action, 'resize');
    assert.match(planOf('26Gi', { guardrails: { maxGrowthFactor: 2.5 } }).reasons[0]?.message ?? '', /2\.6x the current size 10Gi, more than the 2\.5x .*set on the target/);
  });

  it('blocks a size above the target\'s maxSize; a size source may raise it for its own template', () => {
    const blocked = planOf('45Gi', { guardrails: { maxSize: '30Gi' } });
    assert.deepEqual(blocked.reasons.map((r) => r.code), ['size-limit']);
    assert.match(blocked.reasons[0]?.message ?? '', /^45Gi is above the largest size allowed, 30Gi \(guardrails\.maxSize, set on the target\)/);
    const mapped = planOf('45Gi', { guardrails: { maxSize: '30Gi' } }, pgWorld(), [source()]);
    assert.match(mapped.reasons[0]?.message ?? '', /raise guardrails\.maxSize on the target, or on the template's size source for this template alone$/);
    assert.equal(planOf('45Gi', { guardrails: { maxSize: '30Gi' } }, pgWorld(), [source({ guardrails: { maxSize: '100Gi' } })]).action, 'resize');
    const recovering = pgWorld({ 0: { request: '100Gi', capacity: '10Gi', resizeStatus: 'ControllerResizeInfeasible', allocated: '100Gi' } }, { size: '100Gi' });
    assert.equal(planOf('60Gi', { guardrails: { maxSize: '50Gi' } }, recovering).action, 'resize', 'lowering a failed request is never held back');
    const lowered = planOf('40Gi', {}, pgWorld(), [source({ guardrails: { maxSize: '30Gi' } })]);
    assert.match(lowered.reasons[0]?.message ?? '', /set on the size source\); .* raise guardrails\.maxSize on the template's size source$/);
  });

  it('measures growth from the largest of the live template and its PVCs (an operator\'s template may lag its grown PVCs)', () => {
    const grown = pgWorld({ 0: { request: '100Gi' }, 1: { request: '100Gi' }, 2: { request: '100Gi' } });
    assert.equal(planOf('150Gi', {}, grown).action, 'resize', '1.5x the PVCs, though 15x the 10Gi template');
    assert.match(planOf('501Gi', {}, grown).reasons[0]?.message ?? '', /5\.01x the current size 100Gi, more than the 5x allowed/);
  });

  it('fails closed when the current size is unknown: 7Ei is blocked, saying to set maxSize, and maxSize then bounds it', () => {
    // A live template with no readable storage request and no PVC yet: nothing to measure a growth factor from.
    const unknownSize = (): ReturnType<typeof pgWorld> => {
      const world = pgWorld();
      const db = world.namespaces.get('db');
      assert.ok(db);
      db.pvcs.length = 0;
      db.statefulSets = db.statefulSets.map((set) => ({ ...set, templates: set.templates.map((t) => ({ ...t, storage: undefined })) }));
      return world;
    };
    const plan = planOf('7Ei', {}, unknownSize());
    assert.equal(plan.action, 'blocked');
    assert.deepEqual(plan.reasons.map((r) => r.code), ['growth-unknown']);
    assert.equal(plan.reasons[0]?.message, '7Ei: the template\'s current size is unknown (its live template has no readable '
      + 'storage request and none of its PVCs exists), so the growth cannot be held against the 5x allowed in one change (guardrails.maxGrowthFactor, '
      + 'the default); set guardrails.maxSize in the target\'s configuration to bound the new size (an expansion cannot be undone), and the change is held against it instead');
    const mapped = planOf('7Ei', { guardrails: { maxGrowthFactor: 3 } }, unknownSize(), [source()]);
    assert.match(mapped.reasons[0]?.message ?? '', /the 3x allowed in one change \(guardrails\.maxGrowthFactor, set on the target\); set guardrails\.maxSize on the target, or on the template's size source for this template alone/);
    // With maxSize set (on the target or the size source), the size is bounded by it instead.
    assert.deepEqual(planOf('7Ei', { guardrails: { maxSize: '1Ti' } }, unknownSize()).reasons.map((r) => r.code), ['size-limit']);
    assert.equal(planOf('20Gi', { guardrails: { maxSize: '1Ti' } }, unknownSize()).action, 'resize');
    assert.equal(planOf('20Gi', {}, unknownSize(), [source({ guardrails: { maxSize: '100Gi' } })]).action, 'resize');
  });

  it('says the value and the caution once when several limits hold a change back, with grouped amounts (issue 30 item 9)', () => {
    const plan = planOf('2000Ti', { guardrails: { maxSize: '4Ti', maxMonthlyIncrease: 500 }, prices: { currency: 'USD', perGiBMonth: { standard: 0.125 } } });
    assert.deepEqual(plan.reasons.map((r) => r.code), ['size-limit', 'growth-limit', 'cost-limit']);
    assert.deepEqual(plan.reasons.map((r) => r.message), [
      '2000Ti is above the largest size allowed, 4Ti (guardrails.maxSize, set on the target); an expansion cannot be undone, '
        + 'so check the value first; if it is meant, raise guardrails.maxSize in the target\'s configuration',
      'it is 204,800x the current size 10Gi, more than the 5x allowed in one change (guardrails.maxGrowthFactor, the default); '
        + 'raise guardrails.maxGrowthFactor in the target\'s configuration',
      'it adds +767,996.25 USD a month (6,143,970Gi more on standard at 0.125 USD per GiB-month), more than the +500.00 USD allowed '
        + '(guardrails.maxMonthlyIncrease, set on the target); raise guardrails.maxMonthlyIncrease in the target\'s configuration',
    ]);
  });

  it('leaves a set that is already at its size alone, whatever the limits say', () => {
    const world = pgWorld({ 0: { request: '7Ei' }, 1: { request: '7Ei' }, 2: { request: '7Ei' } }, { size: '7Ei' });
    const plan = planOf('7Ei', { guardrails: { maxSize: '1Ti' } }, world);
    assert.equal(plan.action, 'unchanged');
    assert.deepEqual(plan.reasons, []);
  });
});

describe('the cost of a change', () => {
  const prices = { currency: 'USD', perGiBMonth: { standard: 0.1 } };

  it('is the growth of every replica times the class\'s price, counting what is already grown as grown', () => {
    assert.equal(planOf('20Gi', { prices }).cost?.monthlyIncrease, 3);
    const world = pgWorld({ 0: { request: '20Gi', capacity: '10Gi' } });
    world.namespaces.get('db')?.pvcs.pop(); // replica 2 has no PVC yet: it will be made from the template, 10Gi today
    assert.equal(planOf('20Gi', { prices }, world).cost?.monthlyIncrease, 2);
    assert.equal(planOf('20Gi').cost, undefined, 'no prices, no cost');
  });

  it('blocks a change above maxMonthlyIncrease, and one whose class has no price to check it with', () => {
    const over = planOf('50Gi', { prices, guardrails: { maxMonthlyIncrease: 10 } });
    assert.deepEqual(over.reasons.map((r) => r.code), ['cost-limit']);
    assert.match(over.reasons[0]?.message ?? '', /^50Gi adds \+12\.00 USD a month \(120Gi more on standard at 0\.1 USD per GiB-month\), more than the \+10\.00 USD allowed/);
    assert.equal(planOf('40Gi', { prices, guardrails: { maxMonthlyIncrease: 9 } }).action, 'resize');
    const unpriced = planOf('20Gi', { prices: { currency: 'EUR', perGiBMonth: { fast: 0.2 } }, guardrails: { maxMonthlyIncrease: 100 } });
    assert.deepEqual(unpriced.reasons.map((r) => r.code), ['cost-unknown']);
    assert.match(unpriced.reasons[0]?.message ?? '', /StorageClass standard has no price in prices\.perGiBMonth/);
  });

  it('blocks a change under maxMonthlyIncrease when no prices are given at all (the config refuses that; the engine fails closed too)', () => {
    const plan = planOf('20Gi', { guardrails: { maxMonthlyIncrease: 100 } });
    assert.deepEqual(plan.reasons.map((r) => r.code), ['cost-unknown']);
    assert.match(plan.reasons[0]?.message ?? '', /^20Gi: no prices are configured, .* add prices\.perGiBMonth for its StorageClass$/);
  });

  it('counts a lowered failed request from the volumes\' capacity, and does not hold it back (KEP-1790)', () => {
    const failed = { request: '100Gi', capacity: '20Gi', resizeStatus: 'ControllerResizeInfeasible', allocated: '100Gi' };
    const recovering = pgWorld({ 0: failed, 1: failed, 2: failed }, { size: '100Gi' });
    const plan = planOf('50Gi', { prices, guardrails: { maxMonthlyIncrease: 5 } }, recovering);
    assert.equal(plan.cost?.monthlyIncrease, 9, '3 volumes grow 20Gi -> 50Gi at 0.1 USD/GiB-month');
    assert.equal(plan.action, 'resize', 'it asks for less than the 100Gi that was let through');
    const report = reportFromPlan(planTarget([desiredSet({ templates: [desiredTemplate({ size: '50Gi' })] })], recovering, { ...allowAll, prices })[0]!, 'c0ffee');
    assert.deepEqual([report.templates[0]?.from, report.templates[0]?.volumesFrom], ['100Gi', '20Gi']);
    assert.equal(reportFromPlan(planTarget([desiredSet()], pgWorld(), allowAll)[0]!, 'c0ffee').templates[0]?.volumesFrom, undefined, 'volumes at the live size');
  });

  it('is summed per StatefulSet and in total over the resizes, leaving blocked ones out and naming unpriced classes', () => {
    const world = pgWorld();
    world.namespaces.get('db')?.statefulSets.push({ ...world.namespaces.get('db')!.statefulSets[0]!, name: 'big', uid: 'uid-2' });
    for (const ordinal of [0, 1, 2]) world.namespaces.get('db')?.pvcs.push(livePvc(`data-big-${ordinal}`));
    const plans = planTarget([desiredSet(), desiredSet({ name: 'big', templates: [desiredTemplate({ size: '1Ti' })] })], world, { ...allowAll, prices });
    const summary = costSummary(plans.map((p) => reportFromPlan(p, 'c0ffee')));
    assert.deepEqual(summary, {
      currency: 'USD', monthlyIncrease: 3, unpricedClasses: [],
      statefulSets: [{ namespace: 'db', name: 'pg', currency: 'USD', monthlyIncrease: 3, unpricedClasses: [] }],
    }, 'db/big is blocked (102.4x): it resizes nothing, so it costs nothing yet');
    assert.equal(reportFromPlan(plans[1]!, 'c0ffee').templates[0]?.cost?.monthlyIncrease, 304.2, 'the blocked change still shows what it would cost');
  });
});

describe('StatefulSets another controller owns', () => {
  const prometheus: ControllerOwner = { apiVersion: 'monitoring.coreos.com/v1', kind: 'Prometheus', name: 'kube-prometheus-stack-prometheus', uid: 'uid-prom' };
  const owned = (pvcs: Parameters<typeof pgWorld>[0] = {}): ReturnType<typeof pgWorld> => pgWorld(pvcs, { controllerOwner: prometheus });

  it('blocks a change to one by default, naming the owner', () => {
    const plan = planOf('20Gi', {}, owned());
    assert.equal(plan.action, 'blocked');
    assert.deepEqual(plan.reasons.map((r) => r.code), ['controlled-by-owner']);
    assert.match(plan.reasons[0]?.message ?? '', /^the StatefulSet is controlled by Prometheus kube-prometheus-stack-prometheus \(monitoring\.coreos\.com\/v1\): its operator writes it/);
    assert.match(plan.reasons[0]?.message ?? '', /declare it on the size source \(ownedBy: \{ kind: Prometheus \}\)/);
    assert.equal(planOf('10Gi', {}, owned()).action, 'unchanged', 'no change, no block');
  });

  it('grows only the PVCs when a size source declares the owner, and never asks for the template', () => {
    const plans = planTarget([desiredSet({ sizedBy: [source({ ownedBy: { kind: 'Prometheus', group: 'monitoring.coreos.com' } })] })], owned(), allowAll);
    const template = plans[0]?.templates[0];
    assert.equal(template?.action, 'resize');
    assert.equal(template?.templateNeedsUpdate, false);
    assert.deepEqual(template?.pvcsToPatch, ['data-pg-0', 'data-pg-1', 'data-pg-2']);
    assert.deepEqual(plans[0]?.templateOwner, prometheus);
    assert.match(reportFromPlan(plans[0], 'c0ffee').notes[0] ?? '', /^written by its operator \(Prometheus kube-prometheus-stack-prometheus/);
    const grown = owned({ 0: { request: '20Gi' }, 1: { request: '20Gi' }, 2: { request: '20Gi' } });
    assert.equal(planOf('20Gi', {}, grown, [source({ ownedBy: { kind: 'Prometheus' } })]).action, 'unchanged', 'the live template is the operator\'s to bring up');
  });

  it('blocks a declaration the live set contradicts', () => {
    const otherKind = planOf('20Gi', {}, owned(), [source({ ownedBy: { kind: 'Alertmanager' } })]);
    assert.deepEqual(otherKind.reasons.map((r) => r.code), ['owner-mismatch']);
    assert.match(otherKind.reasons[0]?.message ?? '', /written from a resource of kind Alertmanager, but it is controlled by Prometheus/);
    assert.equal(planOf('20Gi', {}, owned(), [source({ ownedBy: { kind: 'Prometheus', group: 'example.com' } })]).reasons[0]?.code, 'owner-mismatch');
    const free = planOf('20Gi', {}, pgWorld(), [source({ ownedBy: { kind: 'Prometheus' } })]);
    assert.match(free.reasons[0]?.message ?? '', /the live StatefulSet has no controller ownerReference; remove ownedBy/);
  });
});
