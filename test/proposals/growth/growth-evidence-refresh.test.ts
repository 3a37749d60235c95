// A growth pull request's evidence follows usage (issue 36 item 2, "updated in place when usage moves") without churn:
// both sandboxes on one clock the test moves, the real Octokit and client-node, passes through runTargets. Usage that
// moves less than what the body displays writes nothing; displayed numbers that moved are rewritten at most every
// evidenceRefreshHours (title and body only: the branch keeps its commit); a replica crossing the threshold is
// rewritten at once; a pass over an unchanged world writes nothing.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import { runTargets, type TargetRun } from '../../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxGrowth, sandboxRecordKeyEnv } from '../../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../../functions/domain/config.ts';
import { evidenceRefreshHours } from '../../../functions/proposals/lifecycle/evidence-refresh.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { noWaiting, writeFiles } from '../../support/passes.ts';
import { statefulSetManifest } from '../../support/statefulset-manifest.ts';

const tokenEnv = 'GROWTH_REFRESH_TOKEN';
const plain = (markdown: string): string => markdown.replace(/\\([^\w\s])/g, '$1');
const start = Date.parse('2026-11-28T02:00:00.000Z');
const hour = 3_600_000;

describe('a growth pull request\'s evidence as usage moves', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  let clock = start;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const pass = async (): Promise<TargetRun> => {
    const [run] = await runTargets(config, { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting, now: () => clock });
    assert.ok(run);
    assert.equal(run.error, undefined, run.error);
    return run;
  };
  const pull = () => github.state.pulls.find((p) => p.head === 'sts-volume-gitops/grow/demo/db/pg/data') ?? assert.fail('no growth pull request');
  const outcome = (run: TargetRun) => run.growth?.outcomes.find((o) => o.key === 'db/pg/data') ?? assert.fail('no growth outcome');

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-growth-refresh-'));
    const manifest = statefulSetManifest({ name: 'pg', storage: '10Gi', replicas: 2 });
    await writeFiles(join(dir, 'repo'), { 'k8s/pg.yaml': manifest });
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'), now: () => new Date(clock),
      seed: {
        namespaces: ['db'],
        storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } }],
        statefulSets: [load(manifest)],
        volumeUsage: [{ namespace: 'db', claim: 'data-pg-0', used: '8.5Gi', perDay: '0.5Gi' }, { namespace: 'db', claim: 'data-pg-1', used: '4Gi' }],
      },
    });
    kube.tick(5);
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    const text = sandboxConfig(kube.kubeconfigPath, github.url, tokenEnv, [], {
      recordKey: { env: Object.keys(sandboxRecordKeyEnv())[0] ?? '' }, stateNamespace: 'default', prometheusUrl: kube.prometheus.url,
    }).replace(sandboxGrowth, '{ usedPercent: 80, fullWithin: 7d, step: 50%, max: 100Gi, openAtOnce: 2 }');
    config = parseConfig(text, 'c.yaml', dir);
    env[tokenEnv] = github.token;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('opens it with the evidence, stamped with the time usage was read', async () => {
    assert.equal(outcome(await pass()).action, 'opened');
    const body = plain(pull().body ?? '');
    assert.match(body, /\n<!-- sts-volume-gitops:evidence at=2026-11-28T02%3A00%3A00\.000Z basis=data-pg-0%20bytes -->\n/);
    assert.match(body, /\n- data-pg-0: 8\.5Gi of 10Gi used \(85%\), full in 3 days at 0\.5Gi a day; 57% at 15Gi\n/);
    assert.match(body, /What it shows was read at 2026-11-28 02:00 UTC; when that moves, it is refreshed at most every 12 hours/);
  });

  it('writes nothing when usage moved less than the body shows (an hour later)', async () => {
    const before = pull().body;
    clock = start + hour;
    const run = await pass();
    assert.equal(outcome(run).action, 'unchanged');
    assert.deepEqual(run.growth?.writes, []);
    assert.equal(pull().body, before);
  });

  it('waits when the numbers shown moved less than evidenceRefreshHours after the last write', async () => {
    const before = pull().body;
    clock = start + 3 * hour; // data-pg-0 at 8.6Gi, 86%
    const run = await pass();
    assert.equal(outcome(run).action, 'unchanged');
    assert.match(outcome(run).reason ?? '', /its evidence moved; it is refreshed from 2026-11-28T14:00:00\.000Z/);
    assert.deepEqual(run.growth?.writes, []);
    assert.equal(pull().body, before);
  });

  it(`rewrites its title and body, not its branch, once the numbers moved and ${evidenceRefreshHours} hours passed`, async () => {
    clock = start + 13 * hour; // data-pg-0 at 8.8Gi, 88%
    const run = await pass();
    assert.equal(outcome(run).action, 'refreshed');
    assert.deepEqual(run.growth?.writes, [`growth PR #${pull().number} updated`]);
    assert.equal(pull().title, 'Grow db/pg data: 10Gi → 15Gi (data-pg-0 88% full)');
    const body = plain(pull().body ?? '');
    assert.match(body, /\n- data-pg-0: 8\.8Gi of 10Gi used \(88%\), full in 2\.5 days at 0\.5Gi a day; 58% at 15Gi\n/);
    assert.match(body, /at=2026-11-28T15%3A00%3A00\.000Z/);
    assert.equal(outcome(await pass()).action, 'unchanged', 'and then writes nothing over the same world');
  });

  it('rewrites it at once when another replica crosses the threshold', async () => {
    clock = start + 13 * hour + 60_000;
    kube.prometheus.setVolumeUsage({ namespace: 'db', claim: 'data-pg-1', used: '8.5Gi' });
    const run = await pass();
    assert.equal(outcome(run).action, 'refreshed');
    assert.match(outcome(run).reason ?? '', /what it rests on changed \(data-pg-0 bytes, data-pg-1 bytes, was data-pg-0 bytes\)/);
    assert.match(plain(pull().body ?? ''), /\n- data-pg-1: 8\.5Gi of 10Gi used \(85%\), not filling at the last day's pace; 57% at 15Gi\n/);
    const again = await pass();
    assert.equal(outcome(again).action, 'unchanged');
    assert.deepEqual(again.growth?.writes, []);
  });
});
