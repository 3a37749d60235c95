// `namespaces.allow: ["*"]` never reaches the state namespace (issue 28 item 6): under the RBAC `rbac` generates for
// "*" (workload verbs cluster-wide, so the cluster would let it), a StatefulSet placed in the state namespace and grown
// in Git is not planned, dry-run or resized, and the pass says why; the same change elsewhere is applied.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { defaultStateNamespace } from '../../functions/domain/config.ts';
import { startHarness, statefulSetReport, storageOf } from './harness.ts';

describe('allow: ["*"] and the state namespace', () => {
  it('resizes a set in a workload namespace and leaves one in the state namespace alone', async () => {
    const planted = { name: 'planted', namespace: defaultStateNamespace, replicas: 1, templates: { data: '10Gi' } };
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }, planted], allow: ['*'] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '20Gi' } });
      await h.writeManifest({ ...planted, templates: { data: '20Gi' } });
      const report = await h.converge((r) => statefulSetReport(r, 'pg').outcome === 'converged', { ticks: 2 });
      const inState = statefulSetReport(report, 'planted');
      assert.equal(inState.outcome, 'namespace-not-allowed');
      assert.match(JSON.stringify(inState), /namespace sts-volume-gitops is this target's state namespace \(its Lease and recreation records\): never a workload namespace/);
      assert.deepEqual(h.pvcs(defaultStateNamespace).map((p) => storageOf(p).request), ['10Gi'], 'its PVC is untouched');
      assert.deepEqual(h.pvcs('db').map((p) => storageOf(p).request), ['20Gi']);
      const touched = h.kube.requestLog.entries.filter((e) => e.namespace === defaultStateNamespace && e.resource !== 'leases' && e.resource !== 'configmaps');
      assert.deepEqual(touched.map((e) => `${e.verb} ${e.resource}`), [], 'nothing of the set in the state namespace is read or written');
    } finally {
      await h.close();
    }
  });
});
