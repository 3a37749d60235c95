// A collaborator turns the required check green (issue 34 item 4): a commit status under the tool's check name, or a
// workflow job named like it, meets a required check the branch does not require from the tool's App. The tool tells
// its own from the rest by their author (a status's creator, a check run's App), says so in its plan comment and log,
// and sets its own status again when someone else's is the latest. Both sandboxes, the real Octokit, runTargets.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient } from '../../functions/adapters/github/octokit.ts';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { validateContext } from '../../functions/feedback/check-names.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { noWaiting } from '../support/passes.ts';
import { pgManifest, startOneSetWorld } from './one-set-world.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

const context = validateContext('demo');
const repo = { owner: 'acme', repo: 'platform-gitops' };

describe('verdicts under the tool\'s check name that it did not write', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let tokenConfig: Config;
  let appConfig: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  let head = '';
  let number = 0;

  async function validate(config: Config): Promise<{ run: TargetRun; lines: string[] }> {
    const lines: string[] = [];
    const [run] = await runTargets(config, { mode: 'validate', holderIdentity: 'test', env, timing: noWaiting, onEvent: (_t, line) => lines.push(line) });
    assert.ok(run);
    assert.equal(run.error, undefined, run.error);
    return { run, lines };
  }
  const comment = (): string => github.state.comments.filter((c) => c.issue === number).map((c) => c.body).join('\n');
  const latestStatus = (): { state: string; creator: string } | undefined => github.state.statuses.filter((s) => s.sha === head && s.context === context)
    .sort((a, b) => b.id - a.id).map((s) => ({ state: s.state, creator: s.creator }))[0];

  before(async () => {
    ({ dir, kube, github } = await startOneSetWorld('sts-foreign-verdicts-'));
    const base = sandboxConfig(kube.kubeconfigPath, github.url, 'FOREIGN_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]');
    env.FOREIGN_TOKEN = github.token;
    env.FOREIGN_APP_KEY = github.app.privateKeyPem;
    tokenConfig = parseConfig(base, 'token.yaml', dir);
    appConfig = parseConfig(withSandboxApp(base, github, 'FOREIGN_APP_KEY'), 'app.yaml', dir);
    head = await github.commitFiles({ branch: 'shrink', message: 'Shrink pg', files: { 'k8s/pg.yaml': pgManifest('5Gi') } });
    number = await github.openPullRequest({ head: 'shrink', title: 'Shrink pg' });
  });
  after(async () => {
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('reports nothing while every verdict of the name is its own', async () => {
    const { run } = await validate(tokenConfig);
    assert.deepEqual(run.feedback?.checks.map((c) => c.foreign), [[]]);
    assert.equal(latestStatus()?.state, 'failure');
    assert.doesNotMatch(comment(), /Not this tool's verdict/);
    // Its own again: nothing to write.
    assert.deepEqual((await validate(tokenConfig)).run.feedback?.writes, []);
  });

  it('notices a collaborator\'s status under its name, says who in the comment and the log, and sets its own again', async () => {
    const collaborator = createGitHubClient({ baseUrl: github.url, auth: { kind: 'token', token: github.addPerson('carol', 'write') } });
    await collaborator.rest.repos.createCommitStatus({ ...repo, sha: head, state: 'success', context, description: 'looks fine to me' });
    assert.deepEqual(latestStatus(), { state: 'success', creator: 'carol' }, 'the required check is green now');
    const { run, lines } = await validate(tokenConfig);
    assert.deepEqual(run.feedback?.checks[0]?.foreign, [{ kind: 'status', by: 'carol', state: 'success', description: 'looks fine to me' }]);
    assert.match(comment(), /\*\*⚠️ Not this tool's verdict\.\*\* This head also carries `sts-volume-gitops\/validate \(demo\)` from someone else:\n\n- a commit status set by carol: success, "looks fine to me"\n\n.*require it with the App as its source/s);
    assert.ok(lines.some((l) => /^github: pull request #\d+ head [0-9a-f]{7}: a commit status set by carol under sts-volume-gitops\/validate \(demo\) \(success, "looks fine to me"\), not this tool's; /.test(l)), lines.join('\n'));
    assert.deepEqual(latestStatus(), { state: 'failure', creator: github.tokenLogin }, 'its own verdict is the latest again');
  });

  it('as a GitHub App, notices a workflow job named like its check and a status, and not its own check runs', async () => {
    github.addWorkflowCheckRun({ sha: head, name: context, conclusion: 'success' });
    const { run, lines } = await validate(appConfig);
    const foreign = run.feedback?.checks[0]?.foreign ?? [];
    assert.deepEqual(foreign.map((f) => [f.kind, f.by, f.state]), [
      ['status', github.tokenLogin, 'failure'], ['status', 'carol', 'success'], ['check run', 'GitHub Actions', 'success'],
    ], 'newest first; the token\'s statuses are not the App\'s either');
    assert.ok(github.state.checkRuns.some((r) => r.headSha === head && r.name === context && r.app === undefined), 'the App wrote its own check run');
    assert.match(comment(), /- a check run of the App GitHub Actions: success/);
    assert.ok(lines.some((l) => l.includes('a check run of the App GitHub Actions under sts-volume-gitops/validate (demo) (success), not this tool\'s')));
    // Its own check run, written in this pass, is not reported by the next.
    const again = await validate(appConfig);
    assert.equal(again.run.feedback?.checks[0]?.foreign.filter((f) => f.kind === 'check run').length, 1);
  });
});
