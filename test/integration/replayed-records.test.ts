// Issue 28, items 1, 2 and 7: a record is a one-time instruction to finish one recreation, never a standing one. The
// attacks of the second security review, run as they were found, under the RBAC `sts-volume-gitops rbac` generates:
// a genuine record copied while it existed (any reader of the state namespace can) and put back later; a record
// planted after a clean pass; a set adopted by an operator between the save and the resume.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import type { CoreV1Api, V1ConfigMap } from '@kubernetes/client-node';
import { leaseOutstandingAnnotation, recordLabel, recordNamespaceLabel, recordTargetLabel } from '../../functions/adapters/kube/map-objects.ts';
import { recreationRecordName } from '../../functions/engine/records/names.ts';
import { attacker } from './attacker.ts';
import { allConverged, podIdentity, startHarness, statefulSetReport, types, type Harness } from './harness.ts';
import { deleteByAdmin, leaseName, leaveLeaseHeld, leavePgAbsentWithRecord, pgRecord, putBack, refusalEvents } from './record-scenes.ts';

/**
 * pg grown 10Gi -> 20Gi by passes that finish normally, while mallory (get and create on ConfigMaps in the state
 * namespace) copies its genuine, signed record during the recreation. Returns her client and the copy.
 */
async function copyGenuineRecord(h: Harness): Promise<{ mallory: CoreV1Api; copy: V1ConfigMap }> {
  const mallory = await attacker(h, ['get', 'create']);
  await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
  await h.pass({ maxWaitMs: 0 });
  const copy = await mallory.readNamespacedConfigMap({ namespace: h.stateNamespace, name: pgRecord });
  assert.ok(copy.data?.mac, 'a signed record');
  await h.converge(allConverged);
  assert.equal(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), undefined, 'the recreation finished: its record is gone');
  assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.[leaseOutstandingAnnotation], undefined, 'and the Lease lists none');
  return { mallory, copy };
}

describe('a genuine record put back after its recreation finished', () => {
  it('does not bring back a StatefulSet removed from Git and deleted, while a timed-out holder keeps the Lease: refused, reported', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const { mallory, copy } = await copyGenuineRecord(h);
      // Removed from Git on purpose, then deleted by an admin; a later pass times out holding the Lease.
      await rm(join(h.repoDir, 'db/pg.yaml'));
      await deleteByAdmin(h, 'pg');
      leaveLeaseHeld(h);
      await putBack(h, mallory, copy);

      const busy = await h.pass({ holder: 'next-pass' });
      assert.equal(busy.outcome, 'busy');
      h.kube.tick(3);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'nothing created');
      assert.deepEqual(h.pods(), []);
      assert.equal(busy.refusedRecords?.length, 1);
      assert.equal(busy.refusedRecords?.[0]?.configMap, `${h.stateNamespace}/${pgRecord}`);
      assert.match(busy.refusedRecords?.[0]?.reason ?? '', /^not an outstanding recreation: the Lease sts-volume-gitops\/sts-volume-gitops-test does not list it/);
      assert.equal(refusalEvents(h).length, 1, 'a Warning Event on the ConfigMap');
      assert.ok(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), 'left in place for a person');

      // Once the timed-out holder's Lease expired, a holding pass refuses it the same way.
      leaveLeaseHeld(h, 3_600_000);
      const after = await h.pass();
      h.kube.tick(3);
      assert.notEqual(after.outcome, 'busy');
      assert.match(after.refusedRecords?.[0]?.reason ?? '', /not an outstanding recreation/);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined);
    } finally {
      await h.close();
    }
  });

  it('is refused while the set is still in Git: reported the pass after it is put back, and creates nothing once the set is deleted', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const { mallory, copy } = await copyGenuineRecord(h);
      const uid = h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid;
      await putBack(h, mallory, copy);

      const report = await h.pass();
      assert.match(report.refusedRecords?.[0]?.reason ?? '', /^not an outstanding recreation/);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid, uid, 'the set is left alone');
      assert.ok(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), 'the copy is left in place, reported');

      // Someone deletes the set (still in Git); a pass times out holding the Lease; the next one is on the busy path.
      await deleteByAdmin(h, 'pg');
      leaveLeaseHeld(h);
      const busy = await h.pass({ holder: 'next-pass' });
      h.kube.tick(3);
      assert.equal(busy.outcome, 'busy');
      assert.match(busy.refusedRecords?.[0]?.reason ?? '', /^not an outstanding recreation/);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'a record is not a standing instruction to create the set');
    } finally {
      await h.close();
    }
  });
});

describe('a record whose recreation the busy path finished', () => {
  it('is struck from the dead holder\'s Lease at once: a copy put back before that Lease expires is refused', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      // A pass writes its record, orphan-deletes the set and times out before the create; its Lease lives on.
      await leavePgAbsentWithRecord(h);
      const copy = h.kube.store.get(types.configMap, h.stateNamespace, pgRecord);
      assert.ok(copy, 'a reader copies the record');
      leaveLeaseHeld(h);

      const busy = await h.pass({ holder: 'next-pass' });
      assert.match(busy.notes.join('\n'), /db\/pg was absent after an interrupted template update: set by orphan delete and recreate/);
      const lease = h.kube.store.get(types.lease, h.stateNamespace, leaseName);
      assert.equal(lease?.spec?.holderIdentity, 'timed-out-pass', 'the hold is not taken');
      assert.equal(lease?.metadata.annotations?.[leaseOutstandingAnnotation], undefined, 'the finished recreation is no longer listed');

      await deleteByAdmin(h, 'pg');
      h.kube.store.create(types.configMap, { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: pgRecord, namespace: h.stateNamespace, labels: copy.metadata.labels ?? {} }, data: copy.data ?? {} });
      const replayed = await h.pass({ holder: 'next-pass' });
      h.kube.tick(3);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'not created again');
      assert.match(replayed.refusedRecords?.[0]?.reason ?? '', /^not an outstanding recreation/);
    } finally {
      await h.close();
    }
  });
});

