// Windows where the Lease's list of recreations in progress and the records in the state namespace disagree: a pass
// that stops (a Lambda timeout, a lost reply) between two of its writes, or two passes at once. Whatever the crash or
// the race, a finished recreation is not listed (a copy of its record put back is refused), and a genuine record in
// progress is never reported as a forgery. Under the RBAC `sts-volume-gitops rbac` generates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { leaseOutstandingAnnotation } from '../../functions/adapters/kube/map-objects.ts';
import { attacker } from './attacker.ts';
import { startHarness, types } from './harness.ts';
import { deleteByAdmin, leaseName, pgRecord, putBack } from './record-scenes.ts';

describe('a recreation that finished in a pass that did not release the Lease', () => {
  it('is no longer listed once its record is deleted: a copy put back is refused, and the set an admin deleted stays deleted', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const mallory = await attacker(h, ['get', 'create']);
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      // The record is saved and the set orphan-deleted; the pass leaves the rest to the next one. mallory copies it.
      await h.pass({ maxWaitMs: 0 });
      const copy = await mallory.readNamespacedConfigMap({ namespace: h.stateNamespace, name: pgRecord });
      h.kube.tick(1);
      // The next pass creates the set and deletes the record, then stops before its release reaches the server (a
      // Lambda timeout; here the connection is cut): the Lease stays held as that pass last wrote it.
      h.kube.faults.failNext('PATCH', 'leases', 1, 'reset');
      await assert.rejects(h.pass());
      assert.equal(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), undefined, 'the recreation finished: its record is gone');
      const lease = h.kube.store.get(types.lease, h.stateNamespace, leaseName);
      assert.equal(lease?.spec?.holderIdentity, 'test-pass', 'the Lease is still held');
      assert.equal(lease?.metadata.annotations?.[leaseOutstandingAnnotation], undefined, 'and no longer lists the finished recreation');

      // The set is deleted on purpose (it is still in Git: its removal is under review), and the copy is put back.
      await deleteByAdmin(h, 'pg');
      await putBack(h, mallory, copy);
      const busy = await h.pass({ holder: 'next-pass' });
      h.kube.tick(3);
      assert.equal(busy.outcome, 'busy');
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'not brought back from the copy');
      assert.match(busy.refusedRecords?.[0]?.reason ?? '', /^not an outstanding recreation/);
    } finally {
      await h.close();
    }
  });
});
