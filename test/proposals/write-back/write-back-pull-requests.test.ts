// Write-back pull requests end to end (issue 36 item 3): both sandboxes, the real Octokit and client-node over HTTP,
// passes through runTargets. PVCs an autoscaler grew (a raw manifest) and a template recreated larger by hand (its
// size in a Helm values file a size source maps) each get one pull request setting Git to the live size, the blocked
// "decrease" links it; merged, the next pass writes nothing to the cluster; a person's close holds until the volumes
// grow further; Git catching up by a person's own change closes it.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, type V1StatefulSet } from '@kubernetes/client-node';
import { load } from 'js-yaml';
import { runTargets, type TargetRun } from '../../../functions/app/run-targets.ts';
import { sandboxRecordKeyEnv } from '../../../functions/cli/sandbox-config.ts';
import { renderPassReport } from '../../../functions/cli/render-report.ts';
import type { Config } from '../../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';
import { applyPass, commentBodies, noWaiting, passUntil } from '../../support/passes.ts';
import { startSandboxPair } from '../../support/sandbox-pair.ts';

const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const stsType = mustResourceType('apps/v1', 'StatefulSet');
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const escape = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');

function victoriaValues(size: string): string {
  return `# victoria-logs-single values (prod)
server:
  retentionPeriod: 30d
  persistentVolume:
    enabled: true
    size: ${size}  # grow with the ingest rate
`;
}