describe('a record in progress whose StatefulSet left Git', () => {
  it('is refused, set and record left as they are, and resumed once the set is back in Git', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const podsBefore = podIdentity(h.pods());
      // A pass writes its record, orphan-deletes the set and times out before the create.
      await leavePgAbsentWithRecord(h);
      leaveLeaseHeld(h);
      await rm(join(h.repoDir, 'db/pg.yaml'));

      const busy = await h.pass({ holder: 'next-pass' });
      assert.equal(busy.outcome, 'busy');
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'not brought back');
      assert.match(busy.refusedRecords?.[0]?.reason ?? '', /^StatefulSet db\/pg is not in the desired state at the branch head \([0-9a-f]{12}\): a record never brings back a StatefulSet Git no longer has/);
      assert.ok(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), 'the record stays');

      // Back in Git: the recreation is still outstanding, and the busy path finishes it (pods adopted, not restarted).
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      const resumed = await h.pass({ holder: 'next-pass' });
      assert.equal(resumed.refusedRecords, undefined);
      assert.match(resumed.notes.join('\n'), /db\/pg was absent after an interrupted template update: set by orphan delete and recreate/);
      h.kube.tick(2);
      assert.deepEqual(podIdentity(h.pods()), podsBefore);
    } finally {
      await h.close();
    }
  });
});

describe('a record planted after a clean pass', () => {
  it('is reported on the very next pass, labelled as a record or only named like one', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }] });
    try {
      assert.ok(allConverged(await h.pass()));
      assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.['sts-volume-gitops.io/recreation-records'], 'none', 'a clean pass');
      const mallory = await attacker(h);
      const data = { namespace: 'db', statefulSet: 'pg', oldUid: 'f0f0f0f0-0000-0000-0000-000000000000', target: JSON.stringify({ metadata: { name: 'pg', namespace: 'db' } }) };
      await mallory.createNamespacedConfigMap({
        namespace: h.stateNamespace,
        body: { metadata: { name: pgRecord, labels: { [recordLabel]: 'true', [recordTargetLabel]: 'test', [recordNamespaceLabel]: 'db' } }, data },
      });
      await mallory.createNamespacedConfigMap({ namespace: h.stateNamespace, body: { metadata: { name: recreationRecordName('test', 'db', 'unlabelled') }, data } });

      const report = await h.pass();
      assert.deepEqual(report.refusedRecords?.map((r) => r.configMap).sort(), [
        `${h.stateNamespace}/${pgRecord}`, `${h.stateNamespace}/${recreationRecordName('test', 'db', 'unlabelled')}`,
      ]);
      assert.equal(refusalEvents(h).length, 2);
      assert.ok(allConverged(report), 'the pass goes on with everything else');
    } finally {
      await h.close();
    }
  });
});

describe('a set adopted by an operator between the save and the resume', () => {
  const alertmanager = { apiVersion: 'monitoring.coreos.com/v1', kind: 'Alertmanager', name: 'main', uid: '6a1f0b2c-3d4e-4c4e-9d8a-3b0c7f5e9d5e', controller: true, blockOwnerDeletion: true };

  function adopt(h: Harness): void {
    const live = h.kube.store.get(types.sts, 'db', 'pg');
    assert.ok(live);
    h.kube.store.replace(types.sts, { ...live, metadata: { ...live.metadata, ownerReferences: [alertmanager] } });
  }

  it('is not recreated: the record is dropped as outdated, the set is blocked naming its owner, and the report says why', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const podsBefore = podIdentity(h.pods());
      const uid = h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid;
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      // The pass saves its record and dies at the orphan delete.
      h.kube.faults.failNext('DELETE', 'statefulsets', 1, 'reset');
      await h.pass({ maxWaitMs: 0 });
      assert.ok(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), 'the record is saved');
      adopt(h);

      const report = await h.pass();
      h.kube.tick(3);
      const live = h.kube.store.get(types.sts, 'db', 'pg');
      assert.equal(live?.metadata.uid, uid, 'never deleted nor recreated');
      assert.deepEqual(live?.metadata.ownerReferences, [alertmanager], 'its controller reference kept');
      assert.match(report.notes.join('\n'), /db\/pg: recreation record .* dropped, not replayed: its ownerReferences changed since the record was written: it is now controlled by Alertmanager main \(monitoring\.coreos\.com\/v1\)/);
      const pg = statefulSetReport(report, 'pg');
      assert.equal(pg.outcome, 'blocked');
      assert.match(pg.templates.flatMap((t) => t.reasons).join('\n'), /controlled by Alertmanager main/);
      assert.equal(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), undefined, 'the record is gone');
      assert.deepEqual(podIdentity(h.pods()), podsBefore);
    } finally {
      await h.close();
    }
  });

  it('is not recreated when adopted while being deleted: the record is dropped, the report says the controller must create it', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      // Record saved, orphan delete accepted; the garbage collector has not removed the set yet.
      await h.pass({ maxWaitMs: 0 });
      assert.ok(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.deletionTimestamp, 'being deleted');
      adopt(h);

      const report = await h.pass({ maxWaitMs: 0 });
      for (let i = 0; i < 3; i++) {
        h.kube.tick(2);
        await h.pass();
      }
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'left to its controller');
      assert.equal(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), undefined);
      assert.match(report.notes.join('\n'), /dropped, not replayed: its ownerReferences changed .* controlled by Alertmanager main .* while it was being deleted for the template update: not recreated; its controller \(or a person\) must create it again/);
    } finally {
      await h.close();
    }
  });
});
