// Issue 35 item 3: every check and comment that speaks of a failure says how it ended. A change fails for good, its
// recovery pull request is merged and the set converges: the failed commit's check (a commit status with a token, a
// check run with the App) and its pull request's comment say it was recovered by that pull request and where the set
// converged, and no longer propose anything. Two failures, then a person closes the recovery: no comment links it as
// the way forward. Both sandboxes, the real Octokit and client-node, runTargets.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient } from '../../functions/adapters/github/octokit.ts';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { progressContext } from '../../functions/feedback/check-names.ts';
import { renderEnding } from '../../functions/feedback/render-ending.ts';
import { startCappedWarehouse, type CappedWarehouse } from '../support/capped-warehouse.ts';
import { recordedPvc } from '../support/csi-recordings.ts';
import { applyPass, commentBodies, statusesOf } from '../support/passes.ts';
import { recordedTemplate } from '../support/recorded-reports.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

const recoveryBranch = 'sts-volume-gitops/recover/demo/analytics/wh/data';
const context = progressContext('demo', { namespace: 'analytics', name: 'wh' });

/**
 * A person's pull request changing the size, merged as on github.com: its number and the commit that changed the size
 * (its own, not the merge commit: the progress is reported on the commit that introduced the size).
 */
async function mergeSize(world: CappedWarehouse, storage: string): Promise<{ number: number; sha: string }> {
  const sha = await world.github.commitFiles({ branch: `grow-${storage}`, message: `Grow wh to ${storage}`, files: { 'k8s/wh.yaml': world.manifest(storage) } });
  const number = await world.github.openPullRequest({ head: `grow-${storage}`, title: `Grow wh to ${storage}` });
  await world.github.mergePullRequest(number);
  return { number, sha };
}

/** Passes, the sandbox's controllers advancing between them, until `until` holds (at most 12). */
async function passesUntil(pass: () => Promise<TargetRun>, until: (run: TargetRun) => boolean, what: string): Promise<void> {
  for (let i = 0; i < 12; i++) if (until(await pass())) return;
  assert.fail(`no pass saw ${what}`);
}

/** One apply pass, then the sandbox's controllers advance. */
async function passAndTick(world: CappedWarehouse, config: Config): Promise<TargetRun> {
  const run = await applyPass(config, world.env);
  world.kube.tick(2);
  return run;
}

const recoveryAction = (run: TargetRun): string | undefined => run.recovery?.outcomes.find((o) => o.key === 'analytics/wh/data')?.action;
const converged = (run: TargetRun): boolean => run.report?.statefulSets.find((s) => s.name === 'wh')?.templates.every((t) => t.justFinished) === true;
const progressComment = (world: CappedWarehouse, pr: number): string => commentBodies(world.github, pr).find((b) => b.includes('of analytics/wh')) ?? '';

for (const auth of ['token', 'app'] as const) {
  describe(`a failure recovered by its recovery pull request says so where it was reported (${auth === 'app' ? 'check runs' : 'commit statuses'})`, () => {
    let world: CappedWarehouse;
    let config: Config;
    const pass = (): Promise<TargetRun> => passAndTick(world, config);
    /** The latest verdict of ours on `sha`: a status's state, or a run's conclusion (its status while it runs), and its text. */
    const verdictOn = (sha: string): { state: string; text: string } => {
      if (auth === 'token') {
        const latest = statusesOf(world.github, sha, context).at(-1);
        return { state: latest?.state ?? 'none', text: latest?.description ?? '' };
      }
      const run = world.github.state.checkRuns.filter((r) => r.headSha === sha && r.name === context).at(-1);
      return { state: run?.conclusion ?? run?.status ?? 'none', text: `${run?.output.title ?? ''}\n${run?.output.summary ?? ''}` };
    };

    before(async () => {
      world = await startCappedWarehouse({ replicas: 2, tokenEnv: 'ENDINGS_TOKEN', storageComment: 'sized by the platform team' });
      config = parseConfig(auth === 'app' ? withSandboxApp(world.configText, world.github, 'ENDINGS_APP_KEY') : world.configText, 'c.yaml', world.dir);
      world.env.ENDINGS_APP_KEY = world.github.app.privateKeyPem;
    });
    after(() => world.close());

    it('after the recovery is merged and the set converged, the failed commit\'s check and comment say how it ended', async () => {
      const grown = await mergeSize(world, '100Gi');
      await passesUntil(pass, (run) => recoveryAction(run) === 'opened', 'the recovery opened');
      await pass();
      const recovery = world.github.state.pulls.find((p) => p.head === recoveryBranch);
      assert.ok(recovery);
      assert.equal(verdictOn(grown.sha).state, 'failure', 'before the recovery: the failed change is red');
      assert.match(progressComment(world, grown.number), /proposes a size that can succeed/);

      await world.github.mergePullRequest(recovery.number);
      await passesUntil(pass, converged, 'the set converge');

      const verdict = verdictOn(grown.sha);
      // Nothing is left for a person to do: a commit status has success alone for that; a check run ends neutral, as the
      // size that commit asked for (100Gi) was never reached.
      assert.equal(verdict.state, auth === 'app' ? 'neutral' : 'success', verdict.text);
      assert.match(verdict.text, new RegExp(`data: recovered by #${recovery.number}, converged at 50Gi`));
      const comment = progressComment(world, grown.number);
      assert.match(comment, new RegExp(`recovered by #${recovery.number}, converged at 50Gi`));
      assert.match(comment, /the resize to 100Gi failed for good/, 'what failed is still told');
      assert.doesNotMatch(comment, /proposes a size/);
      assert.doesNotMatch(comment, /❌/, 'nothing in it is left as failed');
    });
  });
}

