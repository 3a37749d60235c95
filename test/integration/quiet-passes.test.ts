// Writes only where there is something to say (issue 13 item 8): a first pass over sets already at their size writes
// nothing, and a commit that changes no size (a README edit) rewrites no annotation and takes no Lease.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { allConverged, startHarness, types } from './harness.ts';

describe('passes that have nothing to do write nothing', () => {
  it('does not annotate StatefulSets that are already at their size on the first pass', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }, { name: 'redis', replicas: 1, templates: { data: '1Gi' } }] });
    try {
      h.kube.requestLog.reset();
      const report = await h.pass();
      assert.ok(allConverged(report));
      // The one write of a first pass: the Lease, free, saying no recreation record is outstanding (so that no later
      // pass needs to look for them).
      assert.deepEqual(h.kube.requestLog.writes().map((w) => `${w.verb} ${w.resource}`), ['create leases']);
      assert.equal(h.kube.store.get(types.lease, h.stateNamespace, 'sts-volume-gitops-test')?.metadata.annotations?.['sts-volume-gitops.io/recreation-records'], 'none');
      h.kube.requestLog.reset();
      assert.ok(allConverged(await h.pass()));
      assert.deepEqual(h.kube.requestLog.writes(), []);
    } finally {
      await h.close();
    }
  });

  it('keeps the annotation of a converged set when a later commit changes no size', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      const converged = await h.converge(allConverged);
      const annotationBefore = h.kube.store.get(types.sts, 'db', 'pg')?.metadata.annotations?.['sts-volume-gitops.io/volume-claim-templates'];
      assert.match(annotationBefore ?? '', new RegExp(converged.commitSha));
      await writeFile(join(h.repoDir, 'README.yaml'), '# docs: a commit that changes no size\n');
      h.kube.requestLog.reset();
      const report = await h.pass();
      assert.notEqual(report.commitSha, converged.commitSha, 'the branch head moved');
      assert.ok(allConverged(report));
      assert.deepEqual(h.kube.requestLog.writes(), []);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.annotations?.['sts-volume-gitops.io/volume-claim-templates'], annotationBefore);
    } finally {
      await h.close();
    }
  });
});
