// The tool's usage reader against a real Prometheus (Debian's package, 2.42: `apt-get install prometheus`; .ci/run
// installs it), started on a free loopback port over three days of backfilled kubelet statistics (real-prometheus.ts).
// Skipped, and saying so, where the binaries are absent. The world adds what a real scrape adds: a second series of one
// claim (a second Prometheus replica's, as a Thanos querier sees them) and extra labels, which the queries collapse.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { diagnoseNoSeries } from '../../../functions/check/probe-usage.ts';
import { prometheusAuthorizer } from '../../../functions/usage/prometheus-auth.ts';
import { scanClaimVector } from '../../../functions/usage/claim-vector.ts';
import { postQuery } from '../../../functions/usage/prometheus-api.ts';
import { readVolumeUsage } from '../../../functions/usage/read-volume-usage.ts';
import { volumeStatsQueries } from '../../../functions/usage/volume-stats-queries.ts';
import { prometheusInstalled, startRealPrometheus, type RealPrometheus } from './real-prometheus.ts';
import { assertReadsRecordedWorld, pg1InodesPercent, recordedInodesFrom, recordedVolumes } from './world.ts';

const installed = await prometheusInstalled();
const skip = installed ? false : 'prometheus and promtool are not installed here (apt-get install --no-install-recommends prometheus); .ci/run installs them';

describe('the usage reader against a real Prometheus 2.42', { skip }, () => {
  let prometheus: RealPrometheus;
  const end = Math.floor(Date.now() / 1000 / 300) * 300;

  before(async () => {
    const volumes = recordedVolumes.map((v) => (v.claim === 'data-pg-0'
      ? { ...v, series: [...v.series.map((s) => ({ ...s, node: 'node-a', prometheus_replica: 'prometheus-0' })), { ...v.series[0], node: 'node-a', prometheus_replica: 'prometheus-1' }] }
      : v));
    prometheus = await startRealPrometheus(volumes, end);
  });
  after(async () => { await prometheus?.close(); });

  it('reads every claim of the namespaces asked, one sample each, with the kubelet\'s capacity, inodes and the last day\'s pace', async () => {
    const reading = await readVolumeUsage({ url: prometheus.url, authorize: prometheusAuthorizer(undefined) }, ['db', 'search'], new Date(end * 1000), 10_000, recordedInodesFrom);
    assertReadsRecordedWorld(reading, 1e-6);
    assert.ok(reading.ok);
    assert.deepEqual(reading.warnings, []);
  });

  it('reads each of the pass\'s answers from its text, as Prometheus writes them: the inode ones only above the threshold', async () => {
    const claimsAnswered = async (promql: string): Promise<string[]> => {
      const exchange = await postQuery({ url: prometheus.url, authorize: prometheusAuthorizer(undefined) }, promql, new Date(end * 1000), 10_000);
      assert.ok(exchange.ok);
      const scanned = scanClaimVector(exchange.text, {});
      assert.ok(scanned?.ok, promql);
      return [...scanned.samples.claims].sort();
    };
    for (const query of volumeStatsQueries(['db', 'search'], recordedInodesFrom)) {
      const inodes = query.reads === 'inodesUsed' || query.reads === 'inodes';
      assert.deepEqual(await claimsAnswered(query.promql), inodes ? ['data-pg-1'] : ['data-es-data-0', 'data-pg-0', 'data-pg-1'], query.reads);
    }
    // The edge: a claim whose share is exactly the threshold is kept (>=, the share computed as the reader computes it).
    const inodesFrom = (percent: number | undefined): string => volumeStatsQueries(['db', 'search'], percent).find((q) => q.reads === 'inodes')?.promql ?? '';
    assert.deepEqual(await claimsAnswered(inodesFrom(pg1InodesPercent)), ['data-pg-1']);
    assert.deepEqual(await claimsAnswered(inodesFrom(91.56)), []);
    assert.deepEqual(await claimsAnswered(inodesFrom(30)), ['data-pg-0', 'data-pg-1']);
    assert.deepEqual(await claimsAnswered(inodesFrom(undefined)), ['data-es-data-0', 'data-pg-0', 'data-pg-1'], 'unfiltered: every claim');
  });

  it('reads nothing (and fails nothing) for a namespace without series', async () => {
    const reading = await readVolumeUsage({ url: prometheus.url, authorize: prometheusAuthorizer(undefined) }, ['nowhere'], new Date(end * 1000), 10_000, recordedInodesFrom);
    assert.ok(reading.ok);
    assert.equal(reading.claims.size, 0);
  });

  it('finds no sample older than the lookback: asked a day after the last sample, nothing is current', async () => {
    const reading = await readVolumeUsage({ url: prometheus.url, authorize: prometheusAuthorizer(undefined) }, ['db'], new Date((end + 86_400) * 1000), 10_000, recordedInodesFrom);
    assert.ok(reading.ok);
    assert.equal(reading.claims.size, 0);
  });
});

describe('check\'s diagnosis against a real Prometheus 2.42', { skip }, () => {
  let prometheus: RealPrometheus;
  const end = Math.floor(Date.now() / 1000 / 300) * 300;

  before(async () => {
    // A scrape that does not honor the kubelet's labels: `namespace` is the scrape target's, the kubelet's is kept as
    // `exported_namespace` (Prometheus's own renaming on a collision).
    const volumes = recordedVolumes.filter((v) => v.namespace === 'db').map((v) => ({ ...v, namespace: 'kube-system', series: v.series.map((s) => ({ ...s, exported_namespace: v.namespace })) }));
    prometheus = await startRealPrometheus(volumes, end, { days: 1 });
  });
  after(async () => { await prometheus?.close(); });

  it('finds the volumes\' namespace under exported_namespace with the three diagnosis queries', async () => {
    const result = await diagnoseNoSeries({ url: prometheus.url, authorize: prometheusAuthorizer(undefined) }, ['db'], new Date(end * 1000));
    assert.equal(result.message, 'no series for any claim of the target\'s StatefulSets: the kubelet_volume_stats_used_bytes series\' namespace label holds the scrape\'s own (kube-system), and db is under exported_namespace (did you mean it? a scrape that does not honor labels renames the kubelet\'s namespace label)');
    assert.match(result.fix ?? '', /honor_labels: true/);
  });
});