describe('a recovery pull request a person closed is no way forward in any comment', () => {
  let world: CappedWarehouse;
  let config: Config;
  const pass = (): Promise<TargetRun> => passAndTick(world, config);

  before(async () => {
    world = await startCappedWarehouse({ replicas: 2, tokenEnv: 'ENDINGS_CLOSED_TOKEN', storageComment: 'sized by the platform team' });
    config = parseConfig(world.configText, 'c.yaml', world.dir);
  });
  after(() => world.close());

  it('two failures, the recovery closed by a person: the first change says it was superseded, the second why nothing is proposed', async () => {
    const first = await mergeSize(world, '100Gi');
    await passesUntil(pass, (run) => recoveryAction(run) === 'opened', 'the recovery opened');
    const second = await mergeSize(world, '80Gi');
    await passesUntil(pass, (run) => recoveryAction(run) === 'updated', 'the recovery updated');
    await pass();
    const recovery = world.github.state.pulls.find((p) => p.head === recoveryBranch);
    assert.ok(recovery);
    assert.match(progressComment(world, first.number), new RegExp(`/pull/${recovery.number}\\b`), 'before the close: both link it');

    const person = createGitHubClient({ baseUrl: world.github.url, auth: { kind: 'token', token: world.github.token } });
    await person.rest.pulls.update({ owner: world.github.owner, repo: world.github.repo, pull_number: recovery.number, state: 'closed' });
    await passesUntil(pass, (run) => recoveryAction(run) === 'declined-before', 'the close');
    await pass();

    for (const merged of [first, second]) {
      const comment = progressComment(world, merged.number);
      assert.doesNotMatch(comment, new RegExp(`/pull/${recovery.number}\\b`), `#${merged.number} still links the closed recovery:\n${comment}`);
      assert.doesNotMatch(comment, /proposes a size/, `#${merged.number}`);
    }
    assert.match(progressComment(world, first.number), new RegExp(`superseded by ${second.sha.slice(0, 7)} \\(#${second.number}\\)`));
    assert.match(progressComment(world, second.number), /No recovery pull request: a recovery to 50Gi was closed without merging/);
    const firstStatus = statusesOf(world.github, first.sha, context).at(-1);
    assert.match(firstStatus?.description ?? '', new RegExp(`data: superseded by ${second.sha.slice(0, 7)} \\(#${second.number}\\)`));
  });
});

describe('an ending links the recovery pull request the pass kept, whatever the value Git asks now is doing', () => {
  // 100Gi failed for good; a person's later 2Gi is being expanded (recorded by a real CSI resizer). The recovery
  // lifecycle keeps its pull request open until that value settles (recovery-kinds.ts): the ending links what it kept.
  const growing = recordedTemplate({ recorded: recordedPvc('a/a-mount-2', '1498'), size: '2Gi' });
  const ending = (recoveryLinks: ReadonlyMap<string, string>): string => renderEnding({
    target: 'prod', sts: growing.sts, commitSha: 'a'.repeat(40), recoveryLinks,
    ended: [{ template: growing.template, replaced: { desiredSize: '100Gi', commitSha: 'a'.repeat(40), failedForGood: true } }],
    by: { sha: 'b'.repeat(40), pullRequest: 15, recovered: new Set() },
  }).markdown;

  it('kept: linked while the later value is in progress, not only once it fails or is blocked above the driver\'s maximum', () => {
    const text = ending(new Map([['csi-probe/web/data', 'https://github.com/acme/gitops/pull/12']]));
    assert.match(text, /superseded by bbbbbbb \(#15\) asking 2Gi, in progress/);
    assert.match(text, /\n\nA recovery pull request proposes a size that can succeed: https:\/\/github\.com\/acme\/gitops\/pull\/12\n/);
  });

  it('none kept (closed, merged, or a person declined it): no link', () => {
    assert.doesNotMatch(ending(new Map()), /recovery pull request/i);
  });
});
