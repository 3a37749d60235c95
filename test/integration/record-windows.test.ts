// Windows where the Lease's list of recreations in progress and the records in the state namespace disagree: a pass
// that stops (a Lambda timeout, a lost reply) between two of its writes, or two passes at once. Whatever the crash or
// the race, a finished recreation is not listed (a copy of its record put back is refused), and a genuine record in
// progress is never reported as a forgery. Under the RBAC `sts-volume-gitops rbac` generates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { leaseOutstandingAnnotation } from '../../functions/adapters/kube/map-objects.ts';
import { LazyLease } from '../../functions/engine/lease/lazy-lease.ts';
import { passLedger, recordedInLedger } from '../../functions/engine/records/ledger.ts';
import { resumeRecreation, updateLiveTemplate } from '../../functions/engine/records/recreate-statefulset.ts';
import { attacker } from './attacker.ts';
import { allConverged, generatedRecordKey, startHarness, statefulSetReport, types, type Harness } from './harness.ts';
import { deleteByAdmin, leaseName, leaveLeaseHeld, leavePgAbsentWithRecord, pgRecord, putBack, refusalEvents } from './record-scenes.ts';

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

/**
 * pg's template update as another pass makes it, staged around the pass under test: that pass saves its record and is
 * stopped at the orphan delete (so pg still exists), and the Lease it wrote (listing the record) and the record are
 * kept, then taken away again: `save()` puts them back, as that pass's fence and save would land.
 */
async function anotherPassSaving(h: Harness): Promise<{ save: () => void }> {
  assert.ok(allConverged(await h.pass()));
  await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
  h.kube.faults.failNext('DELETE', 'statefulsets', 1, 'reset');
  await h.pass({ maxWaitMs: 0 });
  const record = h.kube.store.get(types.configMap, h.stateNamespace, pgRecord);
  const mark = h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.[leaseOutstandingAnnotation];
  assert.ok(record && mark, 'a record, listed by the Lease');
  h.kube.store.remove(types.configMap, h.stateNamespace, pgRecord);
  const lease = h.kube.store.get(types.lease, h.stateNamespace, leaseName);
  assert.ok(lease);
  const annotations = { ...lease.metadata.annotations };
  delete annotations[leaseOutstandingAnnotation];
  h.kube.store.replace(types.lease, { ...lease, metadata: { ...lease.metadata, annotations } });
  return {
    save: () => {
      leaveLeaseHeld(h, 0, 'other-pass', { [leaseOutstandingAnnotation]: mark });
      const { uid: _uid, resourceVersion: _version, creationTimestamp: _created, ...metadata } = record.metadata;
      h.kube.store.create(types.configMap, { ...record, metadata });
    },
  };
}

/** Runs `pass` with its records LIST held back until `between` ran, after the pass read the Lease. */
async function withWriteBetweenLeaseReadAndList<T>(h: Harness, between: () => void, pass: () => Promise<T>): Promise<T> {
  h.kube.requestLog.reset();
  h.kube.faults.add({ method: 'GET', resource: 'configmaps', latencyMs: 500 });
  try {
    const running = pass();
    while (!h.kube.requestLog.entries.some((e) => e.verb === 'get' && e.resource === 'leases')) await new Promise((resolve) => setTimeout(resolve, 2));
    between();
    return await running;
  } finally {
    h.kube.faults.clear();
  }
}

describe('a record key changed while a recreation is in progress (README: change it only while none is)', () => {
  it('fails closed: the record is refused and reported, nothing is created, and going back to the old key does not bring it back', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await leavePgAbsentWithRecord(h);

      const report = await h.pass({ recordKey: generatedRecordKey() });
      h.kube.tick(2);
      assert.match(report.refusedRecords?.[0]?.reason ?? '', /its MAC does not verify: .*or the record key was changed/);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'nothing created');
      assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.[leaseOutstandingAnnotation], undefined,
        'the old key\'s list is gone');
      const back = await h.pass();
      assert.match(back.refusedRecords?.[0]?.reason ?? '', /^not an outstanding recreation/);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined);
    } finally {
      await h.close();
    }
  });
});

describe('a genuine record saved by another pass while a pass reads the records', () => {
  it('is not reported as a forgery by a pass on the busy path (the Lease it read did not list it yet), and is resumed later', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const other = await anotherPassSaving(h);
      leaveLeaseHeld(h, 0, 'other-pass');
      const busy = await withWriteBetweenLeaseReadAndList(h, other.save, () => h.pass({ holder: 'next-pass' }));
      assert.equal(busy.outcome, 'busy');
      assert.equal(busy.refusedRecords, undefined, 'not refused');
      assert.deepEqual(refusalEvents(h), [], 'no Warning Event calling it a forgery');
      assert.match(busy.notes.join('\n'), new RegExp(`recreation record ${h.stateNamespace}/${pgRecord} .*the Lease was written since .*neither acted on nor reported; the next pass judges it`));
      assert.ok(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), 'left alone');

      // That pass dies; once its Lease expired the record is resumed.
      leaveLeaseHeld(h, 3_600_000, 'other-pass');
      const report = await h.converge(allConverged);
      assert.equal(report.refusedRecords, undefined);
      assert.deepEqual(refusalEvents(h), []);
      assert.equal(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), undefined, 'finished');
    } finally {
      await h.close();
    }
  });

  it('is not reported as a forgery by a pass that found the Lease free (and then finds it taken)', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const other = await anotherPassSaving(h);
      const report = await withWriteBetweenLeaseReadAndList(h, other.save, () => h.pass({ holder: 'next-pass' }));
      assert.notEqual(report.outcome, 'busy');
      assert.equal(report.refusedRecords, undefined, 'not refused');
      assert.deepEqual(refusalEvents(h), []);
      assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.spec?.holderIdentity, 'other-pass', 'the Lease is left to that pass');
      assert.ok(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), 'and its record');
    } finally {
      await h.close();
    }
  });
});

