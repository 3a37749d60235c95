// One GitHub error costs only its own item (issue 13 item 9): a pull request whose comment cannot be written (its
// conversation is locked) is reported as a failure, the other pull requests still get their checks, and the cluster report is kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { pgManifest, startOneSetWorld } from './one-set-world.ts';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { noWaiting } from '../support/passes.ts';


describe('feedback isolation', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();

  async function pass(): Promise<TargetRun> {
    const [run] = await runTargets(config, { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting });
    assert.ok(run);
    return run;
  }

  const validateStatus = (sha: string): string | undefined =>
    github.state.statuses.filter((s) => s.sha === sha && s.context === 'sts-volume-gitops/validate (demo)').at(-1)?.state;

  before(async () => {
    const world = await startOneSetWorld('sts-isolation-');
    ({ kube, github } = world);
    const dir = world.dir;
    config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'ISOLATION_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]'), 'i.yaml', dir);
    env.ISOLATION_TOKEN = github.token;
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('publishes the other pull requests\' checks when one pull request\'s comment is refused, and catches up next pass', async () => {
    const first = await github.commitFiles({ branch: 'grow-20', message: 'Grow to 20Gi', files: { 'k8s/pg.yaml': pgManifest('20Gi') } });
    const firstPr = await github.openPullRequest({ head: 'grow-20', title: 'Grow to 20Gi' });
    const second = await github.commitFiles({ branch: 'grow-30', message: 'Grow to 30Gi', files: { 'k8s/pg.yaml': pgManifest('30Gi') } });
    await github.openPullRequest({ head: 'grow-30', title: 'Grow to 30Gi' });
    const locked = github.state.pulls.find((p) => p.number === firstPr);
    assert.ok(locked);
    locked.locked = true; // a maintainer locked the conversation: GitHub refuses the bot's comment with 403

    const run = await pass();
    assert.equal(run.error, undefined, run.error);
    assert.equal(run.report?.outcome, 'ok', 'the cluster report is kept');
    assert.deepEqual(run.feedback?.failures.map((f) => f.item), [`pull request #${firstPr}`]);
    assert.match(run.feedback?.failures[0]?.error ?? '', /Unable to create comment because issue is locked/);
    assert.equal(validateStatus(first), undefined, 'the refused pull request got no check this pass');
    assert.equal(validateStatus(second), 'success', 'the next pull request still got its check');

    locked.locked = false;
    const retried = await pass();
    assert.deepEqual(retried.feedback?.failures, []);
    assert.equal(validateStatus(first), 'success');
  });
});
