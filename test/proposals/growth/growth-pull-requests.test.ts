// Growth pull requests end to end (issue 36 item 2): both sandboxes, the real Octokit and client-node, usage from the
// sandbox's Prometheus, passes through runTargets. Volumes above usedPercent or filling within fullWithin get one
// growth pull request per template, edited where the size lives (manifest or mapped Helm values), priced, with the
// evidence; the others none; openAtOnce, growth.max, a guardrail's cut, a set's annotation, a person's open pull
// request and a person's close are respected; merged, the change converges with every pod and PVC kept; usage falling
// closes the pull request.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { targetRunJson } from '../../../functions/app/report-json.ts';
import { proposalOutcomes, runTargets, type TargetRun } from '../../../functions/app/run-targets.ts';
import { renderPassReport } from '../../../functions/cli/render-report.ts';
import { sandboxConfig, sandboxGrowth, sandboxRecordKeyEnv } from '../../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../../functions/domain/config.ts';
import { passMetrics } from '../../../functions/lambda/pass-metrics.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { applyPass, commentBodies, noWaiting, passUntil, writeFiles } from '../../support/passes.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';

const types = { pod: mustResourceType('v1', 'Pod'), pvc: mustResourceType('v1', 'PersistentVolumeClaim'), sts: mustResourceType('apps/v1', 'StatefulSet') };
const tokenEnv = 'GROWTH_PR_TOKEN';
/** A body as it reads on GitHub: Markdown's backslash escapes taken out. */
const plain = (markdown: string): string => markdown.replace(/\\([^\w\s])/g, '$1');

const annotated = (name: string, annotations: string, storage = '10Gi'): string => statefulSetManifest({ name, storage, replicas: 1, annotations });
const mqValues = (size: string): string => `# mq chart values (prod)\npersistence:\n  enabled: true\n  size: ${size}  # grown by growth pull requests\n`;
const files: Record<string, string> = {
  'k8s/pg.yaml': statefulSetManifest({ name: 'pg', storage: '10Gi', replicas: 2 }),
  'k8s/logs.yaml': annotated('logs', '{ sts-volume-gitops.io/growth-max: 12Gi }'),
  'k8s/full.yaml': annotated('full', '{ sts-volume-gitops.io/growth-max: 10Gi }'),
  'k8s/off.yaml': annotated('off', '{ sts-volume-gitops.io/growth: "off" }'),
  'k8s/quiet.yaml': statefulSetManifest({ name: 'quiet', storage: '10Gi', replicas: 1 }),
  'k8s/cache.yaml': statefulSetManifest({ name: 'cache', storage: '10Gi', replicas: 1 }),
  'apps/mq/values.yaml': mqValues('10Gi'),
};

