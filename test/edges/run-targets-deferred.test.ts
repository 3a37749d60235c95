// A pass whose GitHub steps meet a rate limit it has no time to wait out: the cluster work stands, the GitHub steps are
// reported as left for the next pass, and the target does not fail.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { runTargets } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

/** The deployment's record key (one for the whole file: its passes resume each other's records). */
const recordKeyEnv = sandboxRecordKeyEnv();

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));

describe('runTargets under a GitHub rate limit near the deadline', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-deferred-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
  });
  after(async () => {
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('keeps the pass, defers feedback with the reason, and writes nothing to GitHub', async () => {
    const config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'DEFERRED_TOKEN'), 'config.yaml', dir);
    github.faults.add({ method: 'POST', failNext: 1000, failWith: 429 });
    const events: string[] = [];
    try {
      const [run] = await runTargets(config, {
        mode: 'apply', holderIdentity: 'deferred-test', env: { DEFERRED_TOKEN: github.token, ...recordKeyEnv },
        // 30 s left: enough to start the GitHub steps, not to wait out a rate limit (1 s + a request + the closing reserve).
        remainingMs: () => 30_000,
        timing: { maxWaitMs: 0, pollIntervalMs: 0, sleep: () => Promise.resolve() },
        onEvent: (_target, line) => events.push(line),
      });
      assert.equal(run?.error, undefined);
      assert.equal(run?.report?.outcome, 'ok');
      assert.ok(run?.report?.statefulSets.every((s) => s.templateUpdate !== undefined), 'the cluster side of the pass was done');
      assert.equal(run?.feedback, undefined);
      assert.match(run?.deferred.join('\n') ?? '', /^pull request checks and progress: GitHub rate limit \(429\): You have exceeded a secondary rate limit/m);
      assert.ok(events.some((e) => e.startsWith('pull request checks and progress: left for the next pass (GitHub rate limit')));
      assert.deepEqual(github.requestLog.writes().filter((w) => w.status < 400), []);
    } finally {
      github.faults.clear();
    }
  });

  it('publishes progress item by item while time lasts and lists the rest as left for the next pass', async () => {
    const config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'DEFERRED_TOKEN'), 'config.yaml', dir);
    // Time runs short once the first status has been written: one more item needs 10 s and the closing reserve 5 s.
    const remainingMs = (): number => (github.requestLog.entries.some((e) => e.operation === 'repos.createCommitStatus') ? 12_000 : 60_000);
    github.requestLog.reset();
    const [run] = await runTargets(config, {
      mode: 'apply', holderIdentity: 'deferred-test', env: { DEFERRED_TOKEN: github.token, ...recordKeyEnv }, remainingMs,
      timing: { maxWaitMs: 0, pollIntervalMs: 0, sleep: () => Promise.resolve() },
    });
    assert.equal(run?.error, undefined);
    assert.equal(run?.feedback?.progress.length, 1, 'one StatefulSet reported before time ran short');
    const left = run?.feedback?.deferred ?? [];
    assert.ok(left.length >= 1, 'the others are left for the next pass');
    assert.ok(left.every((item) => /^progress of [a-z]+\/[a-z]+$/.test(item)), JSON.stringify(left));
    assert.ok(left.every((item) => run?.deferred.includes(`${item}: the invocation is running out of time`)));
  });
});
