// The plan of a volumeAttributesClassName change in Git (KEP-3751): planned like a size, blocked with the rule that
// blocks it (the server, the class, its driver, a class-scoped quota, an emptied class).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { ClusterSnapshot, LiveVolumeAttributesClass } from '../../functions/domain/live-state.ts';
import { planTarget, type TemplatePlan } from '../../functions/engine/plan/plan.ts';
import { desiredSet, desiredTemplate, pgWorld, quota } from './builders.ts';

const allowAll = { allowedNamespaces: ['*'] };
const v134 = { major: 1, minor: 34, gitVersion: 'v1.34.9' };
const classes: LiveVolumeAttributesClass[] = [
  { name: 'silver', driverName: 'ebs.csi.aws.com', parameters: { type: 'gp3', iops: '3000' }, deleting: false },
  { name: 'gold', driverName: 'ebs.csi.aws.com', parameters: { type: 'gp3', iops: '6000', throughput: '500' }, deleting: false },
  { name: 'other-driver', driverName: 'pd.csi.storage.gke.io', parameters: {}, deleting: false },
];

/** db/pg, 3 replicas at 10Gi, template and PVCs in class silver, on a v1.34 server with the classes above. */
function silverWorld(change: (world: ClusterSnapshot) => void = () => undefined): ClusterSnapshot {
  const world = pgWorld(Object.fromEntries([0, 1, 2].map((i) => [i, { volumeAttributesClassName: 'silver', currentVolumeAttributesClassName: 'silver' }])));
  for (const template of world.namespaces.get('db')?.statefulSets[0]?.templates ?? []) template.volumeAttributesClassName = 'silver';
  for (const storageClass of world.storageClasses) storageClass.provisioner = 'ebs.csi.aws.com';
  world.server = v134;
  world.volumeAttributesClasses = structuredClone(classes);
  change(world);
  return world;
}

function planOf(world: ClusterSnapshot, size = '10Gi', className: string | null = 'gold'): TemplatePlan {
  const volumeAttributesClassName = className ?? undefined;
  const template = planTarget([desiredSet({ templates: [desiredTemplate({ size, volumeAttributesClassName })] })], world, allowAll)[0]?.templates[0];
  assert.ok(template);
  return template;
}

