import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTarget, type TemplatePlan } from '../../functions/engine/plan/plan.ts';
import { reportFromPlan } from '../../functions/engine/report/pass-report.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { desiredSet, desiredTemplate, livePvc, pgWorld, quota, snapshot, liveSet, runningPod } from './builders.ts';

const allowAll = { allowedNamespaces: ['*'] };

function onlyTemplate(plans: ReturnType<typeof planTarget>): TemplatePlan {
  const template = plans[0]?.templates[0];
  assert.ok(template, 'expected one template plan');
  return template;
}

describe('planTarget', () => {
  it('plans a resize of the template and every replica PVC when Git grows the size', () => {
    const plan = onlyTemplate(planTarget([desiredSet()], pgWorld(), allowAll));
    assert.equal(plan.action, 'resize');
    assert.equal(plan.from?.text, '10Gi');
    assert.equal(plan.to.text, '20Gi');
    assert.equal(plan.templateNeedsUpdate, true);
    assert.deepEqual(plan.pvcsToPatch, ['data-pg-0', 'data-pg-1', 'data-pg-2']);
  });

  it('reports unchanged when the template and all PVCs already carry the size', () => {
    const world = pgWorld({ 0: { request: '20Gi' }, 1: { request: '20Gi' }, 2: { request: '20Gi' } }, { size: '20Gi' });
    const plan = onlyTemplate(planTarget([desiredSet()], world, allowAll));
    assert.equal(plan.action, 'unchanged');
    assert.deepEqual(plan.reasons, []);
  });

  it('keeps patching PVCs when the template is already updated but a replica lags (a crash between steps)', () => {
    const world = pgWorld({ 0: { request: '20Gi' } }, { size: '20Gi' });
    const plan = onlyTemplate(planTarget([desiredSet()], world, allowAll));
    assert.equal(plan.action, 'resize');
    assert.equal(plan.templateNeedsUpdate, false);
    assert.deepEqual(plan.pvcsToPatch, ['data-pg-1', 'data-pg-2']);
  });

  it('ignores PVCs of scaled-down replicas (ordinal >= replicas)', () => {
    const world = pgWorld({}, { replicas: 2 });
    world.namespaces.get('db')?.pvcs.push(livePvc('data-pg-5', { request: '1Gi' }));
    const plan = onlyTemplate(planTarget([desiredSet()], world, allowAll));
    assert.deepEqual(plan.pvcsToPatch, ['data-pg-0', 'data-pg-1']);
  });

  it('blocks lowering the size to the capacity of a PVC and names each PVC with its capacity', () => {
    const plan = onlyTemplate(planTarget([desiredSet({ templates: [desiredTemplate({ size: '10Gi' })] })],
      pgWorld({ 0: { request: '100Gi', capacity: '10Gi' }, 1: { request: '100Gi', capacity: '10Gi' }, 2: { request: '10Gi' } }, { size: '100Gi' }), allowAll));
    assert.equal(plan.action, 'blocked');
    assert.equal(plan.reasons[0]?.code, 'below-capacity');
    assert.match(plan.reasons[0]?.message ?? '', /data-pg-0 \(10Gi\), data-pg-1 \(10Gi\)/);
  });

  it('says a size without its unit as bytes, with the size probably meant, not as a shrink below capacity (issue 37 item 12)', () => {
    const plan = onlyTemplate(planTarget([desiredSet({ templates: [desiredTemplate({ size: '20' })] })], pgWorld(), allowAll));
    assert.equal(plan.action, 'blocked');
    assert.deepEqual(plan.reasons.map((r) => [r.code, r.message]), [['implausible-size', '20 is 20 bytes; did you mean 20Gi?']]);
    assert.deepEqual(plan.pvcsToPatch.length, 3, 'the PVCs it would have patched, none of them patched while blocked');
    const zero = onlyTemplate(planTarget([desiredSet({ templates: [desiredTemplate({ size: '0' })] })], pgWorld(), allowAll));
    assert.deepEqual(zero.reasons.map((r) => r.message), ['0 is zero bytes: a volume needs a size, with its unit (such as 20Gi)']);
  });

  it('shows capacities in binary units when the size in Git has no unit to follow (issue 37 item 12)', () => {
    const plan = onlyTemplate(planTarget([desiredSet({ templates: [desiredTemplate({ size: '2000000' })] })], pgWorld(), allowAll));
    assert.equal(plan.reasons[0]?.code, 'below-capacity');
    assert.match(plan.reasons[0]?.message ?? '', /^2000000 is not above the current capacity of data-pg-0 \(10Gi\), data-pg-1 \(10Gi\)/);
  });

  it('allows lowering a failed request to a size still above capacity (KEP-1790 recovery)', () => {
    const world = pgWorld({ 0: { request: '100Gi', capacity: '10Gi', resizeStatus: 'ControllerResizeInfeasible', allocated: '100Gi' } }, { size: '100Gi' });
    const plan = onlyTemplate(planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Gi' })] })], world, allowAll));
    assert.equal(plan.action, 'resize');
    assert.deepEqual(plan.pvcsToPatch, ['data-pg-0', 'data-pg-1', 'data-pg-2']);
  });

  it('blocks a change to anything but the storage request and shows the difference', () => {
    const template = desiredTemplate();
    template.templateWithoutStorage = {
      metadata: { name: 'data' },
      spec: { accessModes: ['ReadWriteMany'], storageClassName: 'standard', resources: { requests: {} } },
    };
    const plan = onlyTemplate(planTarget([desiredSet({ templates: [template] })], pgWorld(), allowAll));
    assert.equal(plan.action, 'blocked');
    assert.equal(plan.reasons[0]?.code, 'template-changed');
    assert.match(plan.reasons[0]?.message ?? '', /spec\.accessModes: \["ReadWriteOnce"\] in the cluster, \["ReadWriteMany"\] in Git/);
  });

  it('does not mistake server-filled defaults (apiVersion, kind, volumeMode, status) for a change', () => {
    const plan = onlyTemplate(planTarget([desiredSet()], pgWorld(), allowAll));
    assert.ok(!plan.reasons.some((r) => r.code === 'template-changed'));
  });

  it('blocks growth on a StorageClass without allowVolumeExpansion', () => {
    const world = pgWorld();
    const sts = world.namespaces.get('db')?.statefulSets[0];
    assert.ok(sts?.templates[0]);
    sts.templates[0].storageClassName = 'fixed';
    (sts.templates[0].templateWithoutStorage.spec as { storageClassName: string }).storageClassName = 'fixed';
    const plan = onlyTemplate(planTarget([desiredSet({ templates: [desiredTemplate({ storageClassName: 'fixed' })] })], world, allowAll));
    assert.equal(plan.action, 'blocked');
    assert.deepEqual(plan.reasons.map((r) => r.code), ['storage-class-not-expandable']);
  });

  it('blocks a StorageClass that does not exist', () => {
    const world = pgWorld();
    world.storageClasses.splice(0, world.storageClasses.length);
    const plan = onlyTemplate(planTarget([desiredSet()], world, allowAll));
    assert.deepEqual(plan.reasons.map((r) => r.code), ['storage-class-missing']);
  });

  it('names the StorageClass probably meant for one that does not exist, and says so in the plan, not "(expandable)" (issue 37 item 13)', () => {
    const typo = desiredSet({ templates: [desiredTemplate({ storageClassName: 'standrd' })] });
    const world = pgWorld();
    const plan = onlyTemplate(planTarget([typo], world, allowAll));
    assert.ok(plan.reasons.some((r) => r.code === 'storage-class-missing' && r.message === 'StorageClass standrd does not exist in the cluster; did you mean standard?'), JSON.stringify(plan.reasons));
    const report = reportFromPlan(planTarget([typo], world, allowAll)[0] ?? assert.fail('no plan'), 'c'.repeat(40));
    assert.match(renderPassReport({ target: 't', mode: 'plan', commitSha: 'c'.repeat(40), manifestErrors: [], notes: [], outcome: 'ok', statefulSets: [report] }), /\[standrd \(not in the cluster\)\]/);
    const comment = renderPlanComment({ target: 't', headSha: 'c'.repeat(40), links: { htmlBase: 'https://github.com', owner: 'a', repo: 'b' }, statefulSets: [report], errors: [] });
    assert.match(comment.markdown, /\| standrd \(not in the cluster\) \|/);
    assert.doesNotMatch(comment.markdown, /standrd \(expandable\)/);
  });

  it('blocks namespaces outside the allowlist without reading them', () => {
    const plans = planTarget([desiredSet()], snapshot([]), { allowedNamespaces: ['cache'] });
    assert.equal(plans[0]?.outcome, 'namespace-not-allowed');
    assert.equal(plans[0]?.templates[0]?.reasons[0]?.code, 'namespace-not-allowed');
  });

  it('reports a StatefulSet missing in the cluster and never plans to create it', () => {
    const plans = planTarget([desiredSet({ name: 'absent' })], pgWorld(), allowAll);
    assert.equal(plans[0]?.outcome, 'missing-in-cluster');
    assert.deepEqual(plans[0]?.templates, []);
  });

  it('blocks a template that exists in Git but not in the live StatefulSet', () => {
    const plans = planTarget([desiredSet({ templates: [desiredTemplate({ name: 'wal' })] })], pgWorld(), allowAll);
    assert.equal(plans[0]?.templates[0]?.reasons[0]?.code, 'template-not-in-cluster');
  });

  it('blocks every template of a set whose template list changed, even the one whose size alone changed', () => {
    const plans = planTarget([desiredSet({ templates: [desiredTemplate(), desiredTemplate({ name: 'wal', size: '5Gi' })] })], pgWorld(), allowAll);
    const [data, wal] = plans[0]?.templates ?? [];
    assert.equal(data?.action, 'blocked');
    assert.equal(data?.templateNeedsUpdate, false);
    assert.deepEqual(data?.pvcsToPatch, []);
    assert.equal(data?.reasons.at(-1)?.code, 'template-list-changed');
    assert.match(data?.reasons.at(-1)?.message ?? '', /^the volumeClaimTemplates in Git differ from the live list \(added wal\)/);
    assert.deepEqual(wal?.reasons.map((r) => r.code), ['template-not-in-cluster', 'template-list-changed']);
  });

  it('blocks a set whose Git manifest dropped a live template', () => {
    const world = pgWorld({}, { templateNames: ['data', 'wal'] });
    const plans = planTarget([desiredSet()], world, allowAll);
    assert.equal(plans[0]?.templates[0]?.action, 'blocked');
    assert.match(plans[0]?.templates[0]?.reasons.at(-1)?.message ?? '', /\(removed wal\)/);
  });

  it('blocks growth beyond ResourceQuota headroom, counting max(request, allocatedResources)', () => {
    const world = pgWorld({ 0: { request: '10Gi', allocated: '40Gi' } });
    world.namespaces.get('db')?.quotas.push(quota('storage', { 'requests.storage': '90Gi' }));
    // used = 40 + 10 + 10 = 60Gi; growth = (20-40 -> 0) + 10 + 10 = 20Gi; 80Gi fits in 90Gi.
    assert.equal(onlyTemplate(planTarget([desiredSet()], world, allowAll)).action, 'resize');
    world.namespaces.get('db')?.quotas.splice(0, 1, quota('storage', { 'requests.storage': '75Gi' }));
    const blocked = onlyTemplate(planTarget([desiredSet()], world, allowAll));
    assert.equal(blocked.action, 'blocked');
    assert.match(blocked.reasons[0]?.message ?? '', /needs 20Gi more requests.storage but ResourceQuota storage has 15Gi left/);
  });

  it('counts the per-class quota key only for PVCs of that class', () => {
    const world = pgWorld();
    world.namespaces.get('db')?.pvcs.push(livePvc('other', { request: '500Gi', storageClassName: 'fixed' }));
    world.namespaces.get('db')?.quotas.push(quota('per-class', { 'standard.storageclass.storage.k8s.io/requests.storage': '60Gi' }));
    assert.equal(onlyTemplate(planTarget([desiredSet()], world, allowAll)).action, 'resize');
    world.namespaces.get('db')?.quotas.splice(0, 1, quota('per-class', { 'standard.storageclass.storage.k8s.io/requests.storage': '59Gi' }));
    assert.equal(onlyTemplate(planTarget([desiredSet()], world, allowAll)).action, 'blocked');
  });

  it('shares quota headroom between resizes in the same namespace, first come first served', () => {
    const pg = liveSet();
    const mysql = liveSet({ name: 'mysql', updateRevision: 'mysql-rev1' });
    const world = snapshot([{
      namespace: 'db', statefulSets: [pg, mysql],
      pvcs: [0, 1, 2].flatMap((i) => [livePvc(`data-pg-${i}`), livePvc(`data-mysql-${i}`)]),
      pods: [0, 1, 2].flatMap((i) => [runningPod(`pg-${i}`), runningPod(`mysql-${i}`, 'mysql-rev1')]),
      quotas: [quota('storage', { 'requests.storage': '90Gi' })],
    }]);
    const plans = planTarget([desiredSet(), desiredSet({ name: 'mysql' })], world, allowAll);
    assert.equal(plans[0]?.templates[0]?.action, 'resize');
    assert.equal(plans[1]?.templates[0]?.action, 'blocked');
  });

  it('reports a dry-run rejection as the API server worded it', () => {
    const rejections = new Map([['db/data-pg-1', 'persistentvolumeclaims "data-pg-1" is forbidden: only dynamically provisioned pvc can be resized']]);
    const plan = onlyTemplate(planTarget([desiredSet()], pgWorld(), { ...allowAll, dryRunRejections: rejections }));
    assert.equal(plan.action, 'blocked');
    assert.match(plan.reasons[0]?.message ?? '', /dry run of the patch to data-pg-1 was rejected: persistentvolumeclaims "data-pg-1" is forbidden/);
  });
});

describe('planTarget: what the server does with a lowered request', () => {
  const lowering = (gitVersion: string, minor: number) => {
    const world = pgWorld({ 0: { request: '100Gi', capacity: '10Gi', resizeStatus: 'ControllerResizeInfeasible', allocated: '100Gi' } }, { size: '100Gi' });
    world.server = { major: 1, minor, gitVersion };
    return onlyTemplate(planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Gi' })] })], world, allowAll));
  };
  it('says that v1.26 accepts it only with the RecoverVolumeExpansionFailure gate (the dry run decides)', () => {
    const plan = lowering('v1.26.5', 26);
    assert.equal(plan.action, 'resize');
    assert.deepEqual(plan.serverNotes, ['lowering data-pg-0: v1.26.5 accepts it only with the RecoverVolumeExpansionFailure feature gate (alpha before 1.32); the dry run asks the server']);
  });
  it('says nothing on 1.34, where it is GA', () => {
    assert.equal(lowering('v1.34.9', 34).serverNotes, undefined);
  });
});
