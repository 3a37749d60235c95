// Issue 37, item 8: a change that is blocked or failed for good leaves a Warning Event on its StatefulSet, so
// `kubectl describe` and Argo CD's resource view show it; the same problem pass after pass is one Event, its repeats
// counted on it as client-go's recorder counts them (count and lastTimestamp), never a new Event a pass. The engine
// runs against the Kubernetes sandbox as the tool's identity, under the RBAC manifest `rbac` generates.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventRefreshMs } from '../../functions/engine/report/problem-events.ts';
import { startHarness, statefulSetReport, types, type Harness } from './harness.ts';

/** The StatefulSet's Events of this reason, as `kubectl get events --field-selector involvedObject.name=NAME` lists them. */
function eventsOf(h: Harness, name: string, reason: string): Array<Record<string, unknown>> {
  const uid = h.kube.store.get(types.sts, 'db', name)?.metadata.uid;
  return h.kube.store.list(types.event, 'db').filter((e) => (e.involvedObject as { uid?: string }).uid === uid && e.reason === reason);
}

describe('Warning Events for blocked and failed changes', () => {
  it('records one Warning for a blocked shrink, counts it again only once it is half an hour old, and writes nothing in between', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }] });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '5Gi' } });
      assert.equal((await h.pass({ mode: 'plan' })).statefulSets[0]?.outcome, 'blocked');
      assert.deepEqual(eventsOf(h, 'pg', 'ResizeBlocked'), [], 'a plan writes nothing');
      const start = Date.now();
      assert.equal(statefulSetReport(await h.pass({ now: () => new Date(start) }), 'pg').outcome, 'blocked');
      const [event, ...more] = eventsOf(h, 'pg', 'ResizeBlocked');
      assert.deepEqual(more, []);
      assert.equal(event?.type, 'Warning');
      assert.equal(event?.count, 1);
      assert.deepEqual(event?.source, { component: 'sts-volume-gitops' });
      assert.deepEqual((event?.involvedObject as Record<string, unknown>).kind, 'StatefulSet');
      assert.match(String(event?.message), /^data: 5Gi is not above the current capacity of data-pg-0 \(10Gi\), data-pg-1 \(10Gi\); a request can only be lowered/);

      h.kube.requestLog.reset();
      await h.pass({ now: () => new Date(start + 60_000) });
      assert.deepEqual(h.kube.requestLog.writes(), [], 'a fresh Event is not counted again: the pass writes nothing');
      assert.equal(eventsOf(h, 'pg', 'ResizeBlocked')[0]?.count, 1);

      const later = new Date(start + eventRefreshMs + 60_000);
      await h.pass({ now: () => later });
      const counted = eventsOf(h, 'pg', 'ResizeBlocked');
      assert.equal(counted.length, 1, 'the repeat is counted on the Event, not recorded as another');
      assert.equal(counted[0]?.count, 2);
      assert.equal(counted[0]?.lastTimestamp, later.toISOString().replace(/\.\d{3}Z$/, 'Z'));
      assert.equal(counted[0]?.firstTimestamp, event?.firstTimestamp);
    } finally {
      await h.close();
    }
  });

  it('records a Warning for a resize the driver refused for good, with the driver\'s words', async () => {
    const h = await startHarness({
      storageClasses: [{ name: 'capped', default: true, allowVolumeExpansion: true, driver: { maxVolumeSize: '15Gi', ticksPerPhase: 1 } }],
      statefulSets: [{ name: 'ch', replicas: 1, templates: { data: '10Gi' }, storageClass: 'capped' }],
    });
    try {
      await h.writeManifest({ name: 'ch', replicas: 1, templates: { data: '30Gi' }, storageClass: 'capped' });
      await h.converge((report) => statefulSetReport(report, 'ch').outcome === 'failed', { ticks: 3 });
      const [event, ...more] = eventsOf(h, 'ch', 'ResizeFailed');
      assert.deepEqual(more, []);
      assert.equal(event?.type, 'Warning');
      assert.match(String(event?.message), /^data-ch-0: /);
      await h.pass();
      assert.equal(eventsOf(h, 'ch', 'ResizeFailed').length, 1);
    } finally {
      await h.close();
    }
  });
});
