// The usage reader over HTTP against the Kubernetes sandbox's Prometheus (held to a real Prometheus by
// test/conformance/prometheus/): five queries whatever the number of volumes, the kubelet's capacity, the pace, and
// every way a read fails (refused, unreachable, timeout, 5xx) as a typed failure that names no credential.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { prometheusAuthorizer } from '../../functions/usage/prometheus-auth.ts';
import { readVolumeUsage } from '../../functions/usage/read-volume-usage.ts';
import { assertReadsRecordedWorld, recordedVolumes, sandboxSeedOf } from '../conformance/prometheus/world.ts';

const gi = 2 ** 30;
const start = Date.parse('2026-11-28T08:00:00Z');

describe('reading volume usage from a Prometheus API', () => {
  let kube: KubeSandbox;
  let clock = start;
  const now = (): Date => new Date(clock);
  const open = { url: '', authorize: prometheusAuthorizer(undefined) };

  before(async () => {
    kube = await startKubeSandbox({ seed: sandboxSeedOf(recordedVolumes), now });
    open.url = kube.prometheus.url;
  });
  after(async () => { await kube.close(); });

  it('reads each claim of the namespaces asked about: used over the kubelet\'s capacity, inodes and the pace, in five queries', async () => {
    const before = kube.prometheus.queries.length;
    const reading = await readVolumeUsage(open, ['db', 'search'], now(), 5_000, 80);
    assert.equal(kube.prometheus.queries.length - before, 5);
    assertReadsRecordedWorld(reading, 1e-9);
  });

  it('sees the volumes fill with the sandbox\'s clock, never past their file system', async () => {
    clock = start + 2 * 86_400_000;
    const reading = await readVolumeUsage(open, ['db'], now(), 5_000, 80);
    assert.ok(reading.ok);
    assert.equal(reading.claims.get('db/data-pg-0')?.usedBytes, 9.5 * gi);
    clock = start + 10 * 86_400_000;
    const full = await readVolumeUsage(open, ['db'], now(), 5_000, 80);
    assert.ok(full.ok);
    assert.equal(full.claims.get('db/data-pg-0')?.usedBytes, 10 * gi, 'full, and no further');
    assert.ok((full.claims.get('db/data-pg-0')?.bytesPerDay ?? 1) < 0.5 * gi, 'a volume full part of the last day fills slower in deriv');
    clock = start;
  });

  it('answers a namespace without series with no claims, not a failure (the pass says which claims went unread)', async () => {
    const reading = await readVolumeUsage(open, ['nowhere'], now(), 5_000, 80);
    assert.ok(reading.ok);
    assert.equal(reading.claims.size, 0);
  });

  it('sends a bearer token, and a refused one is a typed refusal that does not show the token', async () => {
    kube.prometheus.setAuth({ bearerToken: 'sandbox-prometheus-token-1' });
    try {
      const right = await readVolumeUsage({ url: kube.prometheus.url, authorize: prometheusAuthorizer({ bearer: { env: 'PROM_TOKEN' } }, { env: { PROM_TOKEN: 'sandbox-prometheus-token-1\n' } }) }, ['db'], now(), 5_000, 80);
      assert.ok(right.ok);
      const wrong = await readVolumeUsage({ url: kube.prometheus.url, authorize: prometheusAuthorizer({ bearer: { env: 'PROM_TOKEN' } }, { env: { PROM_TOKEN: 'a-wrong-token-123456' } }) }, ['db'], now(), 5_000, 80);
      assert.ok(!wrong.ok);
      assert.deepEqual(wrong.failure, { kind: 'refused', status: 401, message: 'HTTP 401: Unauthorized' });
      const unset = await readVolumeUsage({ url: kube.prometheus.url, authorize: prometheusAuthorizer({ bearer: { env: 'PROM_TOKEN' } }, { env: {} }) }, ['db'], now(), 5_000, 80);
      assert.ok(!unset.ok);
      assert.deepEqual(unset.failure, { kind: 'credentials', message: 'the bearer token (environment variable PROM_TOKEN) is empty or not set' });
      const broken = await readVolumeUsage({ url: kube.prometheus.url, authorize: prometheusAuthorizer({ bearer: { env: 'PROM_TOKEN' } }, { env: { PROM_TOKEN: 'sandbox prometheus token' } }) }, ['db'], now(), 5_000, 80);
      assert.ok(!broken.ok);
      assert.equal(broken.failure.message, 'the bearer token (environment variable PROM_TOKEN) holds a space, line break or other character no token has (not shown)');
      const fromSecret = await readVolumeUsage({
        url: kube.prometheus.url,
        authorize: prometheusAuthorizer({ bearer: { secret: 'prometheus/token' } }, { readSecret: (id) => Promise.resolve(id === 'prometheus/token' ? '{"token": "sandbox-prometheus-token-1"}' : '') }),
      }, ['db'], now(), 5_000, 80);
      assert.ok(fromSecret.ok, 'a secret holding {"token": ...}');
    } finally {
      kube.prometheus.setAuth(undefined);
    }
  });

  it('signs with SigV4 (AWS\'s signer, service aps): the workspace checks the signature; wrong keys and regions are refused in AWS\'s words', async () => {
    kube.prometheus.setAuth({ sigv4: { accessKeyId: 'AKIDSANDBOX', secretAccessKey: 'sandbox-secret', region: 'eu-west-1', service: 'aps' } });
    const signedWith = (secretAccessKey: string, region = 'eu-west-1') => ({
      url: kube.prometheus.url, authorize: prometheusAuthorizer({ sigv4: { region } }, { credentials: { accessKeyId: 'AKIDSANDBOX', secretAccessKey } }),
    });
    try {
      const signed = await readVolumeUsage(signedWith('sandbox-secret'), ['db'], now(), 5_000, 80);
      assert.ok(signed.ok, signed.ok ? '' : signed.failure.message);
      const wrongKey = await readVolumeUsage(signedWith('another-secret'), ['db'], now(), 5_000, 80);
      assert.ok(!wrongKey.ok);
      assert.equal(wrongKey.failure.kind, 'refused');
      assert.match(wrongKey.failure.message, /^HTTP 403: \{"message":"The request signature we calculated does not match the signature you provided/);
      assert.ok(!wrongKey.failure.message.includes('another-secret'));
      const wrongRegion = await readVolumeUsage(signedWith('sandbox-secret', 'us-east-1'), ['db'], now(), 5_000, 80);
      assert.ok(!wrongRegion.ok);
      assert.equal(wrongRegion.failure.message, 'HTTP 403: {"message":"Credential should be scoped to a valid region."}');
      const unsigned = await readVolumeUsage(open, ['db'], now(), 5_000, 80);
      assert.ok(!unsigned.ok);
      assert.equal(unsigned.failure.message, 'HTTP 403: {"message":"Missing Authentication Token"}');
    } finally {
      kube.prometheus.setAuth(undefined);
    }
  });

  it('says a server error, a timeout and a closed port apart', async () => {
    kube.prometheus.faults.add({ method: 'POST', resource: 'query', failNext: 1, failWith: 503 });
    const failing = await readVolumeUsage(open, ['db'], now(), 5_000, 80);
    assert.ok(!failing.ok);
    assert.deepEqual(failing.failure, { kind: 'server-error', status: 503, message: 'HTTP 503: injected failure 503' });
    kube.prometheus.faults.add({ method: 'POST', resource: 'query', latencyMs: 1_500 });
    const slow = await readVolumeUsage(open, ['db'], now(), 1_000, 80);
    kube.prometheus.faults.clear();
    assert.ok(!slow.ok);
    assert.deepEqual(slow.failure, { kind: 'timeout', message: 'no answer within 1 s' });
    const closed = await readVolumeUsage({ url: 'http://127.0.0.1:9', authorize: open.authorize }, ['db'], now(), 1_000, 80);
    assert.ok(!closed.ok);
    assert.equal(closed.failure.kind, 'unreachable');
  });
});
