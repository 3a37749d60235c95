// The inode threshold a pass reads from, end to end (app -> pass -> Prometheus sandbox): a set's own
// `growth-used-percent` in Git, lower than the target's, lowers the threshold the two inode queries ask from before the
// cluster is read, so an inode-caused growth of that set is still seen, and its inodes shown.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { runTargets } from '../../functions/app/run-targets.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';
import { startUsageCluster, usageClock as clock } from '../support/usage-cluster.ts';

const manifests = {
  'k8s/pg.yaml': statefulSetManifest({ name: 'pg', storage: '10Gi', replicas: 1, annotations: '{ sts-volume-gitops.io/growth-used-percent: "25" }' }),
  'k8s/cache.yaml': statefulSetManifest({ name: 'redis', namespace: 'cache', storage: '5Gi', replicas: 1 }),
};

describe('the inode threshold of a pass', () => {
  let dir: string;
  let kube: KubeSandbox;

  before(async () => {
    // Both volumes have 31% of their inodes used (200,000 of 655,360) and little of their bytes.
    ({ dir, kube } = await startUsageCluster('pass-inode-threshold', manifests, [
      { namespace: 'db', claim: 'data-pg-0', used: '1Gi', inodes: 655_360, inodesUsed: 200_000 },
      { namespace: 'cache', claim: 'data-redis-0', used: '1Gi', inodes: 655_360, inodesUsed: 200_000 },
    ]));
  });
  after(async () => {
    await kube.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('asks from the lowest threshold in play (a set\'s 25% under the target\'s 80%), and grows that set for its inodes', async () => {
    const config = parseConfig(`targets:
  - name: prod
    source: { local: { directory: ./repo, paths: ["k8s/**/*.yaml"] } }
    cluster: { kubeconfig: { path: ${JSON.stringify(kube.kubeconfigPath)} } }
    namespaces: { allow: [db, cache] }
    usage: { prometheus: { url: "${kube.prometheus.url}" } }
    growth: { usedPercent: 80, max: 100Gi }
`, 'test.yaml', dir);
    const asked = kube.prometheus.queries.length;
    const [run] = await runTargets(config, { mode: 'plan', holderIdentity: 'test', now: () => clock });
    const report = run?.report;
    assert.ok(report, run?.error);
    const inodeQueries = kube.prometheus.queries.slice(asked).filter((q) => q.startsWith('max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_inodes'));
    assert.equal(inodeQueries.length, 2);
    assert.ok(inodeQueries.every((q) => q.endsWith(' * 100 >= 25)')), inodeQueries.join('\n'));
    const growth = report.growth?.find((g) => g.statefulSet === 'pg');
    assert.equal(growth?.action === 'grow' ? growth.because.cause : growth?.action, 'inodes');
    // redis is held to the target's 80%: its 31% is read (above 25%) and shown, and causes nothing.
    assert.deepEqual(report.growth?.find((g) => g.statefulSet === 'redis')?.action, 'none');
    const redis = report.usage?.templates.find((t) => t.statefulSet === 'redis')?.replicas[0];
    assert.equal(Math.round(redis?.inodesPercent ?? 0), 31);
    assert.match(renderPassReport(report), /\n {4}cache\/redis data: fullest data-redis-0 1Gi of 5Gi \(20%\), inodes 31%\n/);
  });
});
