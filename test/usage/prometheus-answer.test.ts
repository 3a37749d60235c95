// How an answer of the Prometheus HTTP API is read (pure): the envelope as a real Prometheus 2.42 writes it (the
// recorded answers of test/conformance/prometheus/), an error envelope, a proxy's page, NaN, and warnings.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readAnswer } from '../../functions/usage/prometheus-api.ts';
import recorded from '../conformance/prometheus/recordings.json' with { type: 'json' };

const answerOf = (name: string) => {
  const recording = recorded.recordings.find((r) => r.name === name);
  assert.ok(recording, name);
  return readAnswer(recording.status, recording.contentType, JSON.stringify(recording.body));
};

describe('reading an answer of the Prometheus HTTP API', () => {
  it('reads a recorded vector: one sample per claim, its labels and value', () => {
    const answer = answerOf('pass: usedBytes');
    assert.ok(answer.ok);
    assert.deepEqual(answer.samples[0], { labels: { namespace: 'db', persistentvolumeclaim: 'data-pg-0' }, value: 9126805504 });
    assert.deepEqual(answer.warnings, []);
  });

  it('says a recorded error as Prometheus said it: status, errorType and words', () => {
    const answer = answerOf('malformed');
    assert.ok(!answer.ok);
    assert.deepEqual(answer.failure, {
      kind: 'query-error', status: 400, errorType: 'bad_data',
      message: 'Prometheus answered 400 bad_data: invalid parameter "query": 1:91: parse error: unexpected end of input inside braces',
    });
  });

  it('takes a login page answered with 200 for what it is: not the API', () => {
    const answer = readAnswer(200, 'text/html; charset=utf-8', '<!DOCTYPE html><html><body>Sign in</body></html>');
    assert.ok(!answer.ok);
    assert.deepEqual(answer.failure, { kind: 'malformed', status: 200, message: 'the answer is not JSON (text/html; charset=utf-8); is the URL the base of a Prometheus HTTP API?' });
  });

  it('keeps warnings (a partial answer) and drops samples that are no number', () => {
    const answer = readAnswer(200, 'application/json', JSON.stringify({
      status: 'success', warnings: ['partial response: store gateway unavailable'],
      data: { resultType: 'vector', result: [{ metric: { persistentvolumeclaim: 'a' }, value: [1, 'NaN'] }, { metric: { persistentvolumeclaim: 'b' }, value: [1, '5'] }] },
    }));
    assert.ok(answer.ok);
    assert.deepEqual(answer.samples.map((s) => s.labels.persistentvolumeclaim), ['b']);
    assert.deepEqual(answer.warnings, ['partial response: store gateway unavailable']);
  });

  it('never repeats a bearer token a proxy echoes back', () => {
    const answer = readAnswer(401, 'text/plain', 'invalid token Bearer s3cr3t-token-value', { authorization: 'Bearer s3cr3t-token-value' });
    assert.ok(!answer.ok);
    assert.equal(answer.failure.message, 'HTTP 401: invalid token Bearer (not shown)');
  });
});