describe('planTarget: a volumeAttributesClassName change', () => {
  it('plans a class change alone like a resize: the template and every replica PVC, the size untouched', () => {
    const plan = planOf(silverWorld());
    assert.equal(plan.action, 'resize');
    assert.deepEqual(plan.reasons, []);
    assert.equal(plan.templateNeedsUpdate, true);
    assert.deepEqual(plan.pvcsToPatch, ['data-pg-0', 'data-pg-1', 'data-pg-2']);
    assert.deepEqual(plan.volumeAttributesClass, { from: 'silver', to: 'gold' });
  });

  it('plans a class change with a size change in one', () => {
    const plan = planOf(silverWorld(), '20Gi');
    assert.equal(plan.action, 'resize');
    assert.equal(plan.to.text, '20Gi');
    assert.deepEqual(plan.volumeAttributesClass, { from: 'silver', to: 'gold' });
  });

  it('is unchanged once the template and the PVCs ask for the class (the volumes may still be modifying)', () => {
    const plan = planOf(silverWorld((w) => {
      for (const t of w.namespaces.get('db')?.statefulSets[0]?.templates ?? []) t.volumeAttributesClassName = 'gold';
      for (const p of w.namespaces.get('db')?.pvcs ?? []) p.volumeAttributesClassName = 'gold';
    }));
    assert.equal(plan.action, 'unchanged');
    assert.equal(plan.volumeAttributesClass, undefined);
  });

  it('patches only the lagging PVC when the template already has the class (a crash between steps)', () => {
    const plan = planOf(silverWorld((w) => {
      for (const t of w.namespaces.get('db')?.statefulSets[0]?.templates ?? []) t.volumeAttributesClassName = 'gold';
      const pvcs = w.namespaces.get('db')?.pvcs ?? [];
      for (const p of pvcs.slice(0, 2)) p.volumeAttributesClassName = 'gold';
    }));
    assert.equal(plan.action, 'resize');
    assert.equal(plan.templateNeedsUpdate, false);
    assert.deepEqual(plan.pvcsToPatch, ['data-pg-2']);
  });

  it('does not apply the size rules to PVCs patched for their class alone (their capacity is the size)', () => {
    const plan = planOf(silverWorld((w) => {
      for (const s of w.storageClasses) s.allowVolumeExpansion = false;
    }));
    assert.equal(plan.action, 'resize', JSON.stringify(plan.reasons));
  });

  it('blocks a class that does not exist (the server would accept the name and leave the PVCs Pending)', () => {
    const plan = planOf(silverWorld(), '10Gi', 'platinum');
    assert.equal(plan.action, 'blocked');
    assert.equal(plan.reasons[0]?.code, 'volume-attributes-class-missing');
    assert.match(plan.reasons[0]?.message ?? '', /VolumeAttributesClass platinum does not exist in the cluster \(it has silver, gold, other-driver\)/);
  });

  it('blocks a class being deleted', () => {
    const plan = planOf(silverWorld((w) => { const gold = w.volumeAttributesClasses?.find((c) => c.name === 'gold'); if (gold) gold.deleting = true; }));
    assert.match(plan.reasons[0]?.message ?? '', /gold is being deleted/);
  });

  it('blocks a class of another driver than the StorageClass\'s', () => {
    const plan = planOf(silverWorld(), '10Gi', 'other-driver');
    assert.equal(plan.reasons[0]?.code, 'volume-attributes-class-driver-mismatch');
    assert.match(plan.reasons[0]?.message ?? '', /is for driver pd\.csi\.storage\.gke\.io, but StorageClass standard provisions with ebs\.csi\.aws\.com/);
  });

  it('blocks a class change on a server without VolumeAttributesClass, naming the version', () => {
    const plan = planOf(silverWorld((w) => { w.server = { major: 1, minor: 26, gitVersion: 'v1.26.5' }; delete w.volumeAttributesClasses; }));
    assert.equal(plan.reasons[0]?.code, 'volume-attributes-class-unsupported');
    assert.match(plan.reasons[0]?.message ?? '', /the API server is v1\.26\.5: VolumeAttributesClass needs Kubernetes 1\.34/);
  });

  it('blocks on a 1.31-1.33 server whose beta API is off (the class list was not served)', () => {
    const plan = planOf(silverWorld((w) => { w.server = { major: 1, minor: 32, gitVersion: 'v1.32.1' }; delete w.volumeAttributesClasses; }));
    assert.equal(plan.reasons[0]?.code, 'volume-attributes-class-unsupported');
    assert.match(plan.reasons[0]?.message ?? '', /\(v1\.32\.1\) does not serve VolumeAttributesClasses/);
  });

  it('blocks emptying the class (the server refuses it once the volume has one)', () => {
    const plan = planOf(silverWorld(), '10Gi', null);
    assert.equal(plan.action, 'blocked');
    assert.equal(plan.reasons[0]?.code, 'volume-attributes-class-removed');
    assert.match(plan.reasons[0]?.message ?? '', /update to empty string is forbidden/);
  });

  it('checks a quota scoped to the class: claims entering it count with their storage and as claims', () => {
    const scoped = (hard: Record<string, string>) => ({ ...quota('gold-only', hard), volumeAttributesClasses: ['gold'] });
    const fits = planOf(silverWorld((w) => { w.namespaces.get('db')?.quotas.push(scoped({ 'requests.storage': '30Gi', persistentvolumeclaims: '3' })); }));
    assert.equal(fits.action, 'resize', JSON.stringify(fits.reasons));
    assert.deepEqual(fits.quotaChecks.map((c) => [c.resource, c.usedBefore, c.growth, c.limit]),
      [['requests.storage', 0n, 30n * 2n ** 30n, 30n * 2n ** 30n], ['persistentvolumeclaims', 0n, 3n, 3n]]);
    const full = planOf(silverWorld((w) => { w.namespaces.get('db')?.quotas.push(scoped({ persistentvolumeclaims: '2' })); }));
    assert.equal(full.action, 'blocked');
    assert.match(full.reasons[0]?.message ?? '', /needs 3 more persistentvolumeclaims but ResourceQuota gold-only \(scoped to VolumeAttributesClass gold\) has 2 left/);
  });

  it('leaves a quota scoped to another class out, and out of the namespace-wide count', () => {
    const plan = planOf(silverWorld((w) => { w.namespaces.get('db')?.quotas.push({ ...quota('silver-only', { 'requests.storage': '1Gi' }), volumeAttributesClasses: ['silver'] }); }), '20Gi');
    assert.equal(plan.action, 'resize', JSON.stringify(plan.reasons));
  });
});