describe('a record in progress that another pass starts resuming first', () => {
  it('leaves it to that pass: the set is reported waiting, the pass ends, nothing is refused', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      // A pass saves pg's record, orphan-deletes it and stops; the Lease it released lists the record.
      await leavePgAbsentWithRecord(h);
      // This pass reads the Lease free; another takes it before this one writes.
      const report = await withWriteBetweenLeaseReadAndList(h, () => leaveLeaseHeld(h, 0, 'other-pass'), () => h.pass({ holder: 'next-pass' }));
      assert.notEqual(report.outcome, 'busy');
      assert.equal(report.refusedRecords, undefined);
      assert.match(report.notes.join('\n'), /db\/pg: transient error, retrying next pass: .*the object has been modified/);
      assert.equal(statefulSetReport(report, 'pg').outcome, 'waiting');
      assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.spec?.holderIdentity, 'other-pass');
      assert.ok(h.kube.store.get(types.configMap, h.stateNamespace, pgRecord), 'the record is left to that pass');
    } finally {
      await h.close();
    }
  });
});

describe('the busy path finishing a recreation its live holder is resuming', () => {
  /**
   * The holder, driven step by step: it saves pg's record, orphan-deletes pg and waits for the garbage collector; then
   * another pass, finding the Lease held, creates the absent set from the record and strikes it from the Lease's mark.
   */
  async function holderOvertakenByBusyPass(h: Harness): Promise<{ lease: LazyLease; resume: () => Promise<string> }> {
    assert.ok(allConverged(await h.pass()));
    const key = h.recordKey;
    assert.ok(key);
    const kube = new KubeCluster(h.kube.kubeConfig());
    const place = { leaseNamespace: h.stateNamespace, leaseName, target: 'test' };
    const seen = await kube.readLease(h.stateNamespace, leaseName);
    const ledger = passLedger(seen, key, place, { ids: new Set() }, false);
    ledger.listedStateNamespace([]);
    const lease = new LazyLease({ cluster: kube, holderIdentity: 'holder' }, h.stateNamespace, leaseName, seen, ledger);
    const cluster = recordedInLedger(kube, ledger, () => lease.listOutstanding(), key);
    const timing = { maxWaitMs: 0, pollIntervalMs: 1, sleep: () => Promise.resolve() };
    const live = await kube.getStatefulSet('db', 'pg');
    assert.ok(live);
    await lease.ensure();
    const update = await updateLiveTemplate(live, new Map([['data', '20Gi']]), cluster, timing, { recordNamespace: h.stateNamespace, target: 'test' });
    assert.equal(update.outcome, 'waiting-for-deletion');
    const [record] = await kube.listRecreationRecords(h.stateNamespace, 'test');
    assert.ok(record);
    h.kube.tick(1);

    await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
    const busy = await h.pass({ holder: 'next-pass' });
    assert.equal(busy.outcome, 'busy');
    assert.match(busy.notes.join('\n'), /db\/pg was absent after an interrupted template update: set by orphan delete and recreate/);
    assert.equal(h.kube.store.get(types.lease, h.stateNamespace, leaseName)?.metadata.annotations?.[leaseOutstandingAnnotation], undefined, 'struck');
    return { lease, resume: async () => (await resumeRecreation(record, cluster, timing)).outcome };
  }

  function releasedClean(h: Harness): void {
    const after = h.kube.store.get(types.lease, h.stateNamespace, leaseName);
    assert.equal(after?.spec?.holderIdentity, undefined, 'released: the passes after it are not busy');
    assert.equal(after?.metadata.annotations?.[leaseOutstandingAnnotation], undefined, 'listing nothing');
  }

  it('leaves the holder able to write its Lease: its own resume ends without error, and its release frees the Lease', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const holder = await holderOvertakenByBusyPass(h);
      // The holder looks again: the set is there, recreated; it drops the record (already gone) and releases.
      assert.equal(await holder.resume(), 'recreated');
      await holder.lease.release(true);
      releasedClean(h);
      assert.notEqual((await h.pass()).outcome, 'busy');
    } finally {
      await h.close();
    }
  });

  it('lets a holder that stops without looking again release its Lease, listing nothing the busy pass finished', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const holder = await holderOvertakenByBusyPass(h);
      await holder.lease.release(false);
      releasedClean(h);
    } finally {
      await h.close();
    }
  });
});
