// The KEP-0661 test plan, run end to end: runPass with the real client-node adapter against the Kubernetes sandbox.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { statusAnnotation } from '../../functions/engine/report/template-status.ts';
import {
  allConverged, podIdentity, startHarness, statefulSetReport, storageOf, types,
} from './harness.ts';

describe('reconcile pass against the Kubernetes sandbox', () => {
  // The suite runs against v1.34 (the sandbox's default); this pass also against v1.26, the oldest version recorded.
  for (const version of ['1.34', '1.26']) {
    it(`grows a single replica: template recreated without restarting the pod, PVC patched, finished reported (v${version})`, async () => {
      const h = await startHarness({ version, statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }] });
      assert.equal(h.kube.server.name, version);
      try {
        const podsBefore = podIdentity(h.pods());
        const revisionBefore = h.kube.store.get(types.sts, 'db', 'pg')?.status?.updateRevision;
        await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '20Gi' } });
        const startedBefore = Date.now();
        const report = await h.converge(allConverged);
        const template = statefulSetReport(report, 'pg').templates[0];
        assert.equal(template?.readyReplicas, 1);
        assert.equal(template?.finished, true);
        assert.deepEqual(h.pvcs().map(storageOf), [{ request: '20Gi', capacity: '20Gi' }]);
        const live = h.kube.store.get(types.sts, 'db', 'pg');
        const claims = (live?.spec?.volumeClaimTemplates ?? []) as Array<{ spec: { resources: { requests: { storage: string } } } }>;
        assert.equal(claims[0]?.spec.resources.requests.storage, '20Gi');
        assert.deepEqual(podIdentity(h.pods()), podsBefore, 'no pod was restarted');
        assert.equal(live?.status?.updateRevision, revisionBefore);
        const annotation = JSON.parse(live?.metadata.annotations?.[statusAnnotation] ?? '[]') as Array<Record<string, unknown>>;
        const { startedAt, ...status } = annotation[0] ?? {};
        assert.deepEqual(status, {
          templateName: 'data', desiredSize: '20Gi', change: 'size', commitSha: report.commitSha, replicas: 1, readyReplicas: 1,
          finishedReconciliationGeneration: live?.metadata.generation,
        });
        assert.ok(typeof startedAt === 'string' && Date.parse(startedAt) >= startedBefore && Date.parse(startedAt) <= Date.now(), `startedAt ${String(startedAt)}: when the pass began the change`);
        assert.equal(h.kube.store.list(types.configMap, 'db').length, 0, 'the recreation record is dropped');
      } finally {
        await h.close();
      }
    });
  }

  it('recreates with the server\'s own JSON: a pod template field newer than client-node survives, no pod restarts', async () => {
    const h = await startHarness({
      newerServerFields: { V1PodSpec: ['futureScheduling'] },
      podSpecExtras: { futureScheduling: { mode: 'compact', zones: ['a', 'b'] } },
      statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }],
    });
    try {
      const before = h.kube.store.get(types.sts, 'db', 'pg');
      const podsBefore = podIdentity(h.pods());
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      await h.converge(allConverged);
      const after = h.kube.store.get(types.sts, 'db', 'pg');
      assert.notEqual(after?.metadata.uid, before?.metadata.uid, 'the StatefulSet was recreated');
      const podSpec = (after?.spec as { template: { spec: Record<string, unknown> } }).template.spec;
      assert.deepEqual(podSpec.futureScheduling, { mode: 'compact', zones: ['a', 'b'] });
      assert.equal(after?.status?.updateRevision, before?.status?.updateRevision);
      assert.deepEqual(podIdentity(h.pods()), podsBefore, 'no pod was restarted');
      assert.deepEqual(h.pvcs().map(storageOf), [{ request: '20Gi', capacity: '20Gi' }, { request: '20Gi', capacity: '20Gi' }]);
    } finally {
      await h.close();
    }
  });

  it('updates the template in place where the API server accepts it (a dry run tells), keeping the same object', async () => {
    const h = await startHarness({ featureGates: ['StatefulSetUpdateVolumeClaimTemplate'], statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      const uid = h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid;
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      const first = await h.pass();
      assert.equal(statefulSetReport(first, 'pg').templateUpdate, 'updated-in-place');
      assert.equal(statefulSetReport(first, 'pg').templates[0]?.pvcs.filter((p) => p.state === 'patched').length, 2, 'PVCs patched in the same pass');
      const report = await h.converge(allConverged);
      assert.equal(statefulSetReport(report, 'pg').templates[0]?.readyReplicas, 2);
      assert.equal(h.kube.store.get(types.sts, 'db', 'pg')?.metadata.uid, uid, 'never deleted');
      assert.equal(h.kube.requestLog.countsByVerbAndResource()['delete statefulsets'], undefined);
    } finally {
      await h.close();
    }
  });

  for (const policy of ['OrderedReady', 'Parallel'] as const) {
    it(`patches only replicas whose pod is Running at the current revision, and readyReplicas climbs (${policy})`, async () => {
      const h = await startHarness({ statefulSets: [{ name: 'pg', policy, replicas: 3, templates: { data: '10Gi' } }] });
      try {
        // Replica 1's pod is not running (e.g. rescheduling): its PVC must wait, the others go ahead.
        const pod1 = h.kube.store.get(types.pod, 'db', 'pg-1');
        assert.ok(pod1);
        h.kube.store.replace(types.pod, { ...pod1, status: { phase: 'Unknown' } });
        await h.writeManifest({ name: 'pg', policy, replicas: 3, templates: { data: '20Gi' } });
        const first = await h.converge((r) => statefulSetReport(r, 'pg').templates[0]?.pvcs.some((p) => p.state === 'patched') ?? false);
        assert.deepEqual(statefulSetReport(first, 'pg').templates[0]?.pvcs.map((p) => p.state), ['patched', 'waiting-for-pod', 'patched']);
        assert.equal(statefulSetReport(first, 'pg').outcome, 'in-progress');
        assert.equal(storageOf(h.kube.store.get(types.pvc, 'db', 'data-pg-1') ?? { apiVersion: '', kind: '', metadata: { name: '' } }).request, '10Gi');

        const seen: number[] = [];
        h.kube.tick(5);
        let report = await h.pass();
        seen.push(statefulSetReport(report, 'pg').templates[0]?.readyReplicas ?? -1);
        assert.equal(seen[0], 2, 'the two patched replicas finished');
        const pending = h.kube.store.get(types.pod, 'db', 'pg-1');
        assert.ok(pending);
        h.kube.store.replace(types.pod, { ...pending, status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] } });
        report = await h.converge(allConverged);
        assert.equal(statefulSetReport(report, 'pg').templates[0]?.readyReplicas, 3);
      } finally {
        await h.close();
      }
    });
  }

  it('rejects a decrease to the capacity early, then converges when Git reverts it', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '5Gi' } });
      h.kube.requestLog.reset();
      const blocked = await h.pass();
      const sts = statefulSetReport(blocked, 'pg');
      assert.equal(sts.outcome, 'blocked');
      assert.match(sts.templates[0]?.reasons[0] ?? '', /5Gi is not above the current capacity of data-pg-0 \(10Gi\), data-pg-1 \(10Gi\)/);
      assert.equal(sts.templates[0]?.readyReplicas, 0);
      assert.equal(sts.templates[0]?.finished, false);
      assert.ok(h.kube.requestLog.writes().every((w) => w.resource !== 'persistentvolumeclaims'), 'no PVC was written');
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '10Gi' } });
      const reverted = await h.converge(allConverged);
      assert.equal(statefulSetReport(reverted, 'pg').templates[0]?.finished, true);
    } finally {
      await h.close();
    }
  });

  it('finishes one template while the other, lowered below capacity, stays failed', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi', wal: '4Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi', wal: '2Gi' } });
      const report = await h.converge((r) => statefulSetReport(r, 'pg').templates[0]?.finished === true);
      const [data, wal] = statefulSetReport(report, 'pg').templates;
      assert.equal(data?.readyReplicas, 2);
      assert.equal(wal?.action, 'blocked');
      assert.equal(wal?.readyReplicas, 0);
      assert.equal(wal?.finishedReconciliationGeneration, undefined);
      assert.deepEqual(h.pvcs().map((p) => [p.metadata.name, storageOf(p).capacity]), [
        ['data-pg-0', '20Gi'], ['data-pg-1', '20Gi'], ['wal-pg-0', '4Gi'], ['wal-pg-1', '4Gi'],
      ]);
    } finally {
      await h.close();
    }
  });

  const crashPoints: Array<{ step: string; method: string; resource: string }> = [
    { step: 'persisting the recreation record', method: 'POST', resource: 'configmaps' },
    { step: 'the orphan delete', method: 'DELETE', resource: 'statefulsets' },
    { step: 'creating the new StatefulSet', method: 'POST', resource: 'statefulsets' },
    { step: 'dropping the record', method: 'DELETE', resource: 'configmaps' },
  ];
  for (const crash of crashPoints) {
    it(`resumes after a crash at ${crash.step}, with no pod restarted and nothing lost`, async () => {
      const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
      try {
        const podsBefore = podIdentity(h.pods());
        await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
        h.kube.faults.failNext(crash.method, crash.resource, 1, 'reset');
        const crashed = await h.pass({ maxWaitMs: 0 });
        assert.notEqual(statefulSetReport(crashed, 'pg').outcome, 'converged');
        const report = await h.converge(allConverged);
        assert.equal(statefulSetReport(report, 'pg').templates[0]?.readyReplicas, 2);
        assert.deepEqual(podIdentity(h.pods()), podsBefore);
        assert.equal(h.kube.store.list(types.sts, 'db').length, 1);
        assert.equal(h.kube.store.list(types.configMap, 'db').length, 0);
        assert.deepEqual(h.pvcs().map((p) => storageOf(p).capacity), ['20Gi', '20Gi']);
      } finally {
        await h.close();
      }
    });
  }

  it('exits busy without a single write when another live holder has the lease, saying who holds it, since and until when, and what waits', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '20Gi' } });
      const renewed = new Date(Date.now() - 5_000);
      h.kube.store.create(types.lease, {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'sts-volume-gitops-test', namespace: h.stateNamespace },
        spec: { holderIdentity: 'another-pass', leaseDurationSeconds: 15, acquireTime: '2026-03-02T09:00:00.000000Z', renewTime: renewed.toISOString().replace('Z', '000Z') },
      });
      h.kube.requestLog.reset();
      const report = await h.pass({ holder: 'me' });
      assert.equal(report.outcome, 'busy');
      assert.deepEqual(h.kube.requestLog.writes(), []);
      const until = new Date(renewed.getTime() + 15_000).toISOString();
      assert.deepEqual(report.heldBy, { lease: 'sts-volume-gitops/sts-volume-gitops-test', holder: 'another-pass', since: '2026-03-02T09:00:00.000Z', until });
      assert.equal(report.notes[0], `lease sts-volume-gitops/sts-volume-gitops-test: another pass (another-pass) holds the target since 2026-03-02T09:00:00.000Z until ${until}`);
      // The change in Git waits for the holder, and says so (its progress check carries it: test/feedback/busy-progress.test.ts).
      assert.deepEqual(report.statefulSets.map((s) => [s.name, s.outcome, s.waitingFor]), [['pg', 'waiting', `another pass (another-pass) holds the target since 2026-03-02T09:00:00.000Z until ${until}`]]);
    } finally {
      await h.close();
    }
  });

  it('takes over a lease whose holder stopped renewing it', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '20Gi' } });
      h.kube.store.create(types.lease, {
        apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name: 'sts-volume-gitops-test', namespace: h.stateNamespace },
        spec: { holderIdentity: 'crashed-pass', leaseDurationSeconds: 60, renewTime: new Date(Date.now() - 120_000).toISOString() },
      });
      const report = await h.converge(allConverged);
      assert.equal(report.outcome, 'ok');
    } finally {
      await h.close();
    }
  });

  it('makes no writes at all on a second pass over a converged cluster', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }, { name: 'redis', policy: 'Parallel', replicas: 2, templates: { data: '1Gi', logs: '1Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      await h.converge(allConverged);
      h.kube.requestLog.reset();
      for (let i = 0; i < 3; i++) {
        const report = await h.pass();
        assert.ok(allConverged(report));
      }
      assert.deepEqual(h.kube.requestLog.writes(), []);
      const counts = h.kube.requestLog.countsByVerbAndResource();
      assert.equal(counts['list statefulsets'], 3, 'one LIST of statefulsets per namespace per pass');
      assert.equal(counts['get statefulsets'], undefined, 'no per-object GETs on the read path');
    } finally {
      await h.close();
    }
  });

  it('reports a StatefulSet that is in Git but not in the cluster, and never creates it', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'ghost', replicas: 1, templates: { data: '1Gi' } });
      const report = await h.pass();
      assert.equal(statefulSetReport(report, 'ghost').outcome, 'missing-in-cluster');
      assert.equal(h.kube.store.get(types.sts, 'db', 'ghost'), undefined);
    } finally {
      await h.close();
    }
  });

  it('waits instead of failing when the set is scaled to zero', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }] });
    try {
      const sts = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(sts);
      h.kube.store.replace(types.sts, { ...sts, spec: { ...sts.spec, replicas: 0 } });
      h.kube.tick(2);
      await h.writeManifest({ name: 'pg', replicas: 0, templates: { data: '20Gi' } });
      const report = await h.converge((r) => statefulSetReport(r, 'pg').templateUpdate === 'recreated' || statefulSetReport(r, 'pg').outcome === 'converged');
      const after = await h.pass();
      assert.ok(['converged', 'waiting'].includes(statefulSetReport(after, 'pg').outcome));
      assert.equal(statefulSetReport(report, 'pg').templates[0]?.pvcs.length, 0);
      assert.equal(storageOf(h.kube.store.get(types.pvc, 'db', 'data-pg-0') ?? { apiVersion: '', kind: '', metadata: { name: '' } }).request, '10Gi', 'PVCs of scaled-down replicas are left alone');
    } finally {
      await h.close();
    }
  });
});
