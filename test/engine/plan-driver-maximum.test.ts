// The plan and a driver's stated maximum (issue 35): a change above what the template's driver said is blocked before
// it is applied, in the driver's words and with when it said them, whether a claim says it now or a pass remembered it;
// and volumes at that maximum can have Git back at their size without being patched (KEP-1790 forbids it).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { LiveStorageClass } from '../../functions/domain/live-state.ts';
import { planTarget, type PlanOptions } from '../../functions/engine/plan/plan.ts';
import { statusAnnotation } from '../../functions/engine/report/template-status.ts';
import { desiredSet, desiredTemplate, livePvc, liveSet, runningPod, snapshot } from './builders.ts';
import { recordedPvc, renamed } from '../support/csi-recordings.ts';

const classes: LiveStorageClass[] = [
  { name: 'csi-hostpath', allowVolumeExpansion: true, isDefault: true, provisioner: 'hostpath.csi.k8s.io' },
  { name: 'other', allowVolumeExpansion: true, isDefault: false, provisioner: 'ebs.csi.aws.com' },
];
const words = 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200';
const options: PlanOptions = { allowedNamespaces: ['*'], guardrails: { maxGrowthFactor: 1000 }, now: new Date('2026-11-26T00:00:00Z') };

/** db/web (2 replicas on csi-hostpath) whose claims stand as `claims` says; db/cache on the same driver, failed at 100Gi. */
function world(web: { size: string; claims: Parameters<typeof livePvc>[1]; className?: string; annotations?: Record<string, string> }) {
  const className = web.className ?? 'csi-hostpath';
  const set = liveSet({ name: 'web', replicas: 2, size: web.size, annotations: web.annotations ?? {} });
  const templates = set.templates.map((t) => ({ ...t, storageClassName: className, templateWithoutStorage: { ...t.templateWithoutStorage, spec: { ...t.templateWithoutStorage.spec as object, storageClassName: className } } }));
  const failed = renamed(recordedPvc('b/b-infeasible', '1626'), 'data-cache-0');
  return snapshot([{
    namespace: 'db',
    statefulSets: [{ ...set, templates }, liveSet({ name: 'cache', replicas: 1, size: '100Gi', uid: 'uid-cache' })],
    pvcs: [0, 1].map((i) => livePvc(`data-web-${i}`, { storageClassName: className, ...web.claims })).concat([{ ...failed, namespace: 'db', storageClassName: 'csi-hostpath' }]),
    pods: [runningPod('web-0', 'web-rev1'), runningPod('web-1', 'web-rev1')],
  }], classes);
}

function webPlan(size: string, w: ReturnType<typeof world>, planOptions = options, className = 'csi-hostpath') {
  const desired = desiredSet({ name: 'web', replicas: 2, templates: [desiredTemplate({ size, storageClassName: className })] });
  const [plan] = planTarget([desired], w, planOptions);
  const template = plan?.templates[0];
  assert.ok(template);
  return template;
}

describe('a change above the maximum the driver stated', () => {
  it('is blocked while a claim of that driver says it, quoting the driver, when and on which claim', () => {
    const template = webPlan('80Gi', world({ size: '10Gi', claims: { request: '10Gi' } }));
    assert.equal(template.action, 'blocked');
    assert.deepEqual(template.reasons.map((r) => r.code), ['above-driver-maximum']);
    assert.equal(template.reasons[0]?.message, `80Gi is above the driver's maximum, 50Gi: hostpath.csi.k8s.io said at 2026-11-25T20:51:14.000Z, of db/data-cache-0, `
      + `"${words}". The expansion would be refused as that one was, and a refused request cannot be taken back to the volume's size (KEP-1790). `
      + 'Ask for 50Gi at most, or raise the driver\'s maximum first (what it said is remembered until 2026-12-02T20:51:14.000Z, or until a volume of the driver is larger)');
  });

  it('lets a change up to the maximum through, and one on another driver', () => {
    assert.equal(webPlan('50Gi', world({ size: '10Gi', claims: { request: '10Gi' } })).action, 'resize');
    assert.equal(webPlan('80Gi', world({ size: '10Gi', claims: { request: '10Gi' }, className: 'other' }), options, 'other').action, 'resize');
  });

  it('is blocked from what a pass remembered on a status annotation once no claim says it, until it is a week old', () => {
    const remembered = { driver: 'hostpath.csi.k8s.io', bytes: '53687091200', words, saidAt: '2026-11-25T20:51:14.000Z', claim: 'db/data-web-0' };
    const annotations = { [statusAnnotation]: JSON.stringify([{ templateName: 'data', desiredSize: '50Gi', commitSha: 'c0ffee', replicas: 2, readyReplicas: 2, driverMaximum: remembered }]) };
    const w = world({ size: '50Gi', claims: { request: '50Gi' }, annotations });
    w.namespaces.get('db')!.pvcs = w.namespaces.get('db')!.pvcs.filter((p) => p.name !== 'data-cache-0');
    const template = webPlan('60Gi', w);
    assert.deepEqual(template.reasons.map((r) => r.code), ['above-driver-maximum']);
    assert.match(template.reasons[0]?.message ?? '', /The volumes have 50Gi already, so no larger size can succeed on this driver: keep 50Gi, or move the data to a StorageClass whose driver allows more/);
    assert.equal(webPlan('60Gi', w, { ...options, now: new Date('2026-12-03T00:00:00Z') }).action, 'resize', 'forgotten after a week');
    const edited = world({ size: '50Gi', claims: { request: '50Gi' }, annotations: { [statusAnnotation]: JSON.stringify([{ templateName: 'data', driverMaximum: { ...remembered, bytes: '5e10' } }]) } });
    edited.namespaces.get('db')!.pvcs = edited.namespaces.get('db')!.pvcs.filter((p) => p.name !== 'data-cache-0');
    assert.equal(webPlan('60Gi', edited).action, 'resize', 'a statement that is not whole is not read');
  });

  it('is not held against the failed change itself: its claims are reported as failed, and recovered', () => {
    const failing = { request: '100Gi', capacity: '10Gi', allocated: '100Gi', resizeStatus: 'ControllerResizeInfeasible',
      conditions: [{ type: 'ControllerResizeError', status: 'True', reason: undefined, message: words, lastTransitionTime: '2026-11-25T20:51:14Z' }] };
    const w = world({ size: '100Gi', claims: failing });
    assert.equal(webPlan('100Gi', w).action, 'unchanged');
    assert.equal(webPlan('50Gi', w).action, 'resize');
    assert.equal(webPlan('80Gi', w).action, 'blocked');
  });
});

describe('volumes at their driver\'s maximum, Git back at their size', () => {
  const leftAsking = {
    request: '60Gi', capacity: '50Gi', allocated: '60Gi', resizeStatus: 'ControllerResizeInfeasible',
    conditions: [{ type: 'ControllerResizeError', status: 'True', reason: undefined, message: words.replace('107374182400', '64424509440'), lastTransitionTime: '2026-11-25T21:00:00Z' }],
  };

  it('updates the template and patches no claim: a request cannot be lowered to its capacity (KEP-1790)', () => {
    const template = webPlan('50Gi', world({ size: '60Gi', claims: leftAsking }));
    assert.deepEqual([template.action, template.templateNeedsUpdate, template.pvcsToPatch, template.reasons], ['resize', true, [], []]);
  });

  it('still refuses a size below the volumes\' capacity', () => {
    assert.deepEqual(webPlan('40Gi', world({ size: '60Gi', claims: leftAsking })).reasons.map((r) => r.code), ['below-capacity']);
  });
});
