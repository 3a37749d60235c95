// Recreation records without a LIST per namespace (issue 14): they live in the target's state namespace, which every
// pass lists once (issue 28: a record planted after a clean pass is seen on the next). A steady pass makes the floor's
// calls; a record left by a pass that died is found and, the Lease listing it, resumed, also while that holder's Lease
// is live; and a record an older version left beside its StatefulSet (unsigned) is refused and reported until a person
// resolves it.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { AppsV1Api } from '@kubernetes/client-node';
import { leaseOutstandingAnnotation, leaseRecordsAnnotation, recordLabel } from '../../functions/adapters/kube/map-objects.ts';
import { buildRecreatedStatefulSet } from '../../functions/engine/records/recreate-statefulset.ts';
import { legacyRecreationRecordName } from '../../functions/engine/records/names.ts';
import { allConverged, podIdentity, startHarness, types, type Harness } from './harness.ts';
import { leaseName, leaveLeaseHeld, leavePgAbsentWithRecord, refusalEvents } from './record-scenes.ts';

/** Lease, StorageClasses, the server's /version, the state namespace's ConfigMaps, and per namespace StatefulSets, PVCs, pods and quotas. */
const floor = (namespaces: number): number => 4 + 4 * namespaces;
/** A plan-mode pass writes nothing, so it has no use for records: the floor without their LIST. */
const planFloor = (namespaces: number): number => floor(namespaces) - 1;

function calls(h: Harness): { total: number; configMaps: string[]; writes: string[] } {
  const entries = h.kube.requestLog.entries;
  return {
    total: entries.length,
    configMaps: entries.filter((e) => e.resource === 'configmaps').map((e) => `${e.verb} ${e.namespace ?? ''}`),
    writes: h.kube.requestLog.writes().map((w) => `${w.verb} ${w.resource}`),
  };
}

function storageOfTemplate(h: Harness, name: string): unknown {
  const sts = h.kube.store.get(types.sts, 'db', name);
  return (sts?.spec as { volumeClaimTemplates?: Array<{ spec: { resources: { requests: { storage: string } } } }> } | undefined)
    ?.volumeClaimTemplates?.[0]?.spec.resources.requests.storage;
}

const leaseMark = (h: Harness): string | undefined => h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.[leaseRecordsAnnotation];

/** A pass that records, orphan-deletes and is stopped before the create; the set is then gone (the GC ran). */
async function leaveSetAbsentWithRecord(h: Harness): Promise<void> {
  await leavePgAbsentWithRecord(h);
  assert.deepEqual(h.kube.store.list(types.configMap, 'db'), [], 'no record beside the set');
  assert.equal(h.kube.store.list(types.configMap, h.stateNamespace).length, 1, 'its record is in the Lease namespace');
}

