// The API server stores sizes in canonical form (`1.5Ti` reads back as `1536Gi`, `2048Gi` as `2Ti`), as the
// recorded kube-apiserver v1.26.5 does. The engine must compare sizes by value (no spurious resize of a PVC that
// already holds the size, spelled differently) and show people the size as they wrote it in Git.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allConverged, startHarness, statefulSetReport, storageOf, types } from '../integration/harness.ts';

describe('sizes the server spells canonically', () => {
  it('a live PVC holding the canonical spelling of the Git size is not resized, and the report shows the Git spelling', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '1.5Ti' } }] });
    try {
      // The server's spelling differs from Git's...
      assert.deepEqual(h.pvcs().map(storageOf), [{ request: '1536Gi', capacity: '1536Gi' }, { request: '1536Gi', capacity: '1536Gi' }]);
      const live = h.kube.store.get(types.sts, 'db', 'pg');
      assert.equal((live?.spec?.volumeClaimTemplates as Array<{ spec: { resources: { requests: { storage: string } } } }>)[0]?.spec.resources.requests.storage, '1536Gi');
      // ...but it is the same size: no PVC patch, no template change (the first pass only records its status annotation).
      h.kube.requestLog.reset();
      const report = await h.pass();
      const writes = h.kube.requestLog.writes().map((w) => `${w.verb} ${w.resource}`);
      assert.ok(!writes.some((w) => w.endsWith('persistentvolumeclaims') || w === 'delete statefulsets' || w === 'create statefulsets' || w === 'update statefulsets'), writes.join(', '));
      h.kube.requestLog.reset();
      await h.pass();
      assert.deepEqual(h.kube.requestLog.writes(), [], 'the next pass writes nothing at all');
      const template = statefulSetReport(report, 'pg').templates[0];
      assert.equal(template?.action, 'unchanged');
      assert.equal(template?.from, '1.5Ti', 'the live size is shown as Git spells it');
      assert.equal(template?.desiredSize, '1.5Ti');
      assert.deepEqual(template?.pvcs.map((p) => [p.request, p.capacity]), [['1.5Ti', '1.5Ti'], ['1.5Ti', '1.5Ti']]);
    } finally {
      await h.close();
    }
  });

  it('grows to a size Git spells 2048Gi, which the server stores as 2Ti; the next passes write nothing', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '1.5Ti' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '2048Gi' } });
      const converged = await h.converge(allConverged, { ticks: 3 });
      assert.deepEqual(h.pvcs().map((p) => storageOf(p).request), ['2Ti', '2Ti'], 'the server keeps its canonical spelling');
      const template = statefulSetReport(converged, 'pg').templates[0];
      assert.equal(template?.desiredSize, '2048Gi');
      assert.ok(template?.pvcs.every((p) => p.capacity === '2048Gi'), 'capacities are shown as Git spells the size');
      h.kube.requestLog.reset();
      for (let i = 0; i < 2; i++) assert.ok(allConverged(await h.pass()));
      assert.deepEqual(h.kube.requestLog.writes(), [], 'no PVC patch and no annotation rewrite for a respelled size');
    } finally {
      await h.close();
    }
  });
});
