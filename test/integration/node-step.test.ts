// The node step through a whole pass, against the sandbox's kubelet held to a real kubelet v1.34.9
// (test/conformance/node-replay.test.ts): with the pods running, the volumes wait for the kubelet's next sync of each
// pod, and the passes say so and advise no restart; the kubelet grows them with the pods running, every pod kept.
// Only a wait longer than stalledAfter (a driver that cannot expand online) gets the restart advice, naming every
// stalled claim. The sandbox's and the passes' clock is played, never waited for.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { mustResourceType } from '../../sandbox/kube/store.ts';
import { podIdentity, startHarness, statefulSetReport, storageOf, type Harness } from './harness.ts';

const eventType = mustResourceType('v1', 'Event');
const minute = 60_000;

function clock(): { now: () => Date; advance: (ms: number) => void } {
  let nowMs = Date.parse('2026-03-02T09:00:00Z');
  return { now: () => new Date(nowMs), advance: (ms) => { nowMs += ms; } };
}

/** Passes with two controller ticks between them, the clock still, until the set's claims all wait for their node. */
async function untilWaitingForNode(harness: Harness): Promise<Awaited<ReturnType<Harness['pass']>>> {
  for (let i = 0; i < 10; i++) {
    const report = await harness.pass();
    const states = statefulSetReport(report, 'web').templates[0]?.pvcs.map((p) => p.state) ?? [];
    if (states.length > 0 && states.every((s) => s === 'waiting-for-node')) return report;
    harness.kube.tick(2);
  }
  assert.fail('the claims never waited for their node');
}

describe('the node step of an online expansion, the pods running', () => {
  const time = clock();
  let harness: Harness;
  before(async () => {
    harness = await startHarness({
      now: time.now, kubelet: { nodeName: 'node-1', syncFrequencySeconds: 60 },
      statefulSets: [{ name: 'web', replicas: 2, templates: { data: '1Gi' } }],
    });
  });
  after(() => harness.close());

  it('waits for the kubelet\'s next sync of each running pod, advising no restart; the kubelet grows the volumes with the pods kept', async () => {
    const pods = podIdentity(harness.pods());
    await harness.writeManifest({ name: 'web', replicas: 2, templates: { data: '2Gi' } });
    const waiting = await untilWaitingForNode(harness);
    const sts = statefulSetReport(waiting, 'web');
    assert.equal(sts.outcome, 'in-progress');
    assert.deepEqual(sts.templates[0]?.pvcs.map((p) => p.message), [0, 1].map((i) => `the kubelet on node-1 expands the file system at its next sync of pod web-${i}, `
      + 'which runs (every --sync-frequency, 1m by default); no restart is needed unless it still waits after stalledAfter (1h)'));
    // More passes while the kubelet has not synced yet: still waiting, nothing restarted.
    harness.kube.tick(3);
    const still = statefulSetReport(await harness.pass(), 'web');
    assert.deepEqual(still.templates[0]?.pvcs.map((p) => p.state), ['waiting-for-node', 'waiting-for-node']);
    assert.deepEqual(podIdentity(harness.pods()), pods);

    // The kubelet's next sync comes 60-90 s after the last one.
    time.advance(91_000);
    harness.kube.tick(3);
    const done = await harness.pass();
    assert.equal(statefulSetReport(done, 'web').outcome, 'converged');
    assert.deepEqual(harness.pvcs().map(storageOf), [0, 1].map(() => ({ request: '2Gi', capacity: '2Gi' })));
    assert.deepEqual(podIdentity(harness.pods()), pods, 'the pods were never restarted');
    const grown = harness.kube.store.list(eventType, 'db').filter((e) => e.reason === 'FileSystemResizeSuccessful' && (e.involvedObject as { kind: string }).kind === 'Pod');
    assert.deepEqual(grown.map((e) => (e.source as { host?: string }).host), ['node-1', 'node-1']);
  });
});

describe('the node step of a driver that cannot expand online', () => {
  const time = clock();
  let harness: Harness;
  before(async () => {
    harness = await startHarness({
      now: time.now, kubelet: { nodeName: 'node-1', syncFrequencySeconds: 60 }, stalledAfterSeconds: 600,
      storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1, nodeExpansion: 'offline' } }],
      statefulSets: [{ name: 'web', replicas: 2, templates: { data: '1Gi' } }],
    });
  });
  after(() => harness.close());

  it('is waiting until stalledAfter, then stalled, naming every stalled claim and advising the restart it needs', async () => {
    await harness.writeManifest({ name: 'web', replicas: 2, templates: { data: '2Gi' } });
    const waiting = statefulSetReport(await untilWaitingForNode(harness), 'web');
    assert.doesNotMatch(waiting.templates[0]?.pvcs.map((p) => p.message).join(' ') ?? '', /restart it|kubectl delete pod/);
    time.advance(9 * minute);
    harness.kube.tick(3);
    assert.equal(statefulSetReport(await harness.pass(), 'web').outcome, 'in-progress', 'not stalled before stalledAfter, whatever the kubelet\'s syncs');

    time.advance(2 * minute);
    const stalled = statefulSetReport(await harness.pass(), 'web');
    assert.equal(stalled.outcome, 'stalled');
    assert.deepEqual(stalled.templates[0]?.pvcs.map((p) => p.state), ['stalled-on-node', 'stalled-on-node']);
    assert.match(stalled.templates[0]?.pvcs[1]?.message ?? '', /^waiting for the node since .*, longer than stalledAfter 10m: the resizer says "Waiting for user to \(re-\)start a pod to finish file system resize of volume on node\."; pod web-1 runs on node-1: restart it \(kubectl delete pod -n db web-1: its StatefulSet recreates it\)/);
    assert.match(stalled.templates[0]?.lastError ?? '', /^data-web-0, data-web-1 stalled; data-web-0: waiting for the node since/);
  });
});
