// The sandbox's own decoding of quantities and times, against the canonical forms and error texts a real
// kube-apiserver v1.26.5 gave (/work/shared/conformance, edge notes pvc-size-* and lease-*).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { decodeMicroTime, decodeTime, DecodeError } from '../../../sandbox/kube/decode.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { canonicalQuantity, compareSandboxQuantities, parseSandboxQuantity, quantityFormatError } from '../../../sandbox/kube/quantity.ts';

describe('sandbox quantities', () => {
  it('stores each recorded spelling in the canonical form the real server answered', () => {
    const recorded: Array<[string | number, string]> = [
      ['500M', '500M'], ['20Gi', '20Gi'], ['1024Mi', '1Gi'], ['2e11', '200e9'], ['1.5Ti', '1536Gi'],
      ['1649267441664', '1649267441664'], ['2000000000000', '2T'], [3000000000000, '3T'], ['200000000000', '200G'],
      ['10.5Gi', '10752Mi'], ['1.5G', '1500M'], ['0.5Ki', '512'], ['0', '0'],
    ];
    for (const [input, canonical] of recorded) assert.equal(canonicalQuantity(parseSandboxQuantity(input)), canonical, String(input));
  });

  it('refuses what the server refuses, with its words', () => {
    assert.throws(() => parseSandboxQuantity('20Gb'), { message: quantityFormatError });
    assert.throws(() => parseSandboxQuantity('1.2.3Gi'), /unable to parse numeric part of quantity/);
    assert.throws(() => parseSandboxQuantity('5Gii'), /unable to parse quantity's suffix/);
  });

  it('compares by value across spellings', () => {
    assert.equal(compareSandboxQuantities(parseSandboxQuantity('1.5Ti'), parseSandboxQuantity('1536Gi')), 0);
    assert.equal(compareSandboxQuantities(parseSandboxQuantity('2e11'), parseSandboxQuantity('200G')), 0);
    assert.equal(compareSandboxQuantities(parseSandboxQuantity('1Gi'), parseSandboxQuantity('1G')), 1);
  });
});

describe('sandbox times', () => {
  it('MicroTime takes exactly six fractional digits and is stored in UTC', () => {
    assert.equal(decodeMicroTime('2026-01-01T00:00:00.123456Z'), '2026-01-01T00:00:00.123456Z');
    assert.equal(decodeMicroTime('2026-01-01T02:00:00.123456+02:00'), '2026-01-01T00:00:00.123456Z');
    const layout = '"2006-01-02T15:04:05.000000Z07:00"';
    const refusals: Array<[string, string]> = [
      ['2026-01-01T00:00:00.123Z', 'cannot parse ".123Z" as ".000000"'],
      ['2026-01-01T00:00:00Z', 'cannot parse "Z" as ".000000"'],
      ['2026-01-01T00:00:00.123456789Z', 'cannot parse "789Z" as "Z07:00"'],
    ];
    for (const [input, why] of refusals) {
      assert.throws(() => decodeMicroTime(input), (error: unknown) => error instanceof DecodeError && error.message === `parsing time ${JSON.stringify(input)} as ${layout}: ${why}`);
    }
  });

  it('Time accepts a fraction and keeps whole seconds in UTC', () => {
    assert.equal(decodeTime('2026-01-01T00:00:00.123Z'), '2026-01-01T00:00:00Z');
    assert.equal(decodeTime('2026-01-01T00:00:01.456Z'), '2026-01-01T00:00:01Z');
    assert.equal(decodeTime('2026-01-01T02:00:00+02:00'), '2026-01-01T00:00:00Z');
  });
});

describe('sandbox strict decoding of duplicate fields', () => {
  let kube: KubeSandbox;
  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['edge'] } });
  });
  after(() => kube.close());

  const post = (query: string): Promise<Response> => fetch(`${kube.url}/api/v1/namespaces/edge/configmaps${query}`, {
    method: 'POST',
    headers: { Authorization: `Bearer ${kube.kubeConfig().getCurrentUser()?.token ?? ''}`, 'Content-Type': 'application/json' },
    // A body with "data" twice: JSON.parse would keep the second silently.
    body: '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"dup"},"data":{"a":"b"},"data":{"c":"d"}}',
  });

  it('refuses a duplicate field under Strict with the recorded words', async () => {
    const response = await post('?fieldValidation=Strict');
    assert.equal(response.status, 400);
    const status = await response.json() as { reason: string; message: string };
    assert.equal(status.reason, 'BadRequest');
    assert.equal(status.message, 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: duplicate field "data"');
  });

  it('warns about it by default and keeps the last value', async () => {
    const response = await post('');
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('warning'), '299 - "duplicate field \\"data\\""');
    assert.deepEqual((await response.json() as { data: unknown }).data, { c: 'd' });
  });
});