describe('recreation records in the Lease namespace', () => {
  it('a steady pass makes exactly the floor\'s calls at several namespaces: one records LIST, in the state namespace, before and after a resize', async () => {
    const h = await startHarness({
      statefulSets: [
        { name: 'pg', namespace: 'db', replicas: 2, templates: { data: '10Gi' } },
        { name: 'redis', namespace: 'cache', replicas: 1, templates: { data: '1Gi' } },
        { name: 'ch', namespace: 'analytics', replicas: 1, templates: { data: '5Gi' } },
      ],
    });
    try {
      h.kube.requestLog.reset();
      assert.ok(allConverged(await h.pass({ mode: 'plan' })));
      assert.deepEqual(calls(h), { total: planFloor(3), configMaps: [], writes: [] }, 'plan mode never looks for records');

      h.kube.requestLog.reset();
      assert.ok(allConverged(await h.pass()));
      // No Lease yet: the state namespace, and the old locations once (each namespace, and the Lease namespace of
      // versions before the state namespace), then the Lease says they are clean.
      assert.deepEqual(calls(h), {
        total: floor(3) + 3 + 1 + 1,
        configMaps: ['list sts-volume-gitops', 'list analytics', 'list cache', 'list db', 'list default'],
        writes: ['create leases'],
      });
      assert.equal(leaseMark(h), 'none');

      h.kube.requestLog.reset();
      assert.ok(allConverged(await h.pass()));
      assert.deepEqual(calls(h), { total: floor(3), configMaps: ['list sts-volume-gitops'], writes: [] });

      await h.writeManifest({ name: 'pg', namespace: 'db', replicas: 2, templates: { data: '20Gi' } });
      await h.converge(allConverged);
      assert.equal(storageOfTemplate(h, 'pg'), '20Gi');
      assert.equal(leaseMark(h), 'none', 'the release says every record the resize wrote is gone');
      h.kube.requestLog.reset();
      assert.ok(allConverged(await h.pass()));
      assert.deepEqual(calls(h), { total: floor(3), configMaps: ['list sts-volume-gitops'], writes: [] });
    } finally {
      await h.close();
    }
  });

  it('a set left absent by a pass killed before the create is recreated from its record while the dead holder\'s Lease is live', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const podsBefore = podIdentity(h.pods());
      await leaveSetAbsentWithRecord(h);
      // The Lease as the dead holder wrote it before saving the record: listing it among the recreations in progress.
      leaveLeaseHeld(h, 1_000, 'dead-pass', { [leaseRecordsAnnotation]: 'outstanding' });

      h.kube.requestLog.reset();
      const report = await h.pass({ holder: 'me' });
      assert.equal(report.outcome, 'busy');
      assert.match(report.notes.join('\n'), /db\/pg was absent after an interrupted template update: set by orphan delete and recreate/);
      assert.deepEqual(calls(h).configMaps, ['list sts-volume-gitops', 'delete sts-volume-gitops'], 'one LIST, in the state namespace only');
      assert.equal(storageOfTemplate(h, 'pg'), '20Gi');
      assert.deepEqual(h.kube.store.list(types.configMap, h.stateNamespace), [], 'the record is dropped');
      h.kube.tick(2);
      assert.deepEqual(podIdentity(h.pods()), podsBefore, 'the pods were adopted, not restarted');
    } finally {
      await h.close();
    }
  });

  it('a create that fails on the busy path leaves that set to the next pass and still brings back the others, struck from the mark', async () => {
    const h = await startHarness({ statefulSets: ['pg', 'zk'].map((name) => ({ name, replicas: 1, templates: { data: '10Gi' } })) });
    try {
      for (const name of ['pg', 'zk']) await h.writeManifest({ name, replicas: 1, templates: { data: '20Gi' } });
      await h.pass({ maxWaitMs: 0 });
      h.kube.tick(1);
      assert.deepEqual(h.kube.store.list(types.sts, 'db'), [], 'both absent');
      leaveLeaseHeld(h, 1_000, 'dead-pass', { [leaseRecordsAnnotation]: 'outstanding' });

      h.kube.faults.failNext('POST', 'statefulsets', 1, 503);
      const report = await h.pass({ holder: 'me' });
      assert.equal(report.outcome, 'busy');
      assert.match(report.notes.join('\n'), /db\/pg was absent after an interrupted template update: transient error, left to the next pass: /);
      assert.ok(h.kube.store.get(types.sts, 'db', 'zk'), 'zk brought back');
      const mark = h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.[leaseOutstandingAnnotation];
      const listed = JSON.parse(mark ?? '{}') as { records?: string[] };
      assert.equal(listed.records?.length, 1, 'zk struck, pg still listed');
      const again = await h.pass({ holder: 'me' });
      assert.match(again.notes.join('\n'), /db\/pg was absent after an interrupted template update: set by orphan delete and recreate/);
      assert.ok(h.kube.store.get(types.sts, 'db', 'pg'));
    } finally {
      await h.close();
    }
  });

  it('resumes the record of a holder that died once its Lease expired, whatever its old-locations mark, then the Lease says none', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const podsBefore = podIdentity(h.pods());
      await leaveSetAbsentWithRecord(h);
      leaveLeaseHeld(h, 3_600_000, 'dead-pass', { [leaseRecordsAnnotation]: 'none' });

      const report = await h.converge(allConverged);
      assert.notEqual(report.outcome, 'busy');
      assert.equal(storageOfTemplate(h, 'pg'), '20Gi');
      assert.deepEqual(h.kube.store.list(types.configMap, h.stateNamespace), []);
      assert.equal(leaseMark(h), 'none');
      assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.spec?.holderIdentity, undefined, 'released');
      h.kube.requestLog.reset();
      assert.ok(allConverged(await h.pass()));
      assert.deepEqual(calls(h), { total: floor(1), configMaps: ['list sts-volume-gitops'], writes: [] });
      assert.deepEqual(podIdentity(h.pods()), podsBefore);
    } finally {
      await h.close();
    }
  });

  it('says crash recovery only of a pass that was interrupted: a recreation left waiting for the old object is finished in plain words (issue 30 item 9)', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      // An ordinary resize: the first pass records, orphan-deletes and says it waits; the next one finishes it.
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      const first: string[] = [];
      await h.pass({ events: first });
      assert.ok(first.includes('db/pg: template data -> 20Gi pending: old object still being deleted'), first.join('\n'));
      h.kube.tick(1);
      const next: string[] = [];
      await h.pass({ events: next });
      assert.ok(next.includes('db/pg: template update set by orphan delete and recreate (pods untouched)'), next.join('\n'));
      assert.deepEqual(next.filter((line) => /unfinished|resum/.test(line)), [], 'nothing reads as crash recovery');
      await h.converge(allConverged);

      // A pass killed after the orphan delete never released the Lease: that, and only that, is resumed as unfinished.
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '30Gi' } });
      await h.pass();
      h.kube.tick(1);
      leaveLeaseHeld(h, 3_600_000);
      const after: string[] = [];
      await h.pass({ events: after });
      assert.deepEqual(after.filter((line) => /template update|unfinished/.test(line)), [
        'db/pg: resuming the template update an earlier pass left unfinished',
        'db/pg: template update resumed: set by orphan delete and recreate (pods untouched)',
      ]);
    } finally {
      await h.close();
    }
  });

  it('refuses a record an older version left beside its StatefulSet (no MAC): reported every pass, left in place, until a person resolves it', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      // What the previous version left when it died between the orphan delete and the create: its record in db, the set
      // deleted with propagationPolicy Orphan, and its Lease released without any records mark.
      const live = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(live);
      const target = buildRecreatedStatefulSet(live, new Map([['data', '20Gi']]));
      h.kube.store.create(types.configMap, {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: legacyRecreationRecordName('pg'), namespace: 'db', labels: { [recordLabel]: 'true' } },
        data: {
          statefulSet: 'pg', oldUid: live.metadata.uid ?? '', target: JSON.stringify(target),
          updateRevision: (live.status as { updateRevision: string }).updateRevision,
        },
      });
      await h.kube.kubeConfig().makeApiClient(AppsV1Api).deleteNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { propagationPolicy: 'Orphan' } });
      h.kube.tick(1);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined);
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });

      for (let pass = 0; pass < 2; pass++) {
        const report = await h.pass();
        assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'an unsigned record is never acted on');
        assert.deepEqual(report.refusedRecords, [{
          configMap: `db/${legacyRecreationRecordName('pg')}`, statefulSet: 'db/pg',
          reason: 'it carries no MAC: written by a version before records were signed, or by someone other than this deployment',
        }]);
        assert.match(report.notes.join('\n'), /create the StatefulSet from its data.target after checking it, then delete the ConfigMap/);
        assert.equal(h.kube.store.list(types.configMap, 'db').length, 1, 'left in place');
        assert.equal(leaseMark(h), undefined, 'the Lease keeps the old locations looked at');
      }
      const warnings = refusalEvents(h, 'db');
      assert.equal(warnings.length, 2, 'a Warning Event on the ConfigMap every pass');

      // The operator checks the record, creates the set from it and deletes the record: the passes go on as usual.
      await h.kube.kubeConfig().makeApiClient(AppsV1Api).createNamespacedStatefulSet({ namespace: 'db', body: target });
      h.kube.store.remove(types.configMap, 'db', legacyRecreationRecordName('pg'));
      const report = await h.converge(allConverged);
      assert.equal(report.refusedRecords, undefined);
      assert.equal(storageOfTemplate(h, 'pg'), '20Gi');
      assert.equal(leaseMark(h), 'none');
    } finally {
      await h.close();
    }
  });
});