describe('growth pull requests', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const pass = (): Promise<TargetRun> => applyPass(config, env);
  const growthPulls = () => github.state.pulls.filter((p) => p.head.startsWith('sts-volume-gitops/grow/'));
  const pullOf = (name: string) => growthPulls().find((p) => p.head === `sts-volume-gitops/grow/demo/db/${name}/data`);
  /** Each set's growth outcome in a pass. */
  const actions = (run: TargetRun): Record<string, string> => Object.fromEntries((run.growth?.outcomes ?? []).map((o): [string, string] => [o.key.split('/')[1] ?? o.key, o.action]));
  const uids = (): string[] => [...kube.store.list(types.pod, 'db'), ...kube.store.list(types.pvc, 'db')]
    .filter((o) => /-pg-\d$/.test(o.metadata.name)).map((o) => `${o.metadata.name}:${o.metadata.uid ?? ''}`).sort();
  let personsPull: number;

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-growth-prs-'));
    await writeFiles(join(dir, 'repo'), files);
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'),
      seed: {
        namespaces: ['db'],
        storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }],
        statefulSets: [...Object.entries(files).filter(([path]) => path.startsWith('k8s/')).map(([, text]) => load(text)), load(statefulSetManifest({ name: 'mq', storage: '10Gi', replicas: 1 }))],
        volumeUsage: [
          { namespace: 'db', claim: 'data-pg-0', used: '8.5Gi', perDay: '0.5Gi' },
          { namespace: 'db', claim: 'data-pg-1', used: '4Gi' },
          { namespace: 'db', claim: 'data-logs-0', used: '9.2Gi' },
          { namespace: 'db', claim: 'data-full-0', used: '9Gi' },
          { namespace: 'db', claim: 'data-off-0', used: '9.5Gi' },
          { namespace: 'db', claim: 'data-quiet-0', used: '2Gi' },
          { namespace: 'db', claim: 'data-cache-0', used: '9Gi' },
          { namespace: 'db', claim: 'data-mq-0', used: '5Gi', perDay: '1Gi' },
        ],
      },
    });
    kube.tick(5); // pods running: the kubelet reports the volumes they mount
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    const text = sandboxConfig(kube.kubeconfigPath, github.url, tokenEnv, [{ file: 'apps/mq/values.yaml', path: 'persistence.size', statefulSet: 'db/mq', template: 'data' }], {
      recordKey: { env: Object.keys(sandboxRecordKeyEnv())[0] ?? '' }, stateNamespace: 'default', prices: { currency: 'USD', perGiBMonth: { standard: 0.1 } }, prometheusUrl: kube.prometheus.url,
    }).replace(sandboxGrowth, '{ usedPercent: 80, fullWithin: 7d, step: 50%, max: 100Gi, openAtOnce: 2 }') + '    guardrails: { maxSize: 14Gi }\n';
    config = parseConfig(text, 'c.yaml', dir);
    env[tokenEnv] = github.token;
    // A person's open pull request already changes cache's size.
    await github.commitFiles({ branch: 'cache-20', message: 'Grow cache to 20Gi', files: { 'k8s/cache.yaml': files['k8s/cache.yaml']?.replace('storage: 10Gi', 'storage: 20Gi') ?? '' } });
    personsPull = await github.openPullRequest({ head: 'cache-20', title: 'Grow cache to 20Gi' });
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('opens one pull request per template that needs growth, fullest first up to openAtOnce, edited where the size lives, priced, with the evidence', async () => {
    const run = await pass();
    assert.deepEqual(actions(run), { logs: 'opened', pg: 'opened', cache: 'left-alone', mq: 'waiting' });
    assert.deepEqual(growthPulls().map((p) => p.head).sort(), ['sts-volume-gitops/grow/demo/db/logs/data', 'sts-volume-gitops/grow/demo/db/pg/data']);
    const pg = pullOf('pg');
    assert.equal(pg?.title, 'Grow db/pg data: 10Gi → 14Gi (data-pg-0 85% full)');
    assert.deepEqual(pg?.labels, ['sts-volume-gitops', 'volume-growth']);
    assert.equal(await github.readFile(pg?.head ?? '', 'k8s/pg.yaml'), files['k8s/pg.yaml']?.replace('storage: 10Gi', 'storage: 14Gi'), 'only the size changed, where it lives');
    const body = plain(pg?.body ?? '');
    assert.match(body, /^<!-- sts-volume-gitops:proposal kind=growth key=db\/pg\/data from=10Gi to=14Gi -->/);
    assert.match(body, /\n- data-pg-0: 8\.5Gi of 10Gi used \(85%\), full in 3 days at 0\.5Gi a day; 61% at 14Gi\n/);
    assert.match(body, /\n- data-pg-1: 4Gi of 10Gi used \(40%\), not filling at the last day's pace; 29% at 14Gi\n/);
    assert.match(body, /\| k8s\/pg\.yaml \| \d+ \| storage \| 10Gi \| 14Gi \|/);
    assert.match(body, /## Why 14Gi\n\n15Gi is what the fullest replica needs[^\n]+\n\n\*\*Cut by a limit:\*\* 15Gi was needed, but guardrails\.maxSize on the target allows 14Gi\. This proposes 14Gi, as far as allowed/);
    assert.match(body, /The template and its 2 volumes grow from 10Gi to 14Gi\. That adds \+0\.80 USD a month \(8Gi more on standard at 0\.1 USD per GiB-month\)/);
    assert.match(body, /## After merge\n\nThe next pass applies 14Gi/);
    assert.match(plain(pullOf('logs')?.body ?? ''), /15Gi was needed, but sts-volume-gitops\.io\/growth-max at k8s\/logs\.yaml:6 allows 12Gi/);
    // A person's open pull request already changes cache's size: a comment there, no rival.
    assert.match(plain(commentBodies(github, personsPull).join('\n')), /would propose growing db\/cache `data` to \*\*14Gi\*\* \(data-cache-0 90% full\), but this pull request already changes that size/);
    // At its max, off, and below the threshold: no pull request; the one at its limit is a report line and a metric.
    const report = run.report ?? assert.fail('no report');
    assert.deepEqual(Object.fromEntries((report.growth ?? []).filter((g) => g.action === 'none').map((g) => [g.statefulSet, g.action === 'none' && g.code])), { full: 'at-max', off: 'growth-off', quiet: 'below-threshold' });
    assert.match(renderPassReport(report), /\n {2}! growth db\/full data \(k8s\/full\.yaml:\d+\): no growth: .*already at 10Gi/);
    assert.equal(passMetrics(run).counts.GrowthAtLimit, 1);
    assert.equal(passMetrics(run).counts.ProposalPullRequestsOpened, 2);
    assert.deepEqual(passMetrics(run).byKind.filter((k) => k.kind === 'growth'), [{ name: 'ProposalPullRequestsOpened', kind: 'growth', value: 2 }]);
    // The CLI and --json say what became of each, the waiting one with why.
    const text = renderPassReport(report, { proposals: run.growth?.outcomes ?? [] });
    assert.match(text, /\n {8}growth pull request #\d+ proposes 10Gi -> 14Gi: http\S+\/pull\/\d+ \(opened\)\n/);
    assert.match(text, /\n {8}no growth pull request: 2 growth pull requests are open at once for this target, its limit; this one waits for one to close\n/);
    assert.deepEqual(targetRunJson(run).growth?.outcomes.find((o) => o.key === 'db/mq/data')?.change, { from: '10Gi', to: '14Gi' });
  });

  it('leaves them as they are on the next pass: never duplicated', async () => {
    const numbers = growthPulls().map((p) => p.number);
    const run = await pass();
    assert.deepEqual(actions(run), { logs: 'unchanged', pg: 'unchanged', cache: 'left-alone', mq: 'waiting' });
    assert.deepEqual(growthPulls().map((p) => p.number), numbers);
  });

  it('lists the target\'s open proposals once a pass, for its recovery, write-back and growth steps', async () => {
    github.requestLog.reset();
    const run = await pass();
    assert.deepEqual([run.recovery?.outcomes, run.writeBack?.outcomes], [[], []], 'the recovery and write-back steps ran');
    // The proposals' listing: open pull requests of every base and head (the rival and per-branch ones name theirs).
    const listings = github.requestLog.entries.filter((e) => e.operation === 'pulls.list' && !/[?&](head|base)=/.test(e.query));
    assert.equal(listings.length, 1);
  });

  it('a plan lists them once too, and shows the open growth pull requests beside recovery and write-back', async () => {
    github.requestLog.reset();
    const [plan] = await runTargets(config, { mode: 'plan', holderIdentity: 'test', env, timing: noWaiting });
    assert.equal(github.requestLog.entries.filter((e) => e.operation === 'pulls.list').length, 1);
    assert.deepEqual(plan?.recovery?.outcomes, []);
    assert.deepEqual(plan?.growth?.outcomes.map((o) => [o.key, o.action]).sort(), [['db/logs/data', 'open'], ['db/pg/data', 'open']]);
    const report = plan.report ?? assert.fail('no report');
    assert.match(renderPassReport(report, { proposals: proposalOutcomes(plan) }), /\n {8}growth pull request #\d+ proposes 10Gi -> 14Gi: http\S+\/pull\/\d+\n/);
  });

  it('respects a person closing one, and gives its slot to the next fullest (Helm values edited in place)', async () => {
    const logs = pullOf('logs') ?? assert.fail('no logs pull request');
    logs.state = 'closed';
    logs.closedAt = new Date().toISOString();
    const run = await pass();
    assert.equal(actions(run).logs, 'declined-before');
    assert.equal(actions(run).mq, 'opened');
    assert.equal(growthPulls().filter((p) => p.head.endsWith('/logs/data')).length, 1, 'not proposed again');
    const mq = pullOf('mq');
    assert.equal(mq?.title, 'Grow db/mq data: 10Gi → 14Gi (data-mq-0 full in 5 days)');
    assert.equal(await github.readFile(mq?.head ?? '', 'apps/mq/values.yaml'), mqValues('14Gi'), 'the mapped value, byte-exact');
    assert.equal(actions(await pass()).logs, 'declined-before');
  });

  it('merged, converges with every pod and PVC kept, and proposes nothing more for it', async () => {
    const before = uids();
    await github.mergePullRequest(pullOf('pg')?.number ?? assert.fail('no pg pull request'));
    await passUntil(pass, kube, (run) => run.report?.statefulSets.find((s) => s.name === 'pg')?.templates[0]?.finished === true);
    assert.deepEqual(uids(), before);
    for (const name of ['data-pg-0', 'data-pg-1']) {
      assert.equal((kube.store.peek(types.pvc, 'db', name)?.status as { capacity?: { storage?: string } }).capacity?.storage, '14Gi');
    }
    const run = await pass();
    assert.equal(actions(run).pg, undefined);
    assert.equal(growthPulls().filter((p) => p.head.endsWith('/pg/data')).length, 1);
  });

  it('closes one with a comment when usage falls below the threshold', async () => {
    kube.prometheus.setVolumeUsage({ namespace: 'db', claim: 'data-mq-0', used: '1Gi' });
    const run = await pass();
    assert.equal(actions(run).mq, 'closed');
    const mq = pullOf('mq');
    assert.equal(mq?.state, 'closed');
    assert.ok(mq?.labels.includes('closed-by-sts-volume-gitops'));
    assert.match(plain(commentBodies(github, mq?.number ?? 0).join('\n')), /Closing: usage fell: the fullest replica, data-mq-0, is 10% full/);
    assert.deepEqual(passMetrics(run).byKind, [{ name: 'ProposalPullRequestsClosed', kind: 'growth', value: 1 }]);
  });
});
