// The calls a resize makes beyond the floor (issue 14): the server is asked once a pass whether templates can change
// in place, not once per StatefulSet, since its answer is a rule of the API server, not of one set.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { ClusterError } from '../../functions/engine/ports.ts';
import { updateLiveTemplate } from '../../functions/engine/records/recreate-statefulset.ts';
import { LazyLease } from '../../functions/engine/lease/lazy-lease.ts';
import { passLedger, recordedInLedger } from '../../functions/engine/records/ledger.ts';
import { allConverged, startHarness, types } from './harness.ts';

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
      // No GET before the delete (the resourceVersion precondition stands for it), one after it to see it go.
      assert.equal(counts['get statefulsets'], 3, JSON.stringify(counts));
      const converged = await h.converge(allConverged);
      assert.ok(allConverged(converged));
    } finally {
      await h.close();
    }
  });

  it('never recreates from a stale read: an edit made since the set was read stops the orphan delete, and survives', async () => {
    const h = await startHarness({ statefulSets: ['kafka', 'pg'].map((name) => ({ name, replicas: 2, templates: { data: '10Gi' } })) });
    try {
      // Records signed with the harness's key and listed on its target's Lease, as a pass writes them (then released,
      // as by a pass that ended): its passes then resume them.
      const kube = new KubeCluster(h.kube.kubeConfig());
      const markPlace = { leaseNamespace: h.stateNamespace, leaseName: 'sts-volume-gitops-test', target: 'test' };
      const key = h.recordKey;
      assert.ok(key);
      const seenLease = await kube.readLease(markPlace.leaseNamespace, markPlace.leaseName);
      const ledger = passLedger(seenLease, key, markPlace, { ids: new Set() }, false);
      ledger.listedStateNamespace([]);
      const lease = new LazyLease({ cluster: kube, holderIdentity: 'earlier-pass' }, markPlace.leaseNamespace, markPlace.leaseName, seenLease, ledger);
      const cluster = recordedInLedger(kube, ledger, () => lease.listOutstanding(), key);
      const timing = { maxWaitMs: 0, pollIntervalMs: 1, sleep: () => Promise.resolve() };
      const place = { recordNamespace: h.stateNamespace, target: 'test' }; // the harness's target: its passes resume these records
      // kafka's update asks the server once whether templates change in place; pg's then goes straight to its record.
      const kafka = await cluster.getStatefulSet('db', 'kafka');
      assert.ok(kafka);
      assert.equal((await updateLiveTemplate(kafka, new Map([['data', '20Gi']]), cluster, timing, place)).outcome, 'waiting-for-deletion');
      const seen = await cluster.getStatefulSet('db', 'pg');
      assert.ok(seen);
      // Someone labels pg after the pass read it.
      const stored = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(stored);
      h.kube.store.replace(types.sts, { ...stored, metadata: { ...stored.metadata, labels: { ...stored.metadata.labels, team: 'payments' } } });
      await assert.rejects(updateLiveTemplate(seen, new Map([['data', '20Gi']]), cluster, timing, place),
        (error: unknown) => error instanceof ClusterError && error.status === 409 && /ResourceVersion in the precondition/.test(error.message));
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid, stored.metadata.uid, 'the set was not deleted');
      await lease.release(false);
      // The passes that follow drop the stale record and recreate pg from what it is now: the label stays.
      await h.writeManifest({ name: 'kafka', replicas: 2, templates: { data: '20Gi' } });
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      assert.ok(allConverged(await h.converge(allConverged)));
      const after = h.kube.store.get(types.sts, 'db', 'pg');
      assert.notEqual(after?.metadata.uid, stored.metadata.uid, 'recreated');
      assert.equal(after?.metadata.labels?.team, 'payments');
    } finally {
      await h.close();
    }
  });
});
