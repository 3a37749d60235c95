// Found by the fault campaign (seed 7, schedule 31): a pass that patched every PVC and then lost its status-annotation
// write (503) left a set that later passes saw as "nothing to do" (request = desired), so it was never annotated, its
// finish never reported and the progress status of the commit stayed pending for good.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allConverged, startHarness, statefulSetReport, types } from './harness.ts';

describe('a status annotation write lost after the PVC patches', () => {
  it('is written by a later pass while the PVCs grow, and the finish is reported once', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      await h.pass(); // records and orphan-deletes; the garbage collector runs between passes
      h.kube.tick(1);
      h.kube.faults.failNext('PATCH', 'statefulsets', 1, 503); // the status annotation, after both PVC patches
      const patched = await h.pass();
      assert.equal(statefulSetReport(patched, 'pg').outcome, 'in-progress');
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.annotations?.['sts-volume-gitops.io/volume-claim-templates'], undefined);

      let justFinished = 0;
      const converged = await h.converge((report) => {
        if (statefulSetReport(report, 'pg').templates.some((t) => t.justFinished)) justFinished += 1;
        return allConverged(report);
      });
      for (let i = 0; i < 2; i++) {
        const later = await h.pass();
        if (statefulSetReport(later, 'pg').templates.some((t) => t.justFinished)) justFinished += 1;
      }
      assert.equal(justFinished, 1, 'the finish is reported exactly once');
      assert.ok(allConverged(converged));
      const annotation = h.kube.store.get(types.sts, 'db', 'pg')?.metadata.annotations?.['sts-volume-gitops.io/volume-claim-templates'];
      assert.match(annotation ?? '', /"readyReplicas":2,"finishedReconciliationGeneration"/);
    } finally {
      await h.close();
    }
  });
});
