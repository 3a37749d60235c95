// An answer read for its claims straight from the text (pure): over a real Prometheus 2.42's recorded answers it reads
// what JSON.parse reads, and every answer not written as Prometheus writes it (indented, escaped, reordered, broken,
// an error) is read by JSON.parse instead, with the same samples and the same failures.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readClaimVector, scanClaimVector, type ClaimVectorAnswer } from '../../functions/usage/claim-vector.ts';
import { readAnswer } from '../../functions/usage/prometheus-api.ts';
import recorded from '../conformance/prometheus/recordings.json' with { type: 'json' };

/** What readAnswer's samples say of the claims: the columns the text's reading must equal. */
function viaJsonParse(status: number, contentType: string | null, text: string): ClaimVectorAnswer {
  const answer = readAnswer(status, contentType, text);
  if (!answer.ok) return answer;
  const named = answer.samples.filter((s) => typeof s.labels.namespace === 'string' && typeof s.labels.persistentvolumeclaim === 'string');
  return {
    ok: true, warnings: answer.warnings,
    samples: { namespaces: named.map((s) => s.labels.namespace ?? ''), claims: named.map((s) => s.labels.persistentvolumeclaim ?? ''), values: named.map((s) => s.value) },
  };
}

const sample = (labels: Record<string, string>, value: string): Record<string, unknown> => ({ metric: labels, value: [1795877139.197, value] });
const vector = (result: unknown[], extra: Record<string, unknown> = {}): string => JSON.stringify({ status: 'success', data: { resultType: 'vector', result }, ...extra });

describe('reading an answer for its claims', () => {
  it('reads every recorded answer of the pass\'s queries from the text, as JSON.parse reads it', () => {
    const pass = recorded.recordings.filter((r) => r.name.startsWith('pass: '));
    assert.equal(pass.length, 8);
    for (const recording of pass) {
      const text = JSON.stringify(recording.body);
      const scanned = scanClaimVector(text, {});
      assert.ok(scanned?.ok, recording.name);
      assert.deepEqual(scanned, viaJsonParse(recording.status, recording.contentType, text), recording.name);
    }
    const used = scanClaimVector(JSON.stringify(recorded.recordings[0]?.body), {});
    assert.ok(used?.ok);
    assert.equal(used.samples.claims[0], 'data-pg-0');
    assert.equal(used.samples.values[0], 9126805504);
  });

  it('keeps the claims\' labels among others, and leaves out samples without both and values that are no number', () => {
    const text = vector([
      sample({ __name__: 'kubelet_volume_stats_used_bytes', instance: 'node-a:10250', namespace: 'db', persistentvolumeclaim: 'data-pg-0', zone: 'b' }, '5'),
      sample({ namespace: 'db' }, '6'),
      sample({ persistentvolumeclaim: 'data-pg-1' }, '7'),
      sample({ namespace: 'db', persistentvolumeclaim: 'data-pg-2' }, 'NaN'),
      sample({ namespace: 'db', persistentvolumeclaim: 'data-pg-3' }, '+Inf'),
      sample({ namespace: 'db', persistentvolumeclaim: 'data-pg-4' }, '-1.5e-7'),
    ], { warnings: ['partial response: store gateway unavailable'] });
    const scanned = scanClaimVector(text, {});
    assert.deepEqual(scanned, {
      ok: true, warnings: ['partial response: store gateway unavailable'],
      samples: { namespaces: ['db', 'db'], claims: ['data-pg-0', 'data-pg-4'], values: [5, -1.5e-7] },
    });
    assert.deepEqual(scanned, viaJsonParse(200, 'application/json', text));
    assert.deepEqual(scanClaimVector(vector([]), {}), { ok: true, warnings: [], samples: { namespaces: [], claims: [], values: [] } });
  });

  it('leaves to JSON.parse what is not written as Prometheus writes it, and reads it alike', () => {
    const labels = { namespace: 'db', persistentvolumeclaim: 'data-pg-0' };
    const body = { status: 'success', data: { resultType: 'vector', result: [sample(labels, '5')] } };
    const others = {
      indented: JSON.stringify(body, null, 2),
      'an escaped label': vector([sample({ namespace: 'db', persistentvolumeclaim: 'data-"pg"-0' }, '5')]),
      'value before metric': JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ value: [1, '5'], metric: labels }] } }),
      'a warning with an escape': vector([sample(labels, '5')], { warnings: ['store "b" unavailable'] }),
      'VictoriaMetrics\' envelope': JSON.stringify({ status: 'success', isPartial: false, data: { resultType: 'vector', result: [sample(labels, '5')] }, stats: { seriesFetched: '1' } }),
    };
    for (const [what, text] of Object.entries(others)) {
      const read = readClaimVector(200, 'application/json', text);
      assert.ok(read.ok, what);
      assert.deepEqual(read, viaJsonParse(200, 'application/json', text), what);
    }
    assert.equal(scanClaimVector(others.indented, {}), undefined);
    assert.equal(scanClaimVector(others['an escaped label'], {}), undefined);
    assert.equal(scanClaimVector(others['value before metric'], {}), undefined);
    const victoria = readClaimVector(200, 'application/json', others['VictoriaMetrics\' envelope']);
    assert.ok(victoria.ok);
    assert.deepEqual(victoria.samples.claims, ['data-pg-0']);
  });

  it('fails as JSON.parse\'s reading fails: an error, a page, another result type, a broken sample, a cut answer', () => {
    const malformed = recorded.recordings.find((r) => r.name === 'malformed');
    assert.ok(malformed);
    const good = vector([sample({ namespace: 'db', persistentvolumeclaim: 'data-pg-0' }, '5')]);
    const cases: Array<[number, string | null, string]> = [
      [malformed.status, malformed.contentType, JSON.stringify(malformed.body)],
      [200, 'text/html; charset=utf-8', '<!DOCTYPE html><html><body>Sign in</body></html>'],
      [200, 'application/json', JSON.stringify({ status: 'success', data: { resultType: 'matrix', result: [] } })],
      [200, 'application/json', good.replace('[1795877139.197,"5"]', '[1795877139.197,5]')],
      [200, 'application/json', good.replace('1795877139.197', '17958.77.139')],
      [200, 'application/json', good.slice(0, good.length - 3)],
      [200, 'application/json', JSON.stringify({ status: 'success', data: { resultType: 'vector', result: [{ metric: { 'result":[': 'x' }, value: [1, '5'] }] } })],
      [502, 'text/html', '<html>Bad Gateway</html>'],
    ];
    for (const [status, contentType, text] of cases) {
      const read = readClaimVector(status, contentType, text);
      assert.deepEqual(read, viaJsonParse(status, contentType, text), text.slice(0, 80));
    }
    assert.equal(readClaimVector(200, 'application/json', good.slice(0, good.length - 3)).ok, false);
  });
});
