// README's walkthrough on the sandboxes (`npx sts-volume-gitops sandbox`, then `plan --config` on the config it
// prints) shows what a change costs, as `npm start` does: the ready config prices the example cluster's classes and maps
// its chart values, from examples/sandbox-target.yaml, so a copy of examples/ given to `--seed` keeps both; a seed
// without the file gets neither and is told so, and one with a mistake in it is refused naming the file and field.
import assert from 'node:assert/strict';
import { cp, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { runTargets } from '../../functions/app/run-targets.ts';
import { examplePrices, exampleSizeSources } from '../../functions/cli/sandbox-config.ts';
import { examplesFolder, seedTargetFile } from '../../functions/cli/sandbox-seed.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { startSandboxCommand } from '../sandbox/kube/fixtures.ts';

async function configOf(path: string): Promise<ReturnType<typeof parseConfig>['targets'][number] | undefined> {
  return parseConfig(await readFile(path, 'utf8'), path, dirname(path)).targets[0];
}

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

  it('keeps the size sources and prices with --seed and a copy of examples/, and says so when a seed has none', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-seed-copy-'));
    try {
      const copy = join(dir, 'examples');
      await cp(examplesFolder, copy, { recursive: true });
      const copied = await startSandboxCommand(['--seed', copy]);
      try {
        const target = await configOf(copied.info.config ?? '');
        assert.deepEqual(target?.sizeSources, exampleSizeSources);
        assert.deepEqual(target?.prices, examplePrices);
        assert.equal(copied.info.prices, 'standard 0.1 USD per GiB-month, capped 0.125 USD per GiB-month');
        assert.doesNotMatch(copied.stderr(), /sandbox-target/);
      } finally {
        assert.equal(await copied.stop('SIGINT'), 0);
      }
      await rm(join(copy, seedTargetFile));
      const bare = await startSandboxCommand(['--seed', copy]);
      try {
        const target = await configOf(bare.info.config ?? '');
        assert.deepEqual([target?.sizeSources, target?.prices, bare.info.prices], [[], undefined, undefined]);
        assert.match(bare.stderr(), new RegExp(`note: .*examples/${seedTargetFile} does not exist: the ready config maps no chart values \\(sizeSources\\) and prices no StorageClass`));
      } finally {
        assert.equal(await bare.stop('SIGINT'), 0);
      }
      await writeFile(join(copy, seedTargetFile), 'sizeSources:\n  - { file: a.yaml, path: size, statefulSet: db/pg, templat: data }\nprice: {}\n');
      await assert.rejects(startSandboxCommand(['--seed', copy]), (error: Error) => {
        assert.match(error.message, /^sandbox exited early with 2: /);
        assert.match(error.message, new RegExp(`configuration error in .*${seedTargetFile}:\\n {2}- has an unknown field "price": a seed's target takes sizeSources, prices, guardrails`));
        return true;
      });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
