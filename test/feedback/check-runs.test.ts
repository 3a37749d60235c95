// Check runs in GitHub, end to end with App auth: a blocked size is a failure annotation on its storage line, a planned
// resize a notice from -> to, the plan table the summary; an unchanged verdict is not written again; an App without
// `checks: write` gets commit statuses and says so. Both sandboxes, the real Octokit and client-node, runTargets.
import assert from 'node:assert/strict';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { runTargets, type TargetRun } from '../../functions/app/run-targets.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { validateContext } from '../../functions/feedback/check-names.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { noWaiting, passUntil, statusesOf } from '../support/passes.ts';
import { pgManifest, startOneSetWorld } from './one-set-world.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

const storageLine = pgManifest('10Gi').split('\n').findIndex((line) => line.includes('storage:')) + 1;
const context = validateContext('demo');

describe('check runs on pull requests (GitHub App)', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let app: GitHubClient;
  let config: Config;
  const env: Record<string, string> = sandboxRecordKeyEnv();
  const repo = { owner: 'acme', repo: 'platform-gitops' };

  async function validate(): Promise<TargetRun> {
    const [run] = await runTargets(config, { mode: 'validate', holderIdentity: 'test', env, timing: noWaiting });
    assert.ok(run);
    assert.equal(run.error, undefined, run.error);
    return run;
  }

  async function checkOn(sha: string): Promise<{ conclusion: string | null; title: string | null; summary: string | null; annotations: Array<[string, number, string, string, string]> }> {
    const runs = await app.rest.checks.listForRef({ ...repo, ref: sha, check_name: context });
    const [latest] = runs.data.check_runs;
    assert.ok(latest, `no check run ${context} on ${sha}`);
    const annotations = await app.rest.checks.listAnnotations({ ...repo, check_run_id: latest.id });
    return {
      conclusion: latest.conclusion, title: latest.output.title, summary: latest.output.summary,
      annotations: annotations.data.map((a) => [a.path, a.start_line, a.annotation_level ?? '', a.title ?? '', a.message ?? '']),
    };
  }

  before(async () => {
    ({ dir, kube, github } = await startOneSetWorld('sts-check-runs-'));
    const text = withSandboxApp(sandboxConfig(kube.kubeconfigPath, github.url, 'UNUSED').replace('allow: [db, cache, analytics]', 'allow: [db]'), github, 'CHECKS_APP_KEY');
    env.CHECKS_APP_KEY = github.app.privateKeyPem;
    config = parseConfig(text, 'checks.yaml', dir);
    app = createGitHubClient({ baseUrl: github.url, auth: { kind: 'app', appId: github.app.appId, installationId: github.app.installationId, privateKey: github.app.privateKeyPem }, spaceWrites: false });
  });
  after(async () => {
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('puts a blocked size on its line as a failure annotation with the reason, and the plan table in the summary', async () => {
    const head = await github.commitFiles({ branch: 'shrink', message: 'Shrink pg', files: { 'k8s/pg.yaml': pgManifest('5Gi') } });
    await github.openPullRequest({ head: 'shrink', title: 'Shrink pg' });
    const run = await validate();
    const check = await checkOn(head);
    assert.equal(check.conclusion, 'failure');
    assert.match(check.title ?? '', /^db\/pg data: 5Gi is not above the current capacity of data-pg-0 \(10Gi\)/);
    assert.match(check.summary ?? '', /\| db\/pg \| data \| 1 \| 10Gi → 5Gi \| standard \(expandable\) \| — \| ❌ blocked \|/);
    assert.deepEqual(check.annotations, [['k8s/pg.yaml', storageLine, 'failure', 'db/pg data: blocked', '5Gi is not above the current capacity of data-pg-0 (10Gi); a request can only be lowered to a value strictly above status.capacity (KEP-1790)']]);
    assert.deepEqual(statusesOf(github, head, context), [], 'a check run, not a status');
    assert.ok(run.feedback?.writes.some((w) => w.startsWith(`check ${context} on ${head.slice(0, 7)}: failure`)), run.feedback?.writes.join('\n'));
  });

  it('writes nothing when the verdict on the head has not changed', async () => {
    github.requestLog.reset();
    await validate();
    assert.deepEqual(github.requestLog.writes().map((w) => w.operation), []);
  });

  it('turns green on the pushed fix with a notice from -> to on the line', async () => {
    const head = await github.commitFiles({ branch: 'shrink', message: 'Grow instead', files: { 'k8s/pg.yaml': pgManifest('20Gi') } });
    await validate();
    const check = await checkOn(head);
    assert.equal(check.conclusion, 'success');
    assert.deepEqual(check.annotations, [['k8s/pg.yaml', storageLine, 'notice', 'db/pg data: will resize', '10Gi → 20Gi on 1 PVC (StorageClass standard)']]);
  });

  it('fails a pull request that moves every manifest out of the target\'s paths: once merged, no pass would read any', async () => {
    const head = await github.commitFiles({ branch: 'move', message: 'Move manifests', files: { 'k8s/pg.yaml': null, 'deploy/pg.yaml': pgManifest('10Gi') } });
    await github.openPullRequest({ head: 'move', title: 'Move manifests' });
    await validate();
    const check = await checkOn(head);
    assert.equal(check.conclusion, 'failure');
    assert.match(check.title ?? '', /^paths \["k8s\/\*\*\/\*\.yaml"\] match no YAML file at [0-9a-f]{12}: no manifest was read; /);
    assert.match(check.summary ?? '', /the YAML files are in deploy\//, 'says where the YAML files are');
  });

  it('falls back to a commit status when the App lacks checks: write, and says so', async () => {
    github.state.installationPermissions.checks = 'read';
    try {
      const head = await github.commitFiles({ branch: 'grow-more', message: 'Grow pg more', files: { 'k8s/pg.yaml': pgManifest('30Gi') } });
      await github.openPullRequest({ head: 'grow-more', title: 'Grow pg more' });
      const run = await validate();
      assert.deepEqual(statusesOf(github, head, context), [{ state: 'success', description: 'db/pg: 1 PVC grows 10Gi → 30Gi' }]);
      assert.equal(github.state.checkRuns.filter((r) => r.headSha === head).length, 0);
      assert.ok(run.feedback?.writes.some((w) => /check runs refused \(403: Resource not accessible by integration.*checks: write: commit statuses instead/.test(w)), run.feedback?.writes.join('\n'));
    } finally {
      github.state.installationPermissions.checks = 'write';
    }
  });

  it('reports progress after merge as a check run on the commit that introduced the size, with the PVC table', async () => {
    const pr = github.state.pulls.find((p) => p.head === 'shrink');
    assert.ok(pr);
    const introducing = pr.headSha;
    await github.mergePullRequest(pr.number);
    const apply = async (): Promise<TargetRun> => {
      const [run] = await runTargets(config, { mode: 'apply', holderIdentity: 'test', env, timing: noWaiting });
      assert.ok(run);
      assert.equal(run.error, undefined, run.error);
      return run;
    };
    await passUntil(apply, kube, (run) => run.feedback?.progress.some((p) => p.state === 'success') ?? false);
    const runs = github.state.checkRuns.filter((r) => r.name === 'sts-volume-gitops/demo/db/pg');
    assert.ok(runs.length > 0 && runs.every((r) => r.headSha === introducing), JSON.stringify(runs.map((r) => r.headSha)));
    assert.equal(runs.length, 1, 'one run, updated in place from in progress to success');
    assert.equal(runs[0]?.conclusion, 'success');
    assert.equal(runs[0]?.output.title, '1/1 replicas at 20Gi');
    assert.match(runs[0]?.output.summary ?? '', /\| data-pg-0 \| 20Gi \| 20Gi \| ✅ done \|/);
    assert.deepEqual(statusesOf(github, introducing, 'sts-volume-gitops/demo/db/pg'), []);
  });
});

describe('check run of a pull request, token auth', () => {
  it('stays a commit status (check runs need a GitHub App)', async () => {
    const { dir, kube, github } = await startOneSetWorld('sts-check-token-');
    try {
      const config = parseConfig(sandboxConfig(kube.kubeconfigPath, github.url, 'CHECK_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]'), 'c.yaml', dir);
      const head = await github.commitFiles({ branch: 'grow', message: 'Grow pg', files: { 'k8s/pg.yaml': pgManifest('20Gi') } });
      await github.openPullRequest({ head: 'grow', title: 'Grow pg' });
      await runTargets(config, { mode: 'validate', holderIdentity: 'test', env: { CHECK_TOKEN: github.token }, timing: noWaiting });
      assert.equal(statusesOf(github, head, context)[0]?.state, 'success');
      assert.equal(github.state.checkRuns.length, 0);
      // Check runs are read (a workflow job named like the check is reported: foreign-verdicts.test.ts), never written.
      assert.ok(!github.requestLog.entries.some((e) => e.operation === 'checks.create' || e.operation === 'checks.update'), 'no check run written with a token');
    } finally {
      await kube.close();
      await github.close();
      await rm(join(dir), { recursive: true, force: true });
    }
  });
});
