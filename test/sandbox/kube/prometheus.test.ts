// The Kubernetes sandbox's Prometheus API (sandbox/kube/prometheus/): the kubelet's volume statistics of mounted
// claims only, growing with the clock up to the file system's size, room again after an expansion, and the refusals
// Prometheus gives (400 bad_data for a query it does not serve, 404 elsewhere). Its answers to the tool's queries are
// held to a real Prometheus by test/conformance/prometheus/.
import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, it } from 'node:test';
import { gunzipSync } from 'node:zlib';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { SeedError } from '../../../sandbox/kube/seed.ts';

const gi = 2 ** 30;
const statefulSet = (name: string, replicas: number, size: string) => ({
  apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace: 'db' },
  spec: {
    serviceName: name, replicas, selector: { matchLabels: { app: name } },
    template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
    volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: size } } } }],
  },
});

interface Answer { status: number; body: { status: string; errorType?: string; error?: string; data?: { result: Array<{ metric: Record<string, string>; value: [number, string] }> } } }

describe('the Kubernetes sandbox\'s Prometheus API', () => {
  let kube: KubeSandbox;
  let clock = Date.parse('2026-11-28T00:00:00Z');
  const ask = async (query: string, method: 'GET' | 'POST' = 'POST', time?: string): Promise<Answer> => {
    const params = new URLSearchParams({ query, ...(time !== undefined ? { time } : {}) });
    const response = method === 'GET'
      ? await fetch(`${kube.prometheus.url}/api/v1/query?${params.toString()}`)
      : await fetch(`${kube.prometheus.url}/api/v1/query`, { method, headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: params });
    return { status: response.status, body: await response.json() as Answer['body'] };
  };
  const valueOf = (answer: Answer, claim: string): number | undefined => {
    const sample = answer.body.data?.result.find((s) => s.metric.persistentvolumeclaim === claim);
    return sample === undefined ? undefined : Number(sample.value[1]);
  };

  before(async () => {
    kube = await startKubeSandbox({
      now: () => new Date(clock),
      seed: {
        namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
        statefulSets: [statefulSet('pg', 2, '10Gi')],
        volumeUsage: [{ namespace: 'db', claim: 'data-pg-0', used: '9Gi', perDay: '0.5Gi', filesystemOverhead: 0.02 }],
      },
    });
  });
  after(async () => { await kube.close(); });

  it('reports every mounted claim, a seeded one as seeded and the others empty, over the file system\'s size', async () => {
    const used = await ask('max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes{namespace=~"db"})');
    assert.equal(valueOf(used, 'data-pg-0'), 9 * gi);
    assert.equal(valueOf(used, 'data-pg-1'), 0);
    const capacity = await ask('max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_capacity_bytes{namespace=~"db"})', 'GET');
    assert.equal(valueOf(capacity, 'data-pg-0'), Math.floor(10 * gi * 0.98));
    assert.equal(valueOf(capacity, 'data-pg-1'), 10 * gi);
    const inodes = await ask('max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_inodes{namespace=~"db"})');
    assert.equal(valueOf(inodes, 'data-pg-1'), (10 * gi) / 16_384, 'ext4\'s default: one inode per 16KiB');
  });

  it('fills with the clock up to the file system\'s size, and has room again once the volume is expanded', async () => {
    clock += 3 * 86_400_000;
    const query = 'max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes{namespace=~"db"})';
    assert.equal(valueOf(await ask(query), 'data-pg-0'), Math.floor(10 * gi * 0.98), 'full: 9Gi + 1.5Gi does not fit in 9.8Gi');
    const pace = await ask('max by (namespace, persistentvolumeclaim) (deriv(kubelet_volume_stats_used_bytes{namespace=~"db"}[1d]))');
    assert.equal(valueOf(pace, 'data-pg-0'), 0, 'full all of the last day: no pace');
    // The claim grows to 20Gi (the resizer and the kubelet, as in a real expansion); the data keeps coming.
    const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
    const pvc = kube.store.peek(pvcType, 'db', 'data-pg-0');
    assert.ok(pvc);
    kube.store.replace(pvcType, { ...pvc, spec: { ...pvc.spec, resources: { requests: { storage: '20Gi' } } } });
    kube.tick(10);
    clock += 86_400_000;
    assert.equal(valueOf(await ask(query), 'data-pg-0'), Math.floor(10 * gi * 0.98) + 0.5 * gi);
  });

  it('takes a volume\'s usage set mid-run (data deleted) from then on, at its new pace', async () => {
    const query = 'max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes{namespace=~"db"})';
    kube.prometheus.setVolumeUsage({ namespace: 'db', claim: 'data-pg-1', used: '2Gi', perDay: '1Gi' });
    assert.equal(valueOf(await ask(query), 'data-pg-1'), 2 * gi);
    clock += 86_400_000;
    assert.equal(valueOf(await ask(query), 'data-pg-1'), 3 * gi);
    assert.throws(() => kube.prometheus.setVolumeUsage({ namespace: 'db', claim: 'data-pg-1', used: 'lots' }), SeedError);
  });

  it('reports no claim whose pod is not running: a kubelet reports the volumes its pods mount', async () => {
    const podType = mustResourceType('v1', 'Pod');
    const pod = kube.store.peek(podType, 'db', 'pg-1');
    assert.ok(pod);
    kube.store.replace(podType, { ...pod, status: { ...pod.status, phase: 'Pending' } });
    const used = await ask('max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes{namespace=~"db"})');
    assert.equal(valueOf(used, 'data-pg-1'), undefined);
    kube.tick(3);
  });

  it('answers a query it does not serve, a bad time and a missing query as Prometheus answers bad input (400 bad_data), and 404 elsewhere', async () => {
    const other = await ask('sum(kubelet_volume_stats_used_bytes)');
    assert.equal(other.status, 400);
    assert.equal(other.body.errorType, 'bad_data');
    assert.match(other.body.error ?? '', /^invalid parameter "query": 1:\d+: parse error: /);
    // The inode filter's shape is served; another right-hand side of `and` is not.
    const filter = await ask('max by (namespace) (kubelet_volume_stats_inodes) and on (namespace) (max by (namespace) (kubelet_volume_stats_inodes) > 1)');
    assert.deepEqual([filter.status, filter.body.errorType], [400, 'bad_data']);
    const time = await ask('kubelet_volume_stats_used_bytes', 'POST', 'yesterday');
    assert.deepEqual([time.status, time.body.error], [400, 'invalid parameter "time": Invalid time value for \'time\': cannot parse "yesterday" to a valid timestamp']);
    const none = await ask('');
    assert.deepEqual([none.status, none.body.error], [400, 'invalid parameter "query": 1:1: parse error: no expression found in input']);
    const elsewhere = await fetch(`${kube.prometheus.url}/api/v1/labels`);
    assert.equal(elsewhere.status, 404);
  });

  it('gzips its API answers for a client that accepts it, as Prometheus 2.42 does, and only then', async () => {
    const raw = (acceptEncoding: string | undefined, query: string): Promise<{ status: number; encoding: string | undefined; body: Buffer }> => new Promise((resolve, reject) => {
      const request = httpRequest(`${kube.prometheus.url}/api/v1/query`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', ...(acceptEncoding ? { 'accept-encoding': acceptEncoding } : {}) },
      }, (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, encoding: response.headers['content-encoding'], body: Buffer.concat(chunks) }));
      });
      request.on('error', reject);
      request.end(new URLSearchParams({ query }).toString());
    });
    const query = 'max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes{namespace=~"db"})';
    const zipped = await raw('gzip, deflate', query);
    assert.equal(zipped.encoding, 'gzip');
    const plain = await raw(undefined, query);
    assert.equal(plain.encoding, undefined);
    assert.deepEqual(JSON.parse(gunzipSync(zipped.body).toString('utf8')), JSON.parse(plain.body.toString('utf8')));
    const refused = await raw('gzip', 'sum(x)');
    assert.deepEqual([refused.status, refused.encoding, (JSON.parse(gunzipSync(refused.body).toString('utf8')) as { errorType: string }).errorType], [400, 'gzip', 'bad_data']);
  });

  it('refuses a seed whose volumeUsage is not one', async () => {
    await assert.rejects(startKubeSandbox({ seed: { volumeUsage: [{ namespace: 'db', claim: 'x', used: 'lots' }] } }), SeedError);
    await assert.rejects(startKubeSandbox({ seed: { volumeUsage: [{ namespace: 'db', claim: 'x', filesystemOverhead: 2 }] } }), /filesystemOverhead must be a fraction below 0\.5/);
  });
});
