// `check` for usage (functions/check/probe-usage.ts) against the Kubernetes sandbox's Prometheus: it answers the
// pass's queries and has series for every claim, or what is wrong and what it has instead (did you mean), each with a fix.
import assert from 'node:assert/strict';
import { createServer, type AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { probeUsage } from '../../functions/check/probe-usage.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { readDesiredState } from '../../functions/domain/manifests.ts';
import type { TargetDesired } from '../../functions/engine/desired/desired-input.ts';
import { diagnoseMissingSeries } from '../../functions/usage/diagnose-series.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import type { Relabelling } from '../../sandbox/kube/prometheus/api-server.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';

const manifest = (namespace: string): string => statefulSetManifest({ name: 'pg', namespace, storage: '10Gi', replicas: 2 });

function desiredIn(namespace: string): TargetDesired {
  const { statefulSets, errors } = readDesiredState(new Map([['k8s/pg.yaml', manifest(namespace)]]), { globs: ['k8s/**'], defaultNamespace: 'default' });
  return { statefulSets, sizeValues: [], errors };
}

const configFor = (url: string, auth = '') => {
  const target = parseConfig(`targets:
  - name: prod
    source: { local: { directory: ./repo, paths: ["k8s/**/*.yaml"] } }
    cluster: { kubeconfig: { path: ./kubeconfig } }
    namespaces: { allow: [db, dbs] }
    usage: { prometheus: { url: "${url}"${auth} } }
`, 'test.yaml', '/etc/sts').targets[0];
  assert.ok(target);
  return target;
};

describe('check: usage', () => {
  let kube: KubeSandbox;
  let empty: KubeSandbox;
  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: [load(manifest('db'))] } });
    empty = await startKubeSandbox({ seed: { namespaces: ['db'] } });
  });
  after(async () => {
    await kube.close();
    await empty.close();
  });

  it('says Prometheus answers the pass\'s queries and has series for every claim', async () => {
    const results = await probeUsage(configFor(kube.prometheus.url), desiredIn('db'), { env: {} });
    assert.deepEqual(results.map((r) => [r.id, r.level, r.message]), [
      ['usage.prometheus', 'ok', 'answers the pass\'s 5 queries'],
      ['usage.series', 'ok', 'series for all 2 claims of the target\'s StatefulSets'],
    ]);
  });

  it('warns of a replica without series, saying why that happens', async () => {
    const podType = mustResourceType('v1', 'Pod');
    const pod = kube.store.peek(podType, 'db', 'pg-1');
    assert.ok(pod);
    kube.store.replace(podType, { ...pod, status: { ...pod.status, phase: 'Pending' } });
    try {
      const [, series] = await probeUsage(configFor(kube.prometheus.url), desiredIn('db'), { env: {} });
      assert.equal(series?.level, 'warning');
      assert.equal(series?.message, 'series for 1 of 2 claims; none for db/data-pg-1');
      assert.match(series?.fix ?? '', /a kubelet reports only the volumes of running pods/);
    } finally {
      kube.tick(3);
    }
  });

  /** A misconfigured scrape the sandbox plays, what check says of it, and the fix it gives. */
  const relabelled: Array<{ name: string; relabel: Relabelling; message: string; fix: string }> = [
    {
      name: 'finds the claim relabelled under pvc: did you mean it, and the rule that puts it back',
      relabel: { persistentvolumeclaim: 'pvc' },
      message: 'the kubelet_volume_stats_used_bytes series carry no persistentvolumeclaim label, but pvc (did you mean it? a scrape relabelled it)',
      fix: 'the tool reads the kubelet\'s own labels, namespace and persistentvolumeclaim: put persistentvolumeclaim back in the scrape\'s metric_relabel_configs (- {source_labels: [pvc], target_label: persistentvolumeclaim}), or remove the rule that renamed it',
    },
    {
      name: 'finds the namespace under exported_namespace when the scrape kept its own: did you mean it, and honor the labels',
      relabel: { scrapeNamespace: 'kube-system', namespace: 'exported_namespace' },
      message: 'the kubelet_volume_stats_used_bytes series\' namespace label holds the scrape\'s own (kube-system), and db is under exported_namespace (did you mean it? a scrape that does not honor labels renames the kubelet\'s namespace label)',
      fix: 'honor the kubelet\'s labels in its scrape: honor_labels: true (kube-prometheus-stack: the kubelet ServiceMonitor\'s honorLabels: true), so namespace is the volume\'s',
    },
    {
      name: 'finds the kubelet\'s names under a prefix: did you mean it, and how to strip it',
      relabel: { metricPrefix: 'eks_' },
      message: 'Prometheus has no kubelet_volume_stats_used_bytes series, but has eks_kubelet_volume_stats_used_bytes (did you mean it? the names carry the prefix eks_)',
      fix: 'the tool reads the kubelet\'s own names: strip the prefix in the scrape\'s metric_relabel_configs (- {source_labels: [__name__], regex: "eks_(kubelet_volume_stats_.+)", target_label: __name__}), or remove the rule that added it',
    },
  ];
  for (const { name, relabel, message, fix } of relabelled) {
    it(name, async () => {
      kube.prometheus.setRelabelling(relabel);
      try {
        const [, series] = await probeUsage(configFor(kube.prometheus.url), desiredIn('db'), { env: {} });
        assert.deepEqual([series?.level, series?.message, series?.fix], ['error', `no series for any claim of the target's StatefulSets: ${message}`, fix]);
      } finally {
        kube.prometheus.setRelabelling({});
      }
    });
  }

  it('finds the series in another namespace than the one in Git: did you mean it', async () => {
    const [, series] = await probeUsage(configFor(kube.prometheus.url), desiredIn('dbs'), { env: {} });
    assert.equal(series?.level, 'error');
    assert.equal(series?.message, 'no series for any claim of the target\'s StatefulSets: Prometheus has kubelet_volume_stats_used_bytes series, but none in dbs; did you mean db? (namespaces with series: db)');
  });

  it('says a Prometheus that scrapes no kubelet has no such series at all', async () => {
    const [, series] = await probeUsage(configFor(empty.prometheus.url), desiredIn('db'), { env: {} });
    assert.equal(series?.message, 'no series for any claim of the target\'s StatefulSets: Prometheus has no kubelet_volume_stats series at all: it does not scrape the kubelets\' /metrics');
  });

  it('says a refusal and an unreachable URL, each with its fix', async () => {
    kube.prometheus.setAuth({ bearerToken: 'the-right-token-1234' });
    try {
      const [refused] = await probeUsage(configFor(kube.prometheus.url, ', auth: { bearer: { env: PROM_TOKEN } }'), desiredIn('db'), { env: { PROM_TOKEN: 'a-wrong-token-5678' } });
      assert.deepEqual([refused?.level, refused?.message, refused?.fix], ['error', 'Prometheus did not answer the pass\'s queries: HTTP 401: Unauthorized', 'check the bearer token where usage.prometheus.auth.bearer says']);
      const [right] = await probeUsage(configFor(kube.prometheus.url, ', auth: { bearer: { env: PROM_TOKEN } }'), desiredIn('db'), { env: { PROM_TOKEN: 'the-right-token-1234' } });
      assert.equal(right?.message, 'answers the pass\'s 5 queries (bearer token)');
    } finally {
      kube.prometheus.setAuth(undefined);
    }
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const [unreachable] = await probeUsage(configFor(`http://127.0.0.1:${port}`), desiredIn('db'), { env: {} });
    assert.equal(unreachable?.level, 'error');
    assert.match(unreachable?.message ?? '', /^Prometheus did not answer the pass's queries: connection refused by 127\.0\.0\.1:\d+ \(ECONNREFUSED\): nothing listens there$/);
    assert.match(unreachable?.fix ?? '', /check usage\.prometheus\.url/);
  });

  it('names a renamed family it finds in place of the kubelet\'s, never another of its families', () => {
    const diagnosis = diagnoseMissingSeries({ sampleSeries: [], namespaceLabels: [], metricNames: ['kubelet_volume_stats_used_byte'] }, ['db']);
    assert.equal(diagnosis.message, 'Prometheus has no kubelet_volume_stats_used_bytes series, but has kubelet_volume_stats_used_byte (did you mean it?)');
    const otherFamily = diagnoseMissingSeries({ sampleSeries: [], namespaceLabels: [], metricNames: ['kubelet_volume_stats_capacity_bytes', 'kubelet_volume_stats_inodes'] }, ['db']);
    assert.equal(otherFamily.message, 'Prometheus has no kubelet_volume_stats_used_bytes series (only kubelet_volume_stats_capacity_bytes, kubelet_volume_stats_inodes): a scrape drops it');
    assert.match(otherFamily.fix, /metric_relabel_configs/);
  });
});
