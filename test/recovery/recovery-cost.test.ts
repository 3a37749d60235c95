// A recovery pull request's own check and plan comment (KEP-1790): the request goes down from the size that failed,
// but the volumes grow from their capacity, and that growth is what the bill pays. Both sandboxes, the real clients.
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { load } from 'js-yaml';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';
import { applyPass, commentBodies, passUntil, writeFiles } from '../support/passes.ts';

function manifest(storage: string): string {
  return statefulSetManifest({ name: 'wh', namespace: 'analytics', storage, storageClass: 'capped', replicas: 2 });
}

describe('the cost of a recovery pull request', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const pass = (): Promise<TargetRun> => applyPass(config, env);

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-recovery-cost-'));
    await writeFiles(join(dir, 'repo'), { 'k8s/wh.yaml': manifest('20Gi') });
    kube = await startKubeSandbox({
      workDir: join(dir, 'kube'),
      seed: {
        namespaces: ['analytics'],
        // The driver refuses anything above 50Gi for good (ControllerResizeInfeasible).
        storageClasses: [{ name: 'capped', allowVolumeExpansion: true, driver: { maxVolumeSize: '50Gi' } }],
        statefulSets: [load(manifest('20Gi'))],
      },
    });
    github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
    const text = sandboxConfig(kube.kubeconfigPath, github.url, 'COST_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [analytics]')
      + '    prices: { currency: USD, perGiBMonth: { capped: 0.125 } }\n';
    config = parseConfig(text, 'c.yaml', dir);
    env.COST_TOKEN = github.token;
    await github.commitFiles({ branch: 'main', message: 'Grow the warehouse', files: { 'k8s/wh.yaml': manifest('100Gi') } });
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('says the volumes grow 20Gi -> 50Gi while the request goes down from 100Gi, and prices the 30Gi each adds', async () => {
    const opened = await passUntil(pass, kube, (run) => run.recovery?.outcomes.some((o) => o.action === 'opened') === true);
    const recovery = github.state.pulls.find((p) => p.state === 'open' && p.head.startsWith('sts-volume-gitops/recover/'));
    assert.ok(recovery, opened.recovery?.outcomes.map((o) => `${o.key}: ${o.action}`).join(", "));
    // Its body says the same before any check has run.
    assert.match(recovery.body ?? '', /\n## What it changes\n\nThe request goes down from 100Gi to 50Gi; the volumes, at 20Gi \\\(their capacity: 100Gi was never provisioned\\\), grow to 50Gi\. That adds \\\+7\.50 USD a month \\\(60Gi more on capped at 0\.125 USD per GiB-month\\\)\.\n/);
    const run = await pass(); // validates the recovery pull request like any other
    const check = run.feedback?.checks.find((c) => c.number === recovery.number);
    assert.equal(check?.state, 'success', check?.description);
    // 2 volumes x (50Gi - 20Gi) x 0.125 USD/GiB-month.
    assert.equal(check?.description, 'analytics/wh: 2 PVCs grow 20Gi → 50Gi (request lowered from 100Gi); +7.50 USD a month');
    const comment = commentBodies(github, recovery.number).find((b) => b.includes('sts-volume-gitops plan'));
    assert.match(comment ?? '', /\| 100Gi → 50Gi<br>volumes 20Gi → 50Gi \|/);
    assert.match(comment ?? '', /\*\*Storage cost:\*\* \\\+7\.50 USD a month \\\(analytics\/wh \\\+7\.50 USD\\\)/);
  });

  it('reports the same direction and cost in the pass that applies it once merged (the CLI and --json)', async () => {
    const recovery = github.state.pulls.find((p) => p.state === 'open' && p.head.startsWith('sts-volume-gitops/recover/'));
    assert.ok(recovery);
    await github.mergePullRequest(recovery.number);
    const run = await pass();
    assert.equal(run.report?.cost?.monthlyIncrease, 7.5);
    assert.ok(run.report);
    assert.match(renderPassReport(run.report), /\n {6}data: 20Gi -> 50Gi \(request lowered from 100Gi\) \[capped\].*\n {8}cost: \+7\.50 USD a month \(60Gi more on capped at 0\.125 USD per GiB-month\)/);
  });
});
