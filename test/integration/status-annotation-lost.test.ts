// Found by the fault campaign (seed 7 schedule 31; seed 1123 schedule 291): a status-annotation write lost after the
// PVC patches left a set that later passes saw as "nothing to do" (request = desired), so it was never annotated, its
// finish never reported and the progress status of the commit stayed pending for good. The annotation now goes in with
// the template update (or, for a template someone else brought to size, before the first patch).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allConverged, startHarness, statefulSetReport, types, type Harness } from './harness.ts';
import type { PassReport } from '../../functions/engine/run-pass.ts';

const annotationKey = 'sts-volume-gitops.io/volume-claim-templates';

function annotationOf(h: Harness): string | undefined {
  return h.kube.store.get(types.sts, 'db', 'pg')?.metadata.annotations?.[annotationKey];
}

/** Passes until converged and two more; how many of them reported pg's finish. */
async function finishesReported(h: Harness): Promise<{ count: number; last: PassReport }> {
  let count = 0;
  const seen = (report: PassReport): void => {
    if (statefulSetReport(report, 'pg').templates.some((t) => t.justFinished)) count += 1;
  };
  let last = await h.converge((report) => {
    seen(report);
    return allConverged(report);
  });
  for (let i = 0; i < 2; i++) {
    last = await h.pass();
    seen(last);
  }
  return { count, last };
}

describe('a status annotation write that is lost', () => {
  it('after a recreation: the set already carries the pending annotation, and the finish is reported once', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      await h.pass(); // records and orphan-deletes; the garbage collector runs between passes
      h.kube.tick(1);
      h.kube.faults.failNext('PATCH', 'statefulsets', 1, 503); // the next status annotation write, wherever it falls
      const patched = await h.pass();
      assert.equal(statefulSetReport(patched, 'pg').outcome, 'in-progress');
      assert.match(annotationOf(h) ?? '', /"desiredSize":"20Gi".*"readyReplicas":0/, 'the recreated set carries the pending status');
      h.kube.tick(30); // every PVC finishes growing before the next pass
      const { count, last } = await finishesReported(h);
      assert.equal(count, 1, 'the finish is reported exactly once');
      assert.ok(allConverged(last));
      assert.match(annotationOf(h) ?? '', /"readyReplicas":2,"finishedReconciliationGeneration"/);
    } finally {
      await h.close();
    }
  });

  it('on a template someone else brought to size: written before the patches, so a lost write cannot hide the finish', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      // The live template already says 20Gi (an older version, or kubectl), the PVCs are still 10Gi, no annotation.
      const live = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(live);
      const spec = structuredClone(live.spec) as { volumeClaimTemplates: Array<{ spec: { resources: { requests: { storage: string } } } }> };
      const template = spec.volumeClaimTemplates[0];
      assert.ok(template);
      template.spec.resources.requests.storage = '20Gi';
      h.kube.store.replace(types.sts, { ...live, spec });
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      h.kube.faults.failNext('PATCH', 'statefulsets', 1, 503);
      await h.pass();
      h.kube.tick(30);
      const { count, last } = await finishesReported(h);
      assert.equal(count, 1, 'the finish is reported exactly once');
      assert.ok(allConverged(last));
      assert.match(annotationOf(h) ?? '', /"readyReplicas":2,"finishedReconciliationGeneration"/);
      const sizes = h.pvcs('db').map((p) => (p.spec?.resources as { requests: { storage: string } }).requests.storage);
      assert.deepEqual(sizes, ['20Gi', '20Gi']);
    } finally {
      await h.close();
    }
  });
});
