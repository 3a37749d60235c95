// A progress check run is written when what it says changes, never because a pass came round (issue 30 item 9). The
// external-resizer rewrites a claim's ControllerResizeError, with a new time, at each attempt: every backoff of a
// retried error, every five minutes for an expansion it found infeasible. A pass between two attempts has nothing new
// to say. Both sandboxes, the real Octokit (as the sandbox's GitHub App) and client-node, runTargets; the sandbox clock
// moves on between passes as a real cluster's does.
import assert from 'node:assert/strict';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { load } from 'js-yaml';
import { createGitHubClient } from '../../functions/adapters/github/octokit.ts';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { progressContext } from '../../functions/feedback/check-names.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { pgManifest } from './one-set-world.ts';
import { noWaiting } from '../support/passes.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

interface World {
  kube: KubeSandbox;
  github: GitHubSandbox;
  pass: () => Promise<TargetRun>;
  /** Moves the sandbox clock on by `ms` and lets its controllers act. */
  later: (ms: number) => void;
  close: () => Promise<void>;
}

/** db/pg (1 replica, 10Gi) on a StorageClass whose driver behaves as `driver` says; Git asks for 20Gi. */
async function startWorld(prefix: string, driver: Record<string, unknown>): Promise<World> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(dir, 'repo', 'k8s'), { recursive: true });
  await writeFile(join(dir, 'repo', 'k8s', 'pg.yaml'), pgManifest('10Gi'));
  let clock = Date.parse('2026-03-02T09:00:00Z');
  const kube = await startKubeSandbox({
    workDir: join(dir, 'kube'), now: () => new Date(clock),
    seed: { namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true, driver }], statefulSets: [load(pgManifest('10Gi'))] },
  });
  const github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
  const env = { ...sandboxRecordKeyEnv(), PROGRESS_APP_KEY: github.app.privateKeyPem };
  const config = parseConfig(withSandboxApp(sandboxConfig(kube.kubeconfigPath, github.url, 'UNUSED').replace('allow: [db, cache, analytics]', 'allow: [db]'), github, 'PROGRESS_APP_KEY'), 'c.yaml', dir);
  await github.commitFiles({ branch: 'main', message: 'Grow pg data to 20Gi', files: { 'k8s/pg.yaml': pgManifest('20Gi') } });
  return {
    kube, github,
    pass: async () => {
      const [run] = await runTargets(config, { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting, now: () => clock });
      assert.ok(run);
      assert.equal(run.error, undefined, run.error);
      return run;
    },
    later: (ms) => {
      clock += ms;
      kube.tick(2);
    },
    close: async () => {
      await kube.close();
      await github.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/** The progress check run of db/pg as GitHub lists it to the App: how many runs, and the latest's title and summary. */
async function progressRun(world: World): Promise<{ runs: number; title: string | null; summary: string | null; status: string }> {
  const app = createGitHubClient({ baseUrl: world.github.url, auth: { kind: 'app', appId: world.github.app.appId, installationId: world.github.app.installationId, privateKey: world.github.app.privateKeyPem } });
  const sha = world.github.state.checkRuns.find((r) => r.name === progressContext('demo', { namespace: 'db', name: 'pg' }))?.headSha ?? '';
  const listed = await app.rest.checks.listForRef({ owner: 'acme', repo: 'platform-gitops', ref: sha, check_name: progressContext('demo', { namespace: 'db', name: 'pg' }) });
  const [latest] = listed.data.check_runs;
  return { runs: listed.data.total_count, title: latest?.output.title ?? null, summary: latest?.output.summary ?? null, status: latest?.conclusion ?? latest?.status ?? '' };
}

/** The Checks API writes of one pass (creates and updates), as the GitHub sandbox received them. */
async function checkWritesOf(world: World): Promise<string[]> {
  world.github.requestLog.reset();
  await world.pass();
  return world.github.requestLog.writes().map((w) => w.operation).filter((operation) => operation.startsWith('checks.'));
}

describe('a progress check run while nothing changes', () => {
  it('is not rewritten while the resizer retries a passing error: the claim has retried since its first failure', async () => {
    const world = await startWorld('sts-progress-retried-', { transientErrorRate: 1 });
    try {
      let run = await world.pass();
      for (let i = 0; i < 6 && !run.report?.statefulSets[0]?.templates[0]?.pvcs.some((p) => p.state === 'retrying'); i++) {
        world.later(1000);
        run = await world.pass();
      }
      assert.equal(run.report?.statefulSets[0]?.templates[0]?.pvcs[0]?.state, 'retrying', JSON.stringify(run.report?.statefulSets[0]?.templates[0]?.pvcs));
      const first = await progressRun(world);
      assert.equal(first.status, 'in_progress');
      assert.match(first.summary ?? '', /\| data-pg-0 \| 20Gi \| 10Gi \| 🔁 retrying after a transient error: failed to expand pvc with rpc error: code = Internal desc = backend temporarily unavailable \| 2026-03-02T09:00:\d\d\.000Z \|/);
      // The resizer tries again between the passes (its condition rewritten, the Event counted), and nothing else.
      world.later(30_000);
      assert.deepEqual(await checkWritesOf(world), [], 'the second pass writes no check run');
      world.later(30_000);
      assert.deepEqual(await checkWritesOf(world), [], 'nor does the third');
      assert.deepEqual(await progressRun(world), first, 'the run says what it said, once');
    } finally {
      await world.close();
    }
  });

  it('is not rewritten by the resizer\'s retries of an expansion it found infeasible, every five minutes', async () => {
    const world = await startWorld('sts-progress-infeasible-', { maxVolumeSize: '15Gi' });
    try {
      let run = await world.pass();
      for (let i = 0; i < 6 && run.report?.statefulSets[0]?.outcome !== 'failed'; i++) {
        world.later(1000);
        run = await world.pass();
      }
      assert.equal(run.report?.statefulSets[0]?.outcome, 'failed');
      world.later(1000);
      await world.pass(); // the resizer's second try at once (as recorded) is behind us
      const first = await progressRun(world);
      assert.equal(first.status, 'failure');
      assert.match(first.summary ?? '', /The driver said \(since 2026-03-02T09:00:\d\d\.000Z\):/);
      for (const minutes of [6, 6]) {
        world.later(minutes * 60_000);
        assert.deepEqual(await checkWritesOf(world), [], `no check run write ${minutes} minutes on`);
      }
      assert.deepEqual(await progressRun(world), first);
    } finally {
      await world.close();
    }
  });
});
