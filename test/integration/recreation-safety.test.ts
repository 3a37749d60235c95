// A recreation record is an intent, not a copy to restore blindly (issue 13 items 4 and 5): a set edited after the
// record was written is not put back to the older spec, and a set a dead holder left absent is recreated even while
// that holder's Lease has not expired.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { allConverged, podIdentity, startHarness, statefulSetReport, types } from './harness.ts';

const image = (sts: { spec?: unknown } | undefined): unknown =>
  (sts?.spec as { template?: { spec?: { containers?: Array<{ image?: string }> } } } | undefined)?.template?.spec?.containers?.[0]?.image;

describe('recreation records', () => {
  it('drops a record whose StatefulSet changed since it was written, instead of restoring the older spec', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      h.kube.faults.failNext('DELETE', 'statefulsets', 1, 'reset');
      await h.pass();
      assert.equal(h.kube.store.list(types.configMap, h.stateNamespace).length, 1, 'the record was written (in the Lease namespace) before the failed delete');
      // Someone rolls a new image before the next pass.
      const live = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(live);
      const edited = structuredClone(live);
      (edited.spec as { template: { spec: { containers: Array<{ image: string }> } } }).template.spec.containers[0]!.image = 'busybox:1.37';
      h.kube.store.replace(types.sts, edited);
      h.kube.tick(6);
      const podsAfterRollout = podIdentity(h.pods());

      const report = await h.converge(allConverged);
      assert.equal(image(h.kube.store.get(types.sts, 'db', 'pg')), 'busybox:1.37', 'the edit made after the record survives');
      assert.deepEqual(podIdentity(h.pods()), podsAfterRollout, 'no pod rolled back to the old image');
      assert.equal(statefulSetReport(report, 'pg').templates[0]?.readyReplicas, 2);
      assert.equal(h.kube.store.list(types.configMap, h.stateNamespace).length, 0);
    } finally {
      await h.close();
    }
  });

  it('recreates a set left absent by a holder that died between the orphan delete and the create, though its Lease is live', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const podsBefore = podIdentity(h.pods());
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      await h.pass({ maxWaitMs: 0 }); // records, orphan-deletes, and leaves before the garbage collector has run
      h.kube.tick(1);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'the set is absent');
      // The Lease as the dead holder left it: held, listing the record among the recreations in progress.
      const lease = h.kube.store.get(types.lease, h.stateNamespace, 'sts-volume-gitops-test');
      assert.ok(lease?.metadata.annotations?.['sts-volume-gitops.io/outstanding-recreations'], 'the Lease lists the record');
      h.kube.store.replace(types.lease, {
        ...lease, spec: { holderIdentity: 'dead-pass', leaseDurationSeconds: 300, renewTime: new Date().toISOString().replace('Z', '000Z') },
      });

      const report = await h.pass({ holder: 'me' });
      assert.equal(report.outcome, 'busy');
      assert.match(report.notes.join('\n'), /db\/pg was absent after an interrupted template update: set by orphan delete and recreate/);
      const recreated = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(recreated);
      assert.equal((recreated.spec as { volumeClaimTemplates: Array<{ spec: { resources: { requests: { storage: string } } } }> }).volumeClaimTemplates[0]?.spec.resources.requests.storage, '20Gi');
      assert.equal(h.kube.store.list(types.configMap, h.stateNamespace).length, 0, 'the record is dropped');
      h.kube.tick(2);
      assert.deepEqual(podIdentity(h.pods()), podsBefore, 'the pods were adopted, not restarted');
    } finally {
      await h.close();
    }
  });
});
