// Issue 37 item 9: after a failure for good, `plan` and `reconcile` say which recovery pull request proposes the way
// out (its number, URL and proposal), in text and in --json; a plan only reads it. The CLI over both sandboxes.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { promisify } from 'node:util';
import type { TargetRunJson } from '../../../functions/app/report-json.ts';
import { parseConfig } from '../../../functions/domain/config.ts';
import { startCappedWarehouse, type CappedWarehouse } from '../../support/capped-warehouse.ts';
import { applyPass, passUntil } from '../../support/passes.ts';

const run = promisify(execFile);

describe('the recovery pull request in plan and reconcile', () => {
  let world: CappedWarehouse;
  let configPath: string;
  let pull: { number: number };

  async function cli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
    try {
      const { stdout, stderr } = await run(process.execPath, ['--import', 'tsx', 'functions/cli/main.ts', ...args, '--config', configPath], { env: { ...process.env, ...world.env } });
      return { code: 0, stdout, stderr };
    } catch (error) {
      const e = error as { code: number; stdout: string; stderr: string };
      return { code: e.code, stdout: e.stdout, stderr: e.stderr };
    }
  }

  before(async () => {
    world = await startCappedWarehouse({ replicas: 1, tokenEnv: 'REPORTS_TOKEN' });
    const { kube, github } = world;
    configPath = join(world.dir, 'config.yaml');
    await writeFile(configPath, world.configText);
    await github.commitFiles({ branch: 'main', message: 'Grow the warehouse', files: { 'k8s/wh.yaml': world.manifest('100Gi') } });
    const config = parseConfig(world.configText, configPath, world.dir);
    await passUntil(() => applyPass(config, world.env), kube, (r) => r.recovery?.outcomes.some((o) => o.action === 'opened') === true);
    const opened = github.state.pulls.find((p) => p.state === 'open' && p.head === 'sts-volume-gitops/recover/demo/analytics/wh/data');
    assert.ok(opened);
    pull = { number: opened.number };
  });
  after(() => world.close());

  const line = (): RegExp => new RegExp(`\\n {8}recovery pull request #${pull.number} proposes 100Gi -> 50Gi: (\\S+/pull/${pull.number})\\n`);

  it('plan says which pull request proposes what, under the failed template, and writes nothing to GitHub', async () => {
    world.github.requestLog.reset();
    const text = await cli(['plan']);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, /\n {2}x analytics\/wh .*\n {6}data: /);
    assert.match(text.stdout, line());
    assert.deepEqual(world.github.requestLog.writes(), []);
    const [json] = JSON.parse((await cli(['plan', '--json'])).stdout) as TargetRunJson[];
    assert.deepEqual(json?.recovery?.outcomes.map((o) => [o.key, o.kind, o.action, o.pullRequest, o.change]),
      [['analytics/wh/data', 'size-recovery', 'open', pull.number, { from: '100Gi', to: '50Gi' }]]);
    assert.match(json?.recovery?.outcomes[0]?.pullRequestUrl ?? '', new RegExp(`/pull/${pull.number}$`));
  });

  it('reconcile says the same of the pull request it keeps, in text and --json', async () => {
    const text = await cli(['reconcile']);
    assert.equal(text.code, 1, text.stderr);
    assert.match(text.stdout, line());
    const [json] = JSON.parse((await cli(['reconcile', '--json'])).stdout) as TargetRunJson[];
    const outcome = json?.recovery?.outcomes.find((o) => o.key === 'analytics/wh/data');
    assert.deepEqual([outcome?.action, outcome?.pullRequest, outcome?.change], ['unchanged', pull.number, { from: '100Gi', to: '50Gi' }]);
    assert.equal(outcome?.decision?.kind, 'propose');
  });
});
