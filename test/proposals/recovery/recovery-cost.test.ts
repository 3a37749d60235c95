// A recovery pull request's own check and plan comment (KEP-1790): the request goes down from the size that failed,
// but the volumes grow from their capacity, and that growth is what the bill pays. Both sandboxes, the real clients.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { TargetRun } from '../../../functions/app/run-targets.ts';
import { renderPassReport } from '../../../functions/cli/render-report.ts';
import { parseConfig, type Config } from '../../../functions/domain/config.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../../sandbox/kube/index.ts';
import { startCappedWarehouse, type CappedWarehouse } from '../../support/capped-warehouse.ts';
import { applyPass, commentBodies, passUntil } from '../../support/passes.ts';

describe('the cost of a recovery pull request', () => {
  let world: CappedWarehouse;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const pass = (): Promise<TargetRun> => applyPass(config, world.env);

  before(async () => {
    world = await startCappedWarehouse({ replicas: 2, tokenEnv: 'COST_TOKEN', extraConfig: '    prices: { currency: USD, perGiBMonth: { capped: 0.125 } }\n' });
    ({ kube, github } = world);
    config = parseConfig(world.configText, 'c.yaml', world.dir);
    await github.commitFiles({ branch: 'main', message: 'Grow the warehouse', files: { 'k8s/wh.yaml': world.manifest('100Gi') } });
  });
  after(() => world.close());

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
