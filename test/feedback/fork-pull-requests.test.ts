// Pull requests from forks (issue 13 item 10): whoever opened one reads its statuses and comments, so by default it is
// not checked at all; when a target opts in, it gets what Git alone decides (test/feedback/fork-verdicts.test.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { pgManifest, startOneSetWorld } from './one-set-world.ts';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { forkNotValidated } from '../../functions/feedback/validate-pull-requests.ts';
import { forkChangeTitle } from '../../functions/feedback/fork-verdict.ts';
import { noWaiting } from '../support/passes.ts';


describe('pull requests from forks', () => {
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let dir: string;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  let forkHead = '';
  let forkPr = 0;

  async function pass(forks: 'neutral' | 'validate' | undefined): Promise<TargetRun> {
    const base = sandboxConfig(kube.kubeconfigPath, github.url, 'FORK_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]');
    const text = forks === undefined ? base : base.replace('pullRequests: { validate: true, recovery: true }', `pullRequests: { validate: true, recovery: true, forks: ${forks} }`);
    assert.ok(forks === undefined || text !== base, 'the configuration names the fork policy');
    const [run] = await runTargets(parseConfig(text, 'f.yaml', dir), { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting });
    assert.ok(run);
    assert.equal(run.error, undefined, run.error);
    return run;
  }

  const statuses = (sha: string): Array<{ state: string; description: string | null }> =>
    github.state.statuses.filter((s) => s.sha === sha && s.context === 'sts-volume-gitops/validate (demo)').map((s) => ({ state: s.state, description: s.description }));

  before(async () => {
    ({ dir, kube, github } = await startOneSetWorld('sts-forks-'));
    env.FORK_TOKEN = github.token;
    await github.forkRepository('mallory');
    forkHead = await github.commitFiles({ fork: 'mallory', branch: 'shrink', message: 'Shrink pg', files: { 'k8s/pg.yaml': pgManifest('5Gi') } });
    forkPr = await github.openPullRequest({ head: 'mallory:shrink', title: 'Shrink pg', author: 'mallory' });
  });
  after(async () => {
    await kube.close();
    await github.close();
  });

  it('gives a fork\'s pull request an error status (never a pass) saying it is not validated and how to have it validated, with no dry run and no comment', async () => {
    kube.requestLog.reset();
    const run = await pass(undefined);
    assert.deepEqual(statuses(forkHead), [{ state: 'error', description: forkNotValidated }]);
    assert.match(forkNotValidated, /not validated.*push the branch to this repository.*forks: validate/);
    assert.ok(forkNotValidated.length <= 140, 'GitHub refuses a status description over 140 characters');
    assert.deepEqual(github.state.comments.filter((c) => c.issue === forkPr), []);
    assert.equal(kube.requestLog.countsByVerbAndResource()['patch persistentvolumeclaims (dryRun)'], undefined, 'not planned against the cluster');
    assert.equal(run.feedback?.checks[0]?.number, forkPr);
  });

  it('checks it from Git alone when the target opts in: a size change gets the fixed verdict that does not pass, no capacity, quota or server message', async () => {
    const run = await pass('validate');
    const [latest] = statuses(forkHead).slice(-1);
    assert.equal(latest?.state, 'error');
    assert.doesNotMatch(latest?.description ?? '', /10Gi|5Gi|capacity|data-pg/);
    assert.equal(latest?.description, forkChangeTitle);
    assert.ok(forkChangeTitle.length <= 140, 'GitHub refuses a status description over 140 characters');
    assert.deepEqual(github.state.comments.filter((c) => c.issue === forkPr), [], 'no plan comment with cluster detail');
    assert.equal(run.feedback?.checks[0]?.markdown, '');
  });
});