/** A StatefulSet as the chart renders it: what the cluster runs, never in Git. */
function rendered(storage: string): V1StatefulSet {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet',
    metadata: { name: 'victoria-logs', namespace: 'logs', labels: { 'app.kubernetes.io/instance': 'victoria-logs' } },
    spec: {
      serviceName: 'victoria-logs', replicas: 2, podManagementPolicy: 'OrderedReady',
      selector: { matchLabels: { 'app.kubernetes.io/instance': 'victoria-logs' } },
      template: { metadata: { labels: { 'app.kubernetes.io/instance': 'victoria-logs' } }, spec: { containers: [{ name: 'server', image: 'victoriametrics/victoria-logs:v1.0.0' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'server-volume' }, spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', resources: { requests: { storage } } } }],
    },
  };
}

const pgManifest = (storage: string): string => statefulSetManifest({ name: 'pg', storage, replicas: 2, storageComment: 'sized by the platform team' });

const mappings = `    sizeSources:
      - { file: apps/victoria/values.yaml, path: server.persistentVolume.size, statefulSet: logs/victoria-logs, template: server-volume }
`;

describe('write-back pull requests', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const initial = { 'k8s/pg.yaml': pgManifest('10Gi'), 'apps/victoria/values.yaml': victoriaValues('10Gi') };

  const pass = (): Promise<TargetRun> => applyPass(config, env);
  const openWriteBacks = (): Array<{ number: number; head: string; title: string; body: string | null; labels: string[] }> =>
    github.state.pulls.filter((p) => p.state === 'open' && p.head.startsWith('sts-volume-gitops/write-back/'));
  const pvcStorage = (namespace: string, name: string): { request: unknown; capacity: unknown } => {
    const pvc = kube.store.get(pvcType, namespace, name);
    return { request: (pvc?.spec?.resources as { requests?: { storage?: unknown } } | undefined)?.requests?.storage, capacity: (pvc?.status?.capacity as { storage?: unknown } | undefined)?.storage };
  };

  /** What an autoscaler does (topolvm's pvc-autoresizer, the Kubernetes-Volume-Autoscaler): patch the claim's request. */
  async function growPvc(namespace: string, name: string, storage: string): Promise<void> {
    const core = kube.kubeConfig().makeApiClient(CoreV1Api);
    await core.patchNamespacedPersistentVolumeClaim({ namespace, name, body: { spec: { resources: { requests: { storage } } } } }, mergePatch);
  }

  /** Until every claim named has its capacity at its request (the sandbox's resizer and kubelet advancing). */
  function expandAll(claims: ReadonlyArray<[string, string]>): void {
    for (let i = 0; i < 20 && claims.some(([ns, name]) => pvcStorage(ns, name).request !== pvcStorage(ns, name).capacity); i++) kube.tick(1);
    for (const [ns, name] of claims) assert.equal(pvcStorage(ns, name).capacity, pvcStorage(ns, name).request, `${ns}/${name} expanded`);
  }

  before(async () => {
    ({ kube, github, config } = await startSandboxPair({
      name: 'write-back', files: initial, tokenEnv: 'WRITE_BACK_TOKEN', env, allow: ['db', 'logs'], targetLines: mappings,
      seed: {
        namespaces: ['db', 'logs'],
        storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }],
        statefulSets: [load(initial['k8s/pg.yaml']), rendered('10Gi')],
      },
    }));
    kube.tick(4);
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('proposes nothing while Git and the live sizes agree', async () => {
    const run = await pass();
    assert.deepEqual(run.report?.writeBack, undefined);
    assert.deepEqual(run.writeBack?.outcomes, []);
    assert.deepEqual(openWriteBacks(), []);
  });

  let pgPr = 0;
  let victoriaPr = 0;

  it('PVCs an autoscaler grew: one pull request setting the manifest to the largest live size, with what was found where; the blocked "decrease" links it', async () => {
    await growPvc('db', 'data-pg-0', '20Gi');
    await growPvc('db', 'data-pg-1', '15Gi');
    expandAll([['db', 'data-pg-0'], ['db', 'data-pg-1']]);
    const run = await pass();
    // The target configures no usage: write-back is read from the cluster's own objects, without Prometheus.
    assert.equal(config.targets[0]?.usage, undefined);
    assert.equal(run.report?.usage, undefined);
    const prs = openWriteBacks();
    assert.deepEqual(prs.map((p) => p.head), ['sts-volume-gitops/write-back/demo/db/pg/data']);
    const [pr] = prs;
    assert.ok(pr);
    pgPr = pr.number;
    assert.equal(pr.title, 'Write back db/pg data: 10Gi → 20Gi (grown outside Git)');
    assert.ok(pr.labels.includes('volume-write-back'));
    const main = await github.readFile('main', 'k8s/pg.yaml');
    assert.equal(await github.readFile(pr.head, 'k8s/pg.yaml'), main?.replace('storage: 10Gi  # sized', 'storage: 20Gi  # sized'), 'only the bytes of the value change');
    const body = pr.body ?? '';
    assert.match(body, /^<!-- sts-volume-gitops:proposal kind=write-back key=db\/pg\/data from=10Gi to=20Gi -->/);
    assert.match(body, /the live StatefulSet's template `data`: 10Gi/);
    assert.match(body, /data-pg-0: request 20Gi, capacity 20Gi \(grown outside Git\)/);
    assert.match(body, /data-pg-1: request 15Gi, capacity 15Gi \(grown outside Git\)/);
    assert.match(body, /\| k8s\/pg\.yaml \| \d+ \| storage \| 10Gi \| 20Gi \|/);
    assert.match(body, /Nothing new for the volumes already at 20Gi: that is already being paid\. data-pg-1 grows to 20Gi \\\(5Gi in all\\\)/);
    assert.match(body, /The next pass only updates the StatefulSet's template from 10Gi to 20Gi .*, and grows data-pg-1 \(15Gi\) to 20Gi, the size the others already have/);
    // The blocked "decrease", where a person meets it: the progress comment and its status link, the pass report, plan.
    const template = run.report?.statefulSets.find((s) => s.name === 'pg')?.templates[0];
    assert.equal(template?.action, 'blocked');
    assert.deepEqual(template?.reasonCodes, ['below-capacity']);
    const url = run.writeBack?.links.get('db/pg/data');
    assert.ok(url?.endsWith(`/pull/${pr.number}`) === true && url !== undefined, url);
    const progress = run.feedback?.progress.find((p) => p.statefulSet === 'db/pg');
    assert.match(progress?.markdown ?? '', new RegExp(`- ❌ 10Gi is not above the current capacity .*KEP-1790.{0,4}; the volumes were grown outside Git: a write-back pull request sets Git to their size: ${escape(url)}`));
    github.requestLog.reset();
    const [plan] = await runTargets(config, { mode: 'plan', holderIdentity: 'test', env, timing: noWaiting });
    assert.ok(plan?.report);
    assert.equal(github.requestLog.entries.filter((e) => e.operation === 'pulls.list').length, 1, 'one listing for recovery and write-back');
    assert.match(renderPassReport(plan.report, { proposals: plan.writeBack?.outcomes ?? [] }), new RegExp(`blocked: 10Gi is not above .*; the volumes were grown outside Git: a write-back pull request sets Git to their size: ${escape(url)}`));
  });

  it('a person\'s pull request below the live size: its check links the write-back pull request on the blocked "decrease", in a validate run too', async () => {
    const url = (await pass()).writeBack?.links.get('db/pg/data');
    assert.ok(url !== undefined);
    await github.commitFiles({ branch: 'pg-12', message: 'pg at 12Gi', files: { 'k8s/pg.yaml': pgManifest('12Gi') }, author: 'Dana Developer' });
    const number = await github.openPullRequest({ head: 'pg-12', title: 'pg at 12Gi', author: 'dana' });
    const [validate] = await runTargets(config, { mode: 'validate', holderIdentity: 'test', env, timing: noWaiting, pullRequest: number });
    const check = validate?.feedback?.checks.find((c) => c.number === number);
    assert.equal(check?.state, 'failure');
    assert.match(check?.markdown ?? '', new RegExp(`  - 12Gi is not above the current capacity .*KEP-1790.{0,4}; the volumes were grown outside Git: a write-back pull request sets Git to their size: ${escape(url)}`));
    const stored = github.state.pulls.find((p) => p.number === number);
    assert.ok(stored);
    stored.state = 'closed';
  });

  it('a template recreated larger by hand, its size in a Helm values file: the pull request edits the mapped value', async () => {
    await growPvc('logs', 'server-volume-victoria-logs-0', '20Gi');
    await growPvc('logs', 'server-volume-victoria-logs-1', '20Gi');
    expandAll([['logs', 'server-volume-victoria-logs-0'], ['logs', 'server-volume-victoria-logs-1']]);
    const apps = kube.kubeConfig().makeApiClient(AppsV1Api);
    await apps.deleteNamespacedStatefulSet({ namespace: 'logs', name: 'victoria-logs', body: { propagationPolicy: 'Orphan' } });
    for (let i = 0; i < 10 && kube.store.get(stsType, 'logs', 'victoria-logs'); i++) kube.tick(1);
    await apps.createNamespacedStatefulSet({ namespace: 'logs', body: rendered('20Gi') });
    kube.tick(2);
    const run = await pass();
    const pr = openWriteBacks().find((p) => p.head === 'sts-volume-gitops/write-back/demo/logs/victoria-logs/server-volume');
    assert.ok(pr, JSON.stringify(run.writeBack?.outcomes));
    assert.equal(openWriteBacks().length, 2, 'one per template');
    assert.equal(await github.readFile(pr.head, 'apps/victoria/values.yaml'), victoriaValues('20Gi'));
    assert.match(pr.body ?? '', /the live StatefulSet's template `server-volume`: 20Gi/);
    assert.match(pr.body ?? '', /\| apps\/victoria\/values\.yaml \| 6 \| storage \| 10Gi \| 20Gi \|/);
    assert.match(pr.body ?? '', /Nothing new: the volumes already have this size, and it is already being paid\./);
    assert.match(pr.body ?? '', /Nothing is written in the cluster: Git then says what the cluster already has/);
    victoriaPr = pr.number;
  });

  it('keeps one pull request per template over passes, writing nothing to GitHub while the proposal is the same', async () => {
    github.requestLog.reset();
    const run = await pass();
    assert.deepEqual(run.writeBack?.outcomes.map((o) => o.action), ['unchanged', 'unchanged']);
    assert.deepEqual(github.requestLog.writes(), []);
    assert.equal(openWriteBacks().length, 2);
  });

  it('merged (the template grown by hand), nothing is resized or recreated, and the next pass is clean with no write to the cluster', async () => {
    await github.mergePullRequest(victoriaPr);
    kube.requestLog.reset();
    const first = await pass();
    const victoria = first.report?.statefulSets.find((s) => s.name === 'victoria-logs');
    assert.equal(victoria?.outcome, 'converged', JSON.stringify(victoria?.templates[0]?.reasons));
    assert.equal(first.report?.writeBack?.some((d) => d.statefulSet === 'victoria-logs') ?? false, false);
    // The pass after the merge only brings the tool's status annotation (blocked at 10Gi) up to date: no volume, no template.
    assert.deepEqual(kube.requestLog.writes().filter((w) => w.resource !== 'leases' && w.resource !== 'events').map((w) => `${w.verb} ${w.resource} ${w.name ?? ''}`), ['patch statefulsets victoria-logs']);
    kube.requestLog.reset();
    await pass();
    assert.deepEqual(kube.requestLog.writes().map((w) => `${w.verb} ${w.resource} ${w.name ?? ''}`), []);
  });

  it('merged (PVCs grown alone), the grown volumes are not written: the template is updated and the replica behind grows, then the passes are clean', async () => {
    await github.mergePullRequest(pgPr);
    kube.requestLog.reset();
    await passUntil(pass, kube, (run) => run.report?.statefulSets.find((s) => s.name === 'pg')?.outcome === 'converged');
    assert.deepEqual(kube.requestLog.writes().filter((w) => w.resource === 'persistentvolumeclaims').map((w) => `${w.verb} ${w.name ?? ''}`), ['patch data-pg-1']);
    assert.deepEqual(pvcStorage('db', 'data-pg-0'), { request: '20Gi', capacity: '20Gi' });
    kube.requestLog.reset();
    const run = await pass();
    assert.equal(run.report?.writeBack, undefined);
    assert.deepEqual(kube.requestLog.writes().map((w) => `${w.verb} ${w.resource} ${w.name ?? ''}`), []);
  });

  it('closed by a person, it is not proposed again until the live size grows beyond it', async () => {
    await growPvc('db', 'data-pg-1', '25Gi');
    expandAll([['db', 'data-pg-1']]);
    const first = await pass();
    assert.equal(first.writeBack?.outcomes.find((o) => o.key === 'db/pg/data')?.action, 'opened');
    const pr = openWriteBacks().find((p) => p.head.endsWith('/db/pg/data'));
    assert.ok(pr);
    assert.match(pr.title, /20Gi → 25Gi/);
    const stored = github.state.pulls.find((p) => p.number === pr.number);
    assert.ok(stored);
    stored.state = 'closed';
    stored.closedAt = new Date().toISOString();
    const declined = await pass();
    assert.equal(declined.writeBack?.outcomes.find((o) => o.key === 'db/pg/data')?.action, 'declined-before');
    assert.deepEqual(openWriteBacks(), []);
    // The autoscaler grows a volume further: the live size is beyond what was declined.
    await growPvc('db', 'data-pg-0', '30Gi');
    expandAll([['db', 'data-pg-0']]);
    const grown = await pass();
    assert.equal(grown.writeBack?.outcomes.find((o) => o.key === 'db/pg/data')?.action, 'opened');
    const reopened = openWriteBacks().find((p) => p.head.endsWith('/db/pg/data'));
    assert.ok(reopened && reopened.number !== pr.number);
    pgPr = reopened.number;
    assert.match(reopened.title, /20Gi → 30Gi/);
  });

  it('Git caught up by a person\'s own change: the write-back pull request is closed with a comment', async () => {
    await github.commitFiles({ branch: 'main', message: 'pg at 30Gi', files: { 'k8s/pg.yaml': pgManifest('30Gi') }, author: 'Dana Developer' });
    const run = await pass();
    const outcome = run.writeBack?.outcomes.find((o) => o.key === 'db/pg/data');
    assert.equal(outcome?.action, 'closed');
    const closed = github.state.pulls.find((p) => p.number === pgPr);
    assert.equal(closed?.state, 'closed');
    assert.ok(closed?.labels.includes('closed-by-sts-volume-gitops'));
    assert.match(commentBodies(github, pgPr).at(-1) ?? '', /Closing: Git now says 30Gi, at least the live size 30Gi it proposed, so this write-back is no longer needed/);
    assert.deepEqual(openWriteBacks(), []);
  });
});
