// The calls a resize makes beyond the floor (issue 14): the server is asked once a pass whether templates can change
// in place, not once per StatefulSet, since its answer is a rule of the API server, not of one set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allConverged, startHarness } from './harness.ts';

describe('calls of a resize', () => {
  it('asks once a pass whether templates change in place, then recreates every set', async () => {
    const names = ['pg', 'redis', 'kafka'];
    const h = await startHarness({ statefulSets: names.map((name) => ({ name, replicas: 2, templates: { data: '10Gi' } })) });
    try {
      for (const name of names) await h.writeManifest({ name, replicas: 2, templates: { data: '20Gi' } });
      h.kube.requestLog.reset();
      await h.pass();
      const counts = h.kube.requestLog.countsByVerbAndResource();
      assert.equal(counts['update statefulsets (dryRun)'], 1, JSON.stringify(counts));
      assert.equal(counts['delete statefulsets'], 3, 'every set is orphan-deleted (templates are immutable here)');
      const converged = await h.converge(allConverged);
      assert.ok(allConverged(converged));
    } finally {
      await h.close();
    }
  });
});
