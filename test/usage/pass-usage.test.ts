// Usage in a pass, end to end over the real clients and the sandboxes: a plan reads the target's volumes in five
// queries (whatever their number), reports each replica, decides growth and write-back, and says them in the CLI;
// Prometheus down, refusing or without the series is a report line, a log and a metric, and the rest of the pass is
// the same as without usage.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { passMetrics } from '../../functions/lambda/pass-metrics.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';
import { closedPort } from '../support/closed-port.ts';
import { startUsageCluster, usageClock as clock } from '../support/usage-cluster.ts';

const gi = 2 ** 30;

const manifests = {
  'k8s/pg.yaml': statefulSetManifest({ name: 'pg', storage: '10Gi', replicas: 3 }),
  'k8s/solo.yaml': statefulSetManifest({ name: 'solo', storage: '10Gi', replicas: 1 }),
  'k8s/cache.yaml': statefulSetManifest({ name: 'redis', namespace: 'cache', storage: '5Gi', replicas: 2 }),
};

describe('usage in a pass', () => {
  let dir: string;
  let kube: KubeSandbox;
  let empty: KubeSandbox;

  before(async () => {
    ({ dir, kube } = await startUsageCluster('pass-usage', manifests, [
      { namespace: 'db', claim: 'data-pg-0', used: '8.5Gi', perDay: '0.5Gi' },
      { namespace: 'db', claim: 'data-pg-1', used: '4Gi' },
      { namespace: 'cache', claim: 'data-redis-0', used: '1Gi' },
    ]));
    // An autoscaler grew solo's volume to 20Gi beside Git's 10Gi (a patch of its request; the resizer does the rest).
    const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
    const pvc = kube.store.peek(pvcType, 'db', 'data-solo-0');
    assert.ok(pvc);
    kube.store.replace(pvcType, { ...pvc, spec: { ...pvc.spec, resources: { requests: { storage: '20Gi' } } } });
    kube.tick(10);
    // A cluster with nothing mounted: its Prometheus answers, with no series for the target's claims.
    empty = await startKubeSandbox({ seed: { namespaces: ['db'] } });
  });
  after(async () => {
    await kube.close();
    await empty.close();
    await rm(dir, { recursive: true, force: true });
  });

  const configWith = (usage: string): Config => parseConfig(`targets:
  - name: prod
    source: { local: { directory: ./repo, paths: ["k8s/**/*.yaml"] } }
    cluster: { kubeconfig: { path: ${JSON.stringify(kube.kubeconfigPath)} } }
    namespaces: { allow: [db, cache] }
${usage}`, 'test.yaml', dir);
  const plan = async (config: Config, env: Record<string, string> = {}): Promise<TargetRun> => {
    const [run] = await runTargets(config, { mode: 'plan', holderIdentity: 'test', env, now: () => clock });
    assert.ok(run?.report, run?.error);
    return run;
  };
  const withUsage = (url: string, auth = ''): string => `    usage: { prometheus: { url: "${url}"${auth} } }\n    growth: { usedPercent: 80, max: 100Gi }\n`;

  it('reads every volume of the target in five queries, reports each replica, and proposes growth for the fullest', async () => {
    const asked = kube.prometheus.queries.length;
    const run = await plan(configWith(withUsage(kube.prometheus.url)));
    const report = run.report;
    assert.ok(report);
    assert.equal(kube.prometheus.queries.length - asked, 5, 'one query per family and the pace, for 3 sets in 2 namespaces');
    assert.equal(report.usage?.outcome, 'read');
    assert.equal(report.usage?.queries, 5);
    const pg = report.usage?.templates.find((t) => t.statefulSet === 'pg');
    assert.deepEqual(pg?.replicas.map((r) => [r.claim, r.usedBytes, r.capacityBytes, Math.round(r.usedPercent)]), [
      ['data-pg-0', 8.5 * gi, 10 * gi, 85], ['data-pg-1', 4 * gi, 10 * gi, 40], ['data-pg-2', 0, 10 * gi, 0],
    ]);
    assert.equal(pg?.replicas[0]?.daysToFull, 3);
    const growth = report.growth?.find((g) => g.statefulSet === 'pg');
    assert.equal(growth?.action, 'grow');
    assert.equal(growth?.action === 'grow' ? growth.to : undefined, '15Gi');
    assert.deepEqual(Object.fromEntries(report.growth?.filter((g) => g.statefulSet !== 'pg').map((g) => [g.statefulSet, g.action === 'none' && g.code]) ?? []), { solo: 'blocked', redis: 'below-threshold' });
    const text = renderPassReport(report);
    assert.match(text, /\n {2}usage read from http:\/\/127\.0\.0\.1:\d+: 6 volumes \(5 queries\)\n/);
    // The inodes are asked from growth's 80% only: data-pg-0's (below it) have no reading, and none is shown.
    assert.match(text, /\n {4}db\/pg data: fullest data-pg-0 8\.5Gi of 10Gi \(85%\), full in 3 days\n/);
    assert.equal(pg?.replicas[0]?.inodesPercent, undefined);
    const inodeQueries = kube.prometheus.queries.slice(asked).filter((q) => q.startsWith('max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_inodes'));
    assert.equal(inodeQueries.length, 2);
    assert.ok(inodeQueries.every((q) => q.endsWith(' * 100 >= 80)')), inodeQueries.join('\n'));
    assert.match(text, /\n {2}growth db\/pg data \(k8s\/pg\.yaml:\d+\): propose 15Gi \(from 10Gi\), because data-pg-0 is 85% full \(8\.5Gi of 10Gi; growth from 80%\)\n/);
    assert.equal(passMetrics(run).counts.UsageReadFailures, 0);
    assert.equal(report.usage?.nearFull, 1, 'data-pg-0 at 85% of growth\'s 80%; the others below');
    assert.equal(passMetrics(run).counts.VolumesNearFull, 1);
  });

  it('proposes Git the size of a volume grown outside it, with what was found where', async () => {
    const report = (await plan(configWith(''))).report;
    assert.equal(report?.usage, undefined, 'no usage configured: none read');
    assert.deepEqual(report?.writeBack?.map((w) => [w.statefulSet, w.git, w.to, w.found]), [['solo', '10Gi', '20Gi', [{ where: 'pvc', name: 'data-solo-0', size: '20Gi', capacity: '20Gi' }]]]);
    assert.match(renderPassReport(report ?? assert.fail()), /\n {2}write back db\/solo data \(k8s\/solo\.yaml:\d+\): Git says 10Gi, but the volumes were grown outside Git \(data-solo-0 asks for 20Gi\): propose 20Gi, the largest, since volumes never shrink\n/);
  });

  it('Prometheus unreachable, refusing or without the series: a report line and a metric, and the rest of the pass as without usage', async () => {
    const without = (await plan(configWith(''))).report;
    const closed = await closedPort();
    kube.prometheus.setAuth({ bearerToken: 'the-right-token-1234' });
    try {
      const cases: Array<[string, string, Record<string, string>, string, RegExp]> = [
        ['unreachable', withUsage(`http://127.0.0.1:${closed}`), {}, 'unreachable', /^connection refused by 127\.0\.0\.1:\d+ \(ECONNREFUSED\)/],
        ['refusing', withUsage(kube.prometheus.url, ', auth: { bearer: { env: PROM_TOKEN } }'), { PROM_TOKEN: 'a-wrong-token-5678' }, 'refused', /^HTTP 401: Unauthorized$/],
        ['without the series', withUsage(empty.prometheus.url), {}, 'no-series', /^Prometheus has no kubelet_volume_stats series for any of the 6 claims in cache, db; `npx sts-volume-gitops check` says what it finds instead$/],
      ];
      for (const [name, usage, env, kind, message] of cases) {
        const run = await plan(configWith(usage), env);
        const report = run.report;
        assert.ok(report);
        assert.equal(report.usage?.outcome, 'failed', name);
        assert.equal(report.usage?.failure?.kind, kind, name);
        assert.match(report.usage?.failure?.message ?? '', message, name);
        assert.equal(report.growth, undefined, `${name}: growth skipped`);
        assert.equal(passMetrics(run).counts.UsageReadFailures, 1, name);
        assert.match(renderPassReport(report), /\n {2}! usage not read from http:\/\/127\.0\.0\.1:\d+: .+; growth skipped this pass\n/, name);
        const { usage: _usage, ...rest } = report;
        assert.deepEqual(rest, without, `${name}: the rest of the pass is as without usage`);
      }
    } finally {
      kube.prometheus.setAuth(undefined);
    }
  });
});
