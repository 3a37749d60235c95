// The sandbox's Prometheus answers the tool's queries as a real Prometheus 2.42 did (recordings.json, made by record.ts
// over the volumes of world.ts): the sandbox is seeded as that world, its clock at the recording's last sample, and
// every recorded query is asked again. Status, content type, the envelope, the result's type, each sample's labels
// (a scrape's `instance` value aside: the sandbox has its own nodes) and value (a millionth apart at most: deriv is a
// least-squares slope over integer samples there, the exact pace here), the time, and an error's type and words.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import recorded from './recordings.json' with { type: 'json' };
import type { Recording } from './record.ts';
import { recordedQueries } from './record.ts';
import { recordedVolumes, sandboxSeedOf } from './world.ts';

interface Sample { metric: Record<string, string>; value: [number, string] }
interface Envelope { status: string; errorType?: string; error?: string; data?: { resultType: string; result: Sample[] } }

/** Samples in a stable order (Prometheus does not promise one but topk's), with the scrape's instance value left out. */
function comparable(body: Envelope, keepOrder: boolean): Array<{ labels: string; value: number; time: number }> {
  const samples = (body.data?.result ?? []).map((s) => ({
    labels: JSON.stringify(Object.fromEntries(Object.entries(s.metric).map(([k, v]) => [k, k === 'instance' ? '(a kubelet)' : v]).sort(([a = ''], [b = '']) => a.localeCompare(b)))),
    value: Number(s.value[1]), time: s.value[0],
  }));
  return keepOrder ? samples : samples.sort((a, b) => a.labels.localeCompare(b.labels));
}

function close(a: number, b: number): boolean {
  return a === b || Math.abs(a - b) <= 1e-6 * Math.max(Math.abs(a), Math.abs(b));
}

describe('the sandbox\'s Prometheus answers as a real Prometheus 2.42 did', () => {
  let kube: KubeSandbox;
  const recordings = recorded.recordings as Recording[];

  before(async () => {
    kube = await startKubeSandbox({ seed: sandboxSeedOf(recordedVolumes), now: () => new Date(recorded.lastSampleTime * 1000) });
  });
  after(async () => { await kube.close(); });

  it('the recordings are of the queries the tool sends today (record.ts again if not)', () => {
    assert.deepEqual(recordings.map((r) => r.query), recordedQueries().map((q) => q.query));
  });

  for (const recording of recorded.recordings as Recording[]) {
    it(recording.name, async () => {
      const response = await fetch(`${kube.prometheus.url}/api/v1/query`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ query: recording.query, time: String(recording.time) }),
      });
      assert.equal(response.status, recording.status);
      assert.equal(response.headers.get('content-type'), recording.contentType);
      const body = await response.json() as Envelope;
      const real = recording.body as Envelope;
      assert.equal(body.status, real.status);
      if (real.status === 'error') {
        assert.equal(body.errorType, real.errorType);
        assert.equal(body.error, real.error, 'the same words: invalid parameter "query", the column, the parse error');
        return;
      }
      assert.equal(body.data?.resultType, real.data?.resultType);
      const [ours, theirs] = [comparable(body, recording.query.startsWith('topk')), comparable(real, recording.query.startsWith('topk'))];
      assert.deepEqual(ours.map((s) => s.labels), theirs.map((s) => s.labels));
      for (const [index, sample] of ours.entries()) {
        const expected = theirs[index];
        assert.ok(expected && close(sample.value, expected.value), `${sample.labels}: ${sample.value}, recorded ${expected?.value}`);
        assert.equal(sample.time, expected?.time);
      }
    });
  }
});
