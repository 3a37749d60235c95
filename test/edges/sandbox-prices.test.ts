// README's walkthrough on the sandboxes (`sts-volume-gitops sandbox`, then `plan --config` on the config it prints)
// shows what a change costs, as `npm start` does: the ready config prices the example cluster's classes.
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { describe, it } from 'node:test';
import { runTargets } from '../../functions/app/run-targets.ts';
import { examplePrices } from '../../functions/cli/sandbox-command.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { startSandboxCommand } from '../sandbox/kube/fixtures.ts';

describe('the sandbox command\'s ready config', () => {
  it('has the demo\'s prices, so plan --config on it says what each change costs', async () => {
    const sandbox = await startSandboxCommand([]);
    try {
      const path = sandbox.info.config ?? '';
      const config = parseConfig(await readFile(path, 'utf8'), path, dirname(path));
      assert.deepEqual(config.targets[0]?.prices, examplePrices);
      assert.equal(sandbox.info.prices, 'standard 0.1 USD per GiB-month, capped 0.125 USD per GiB-month');
      const [run] = await runTargets(config, { mode: 'plan', holderIdentity: 'test', env: { STS_SANDBOX_GITHUB_TOKEN: sandbox.info.githubToken ?? '' } });
      assert.ok(run?.report, run?.error);
      const text = renderPassReport(run.report);
      assert.match(text, /~ analytics\/clickhouse \(OrderedReady, 2 replicas\): will resize, \+20\.00 USD a month\n[^\n]+\n {8}cost: \+20\.00 USD a month \(160Gi more on capped at 0\.125 USD per GiB-month\)/);
      assert.match(text, /\n {2}storage cost of the resizes: \+23\.80 USD a month/);
    } finally {
      assert.equal(await sandbox.stop('SIGINT'), 0);
    }
  });
});
