// A volumeAttributesClassName change in Git (KEP-3751), end to end: the real client-node adapter against the
// Kubernetes sandbox playing v1.34.9 (its simulated modifier) or v1.26.5, the engine as the RBAC-limited user.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allConverged, startHarness, statefulSetReport, types } from './harness.ts';

const seedClasses = [
  { name: 'silver', storageClass: 'standard', parameters: { iops: '3000' } },
  { name: 'gold', storageClass: 'standard', parameters: { iops: '6000', throughput: '500' } },
  // The driver changes IOPS and throughput, not the volume type: `platinum` is refused (Infeasible).
  { name: 'platinum', storageClass: 'standard', parameters: { type: 'io2', iops: '64000' } },
];
const standard = { name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1, modifyTicks: 2, acceptedMutableParameterNames: ['iops', 'throughput'] } };

describe('a volumeAttributesClassName change from Git', () => {
  it('converges a class change next to a size change: template recreated with both, each PVC patched once, pods kept', async () => {
    const h = await startHarness({
      storageClasses: [standard], volumeAttributesClasses: seedClasses,
      statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' }, volumeAttributesClass: 'silver' }],
    });
    try {
      h.kube.tick(3);
      const podUids = h.pods().map((p) => p.metadata.uid).sort();
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' }, volumeAttributesClass: 'gold' });
      const planned = await h.pass({ mode: 'plan' });
      assert.equal(planned.server?.version, 'v1.34.9');
      const plannedTemplate = statefulSetReport(planned, 'pg').templates[0];
      assert.deepEqual(plannedTemplate?.volumeAttributesClass, { from: 'silver', to: 'gold' });
      assert.equal(plannedTemplate?.action, 'resize', plannedTemplate?.reasons.join('; '));
      const converged = await h.converge(allConverged, { ticks: 2 });
      const template = statefulSetReport(converged, 'pg').templates[0];
      assert.equal(template?.desiredClass, 'gold');
      assert.deepEqual(template?.pvcs.map((p) => [p.state, p.volumeAttributesClass?.current]), [['done', 'gold'], ['done', 'gold']]);
      const live = h.kube.store.get(types.sts, 'db', 'pg') as unknown as { spec: { volumeClaimTemplates: Array<{ spec: { volumeAttributesClassName?: string; resources: { requests: { storage: string } } } }> } };
      assert.equal(live.spec.volumeClaimTemplates[0]?.spec.volumeAttributesClassName, 'gold');
      assert.equal(live.spec.volumeClaimTemplates[0]?.spec.resources.requests.storage, '20Gi');
      const patches = h.kube.requestLog.entries.filter((e) => e.verb === 'patch' && e.resource === 'persistentvolumeclaims' && !e.dryRun);
      assert.equal(patches.length, 2, 'one patch per PVC carries the size and the class');
      assert.deepEqual(h.pods().map((p) => p.metadata.uid).sort(), podUids, 'the pods were not touched');
      h.kube.requestLog.reset();
      assert.ok(allConverged(await h.pass()));
      assert.deepEqual(h.kube.requestLog.writes(), [], 'a converged class writes nothing');
    } finally {
      await h.close();
    }
  });

  it('an unreachable class fails terminally per replica (modifyVolumeStatus Infeasible), reported as a class failure', async () => {
    const h = await startHarness({
      storageClasses: [standard], volumeAttributesClasses: seedClasses,
      statefulSets: [{ name: 'pg', replicas: 2, policy: 'Parallel', templates: { data: '10Gi' }, volumeAttributesClass: 'silver' }],
    });
    try {
      h.kube.tick(3);
      await h.writeManifest({ name: 'pg', replicas: 2, policy: 'Parallel', templates: { data: '10Gi' }, volumeAttributesClass: 'platinum' });
      const failed = await h.converge((r) => statefulSetReport(r, 'pg').outcome === 'failed', { ticks: 2 });
      const pvcs = statefulSetReport(failed, 'pg').templates[0]?.pvcs ?? [];
      assert.deepEqual(pvcs.map((p) => [p.state, p.terminal, p.failedOn, p.volumeAttributesClass?.current, p.volumeAttributesClass?.modifyStatus]),
        [['failed', true, 'class', 'silver', 'Infeasible'], ['failed', true, 'class', 'silver', 'Infeasible']]);
      // In the driver's words (its ModifyVolumeError condition), as csi-driver-host-path refuses a parameter it cannot change.
      assert.match(pvcs[0]?.message ?? '', /VolumeAttributesClass platinum: invalid parameters: \[type\] \(modifyVolumeStatus Infeasible, InvalidArgument\); it stays in silver/);
      // Git rolled back to the class the volumes have (what the recovery pull request proposes): accepted, converged.
      await h.writeManifest({ name: 'pg', replicas: 2, policy: 'Parallel', templates: { data: '10Gi' }, volumeAttributesClass: 'silver' });
      assert.ok(allConverged(await h.converge(allConverged, { ticks: 2 })));
    } finally {
      await h.close();
    }
  });

  it('blocks a class that does not exist before anything is written (the server itself would accept it)', async () => {
    const h = await startHarness({
      storageClasses: [standard], volumeAttributesClasses: seedClasses,
      statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' }, volumeAttributesClass: 'silver' }],
    });
    try {
      h.kube.tick(3);
      await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '10Gi' }, volumeAttributesClass: 'bronze' });
      h.kube.requestLog.reset();
      const report = await h.pass();
      assert.equal(statefulSetReport(report, 'pg').outcome, 'blocked');
      assert.match(statefulSetReport(report, 'pg').templates[0]?.reasons[0] ?? '', /VolumeAttributesClass bronze does not exist in the cluster \(it has gold, platinum, silver\)/);
      // Only the report is written (the status annotation, the Warning Event saying it is blocked, the Lease): no PVC, no template.
      assert.deepEqual(h.kube.requestLog.writes().map((w) => `${w.verb} ${w.resource}`).filter((w) => !w.endsWith('leases')), ['patch statefulsets', 'create events']);
      assert.equal(h.kube.requestLog.entries.filter((e) => e.resource === 'persistentvolumeclaims' && e.verb === 'patch').length, 0, 'not even a dry run');
    } finally {
      await h.close();
    }
  });

  it('on v1.26.5 the plan names the server and blocks a class change (no VolumeAttributesClass there)', async () => {
    const h = await startHarness({ version: '1.26', statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '10Gi' }, volumeAttributesClass: 'gold' });
      const report = await h.pass({ mode: 'plan' });
      assert.equal(report.server?.version, 'v1.26.5');
      assert.match(report.server?.capabilities.join('\n') ?? '', /not changed on v1\.26\.5/);
      assert.match(statefulSetReport(report, 'pg').templates[0]?.reasons[0] ?? '', /the API server is v1\.26\.5: VolumeAttributesClass needs Kubernetes 1\.34/);
    } finally {
      await h.close();
    }
  });
});
