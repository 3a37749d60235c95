// Our feedback comment is the one with our marker that WE wrote: a person's comment carrying the marker (pasted,
// quoted, or mischievous) is never taken for ours and never edited; we write our own beside it, and feedback for the
// other pull requests goes on. Both ways of authenticating: a token (its user) and a GitHub App (its bot user).
import assert from 'node:assert/strict';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient } from '../../functions/adapters/github/octokit.ts';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import { parseConfig, type Config } from '../../functions/domain/config.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { statefulSetManifest } from '../support/statefulset-manifest.ts';
import { applyPass, writeFiles } from '../support/passes.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

function manifest(name: string, storage: string): string {
  return statefulSetManifest({ name, storage, replicas: 1 });
}

const planMarker = '<!-- sts-volume-gitops:plan:demo -->';

for (const auth of ['token', 'app'] as const) {
  describe(`feedback comments are ours only if we wrote them (${auth})`, () => {
    let kube: KubeSandbox;
    let github: GitHubSandbox;
    let config: Config;
    const env: Record<string, string> = sandboxRecordKeyEnv();
    let ourLogin = '';

    const pass = (): Promise<TargetRun> => applyPass(config, env);

    function commentsOn(pr: number): Array<{ user: string; body: string }> {
      return github.state.comments.filter((c) => c.issue === pr).map((c) => ({ user: c.user, body: c.body }));
    }

    before(async () => {
      const dir = await mkdtemp(join(tmpdir(), 'sts-marker-'));
      const files: Record<string, string> = { 'k8s/pg.yaml': manifest('pg', '10Gi'), 'k8s/logs.yaml': manifest('logs', '10Gi') };
      await writeFiles(join(dir, 'repo'), files);
      const { load } = await import('js-yaml');
      kube = await startKubeSandbox({
        seed: { namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: Object.values(files).map((text) => load(text)) },
        workDir: join(dir, 'kube'),
      });
      github = await startGitHubSandbox({ seedDir: join(dir, 'repo'), workDir: join(dir, 'github') });
      let text = sandboxConfig(kube.kubeconfigPath, github.url, 'MARKER_TOKEN').replace('allow: [db, cache, analytics]', 'allow: [db]');
      if (auth === 'app') {
        text = withSandboxApp(text, github, 'MARKER_APP_KEY');
        env.MARKER_APP_KEY = github.app.privateKeyPem;
        ourLogin = github.app.botLogin;
      } else {
        env.MARKER_TOKEN = github.token;
        ourLogin = github.tokenLogin;
      }
      config = parseConfig(text, 'marker.yaml', dir);
    });
    after(async () => {
      await kube.close();
      await github.close();
    });

    it('writes its own plan comment beside a person\'s comment that carries its marker, leaving theirs as it was', async () => {
      await github.commitFiles({ branch: 'grow-pg', message: 'Grow pg', files: { 'k8s/pg.yaml': manifest('pg', '20Gi') } });
      const marked = await github.openPullRequest({ head: 'grow-pg', title: 'Grow pg' });
      await github.commitFiles({ branch: 'grow-logs', message: 'Grow logs', files: { 'k8s/logs.yaml': manifest('logs', '30Gi') } });
      const other = await github.openPullRequest({ head: 'grow-logs', title: 'Grow logs' });
      const persons = `${planMarker}\nQuoting the bot: please ignore this, I pasted its marker.`;
      if (auth === 'token') {
        github.addComment({ pullNumber: marked, author: 'dana', body: persons });
      } else {
        // Written through the API with a person's own token.
        const dana = createGitHubClient({ baseUrl: github.url, auth: { kind: 'token', token: github.addPerson('dana') } });
        await dana.rest.issues.createComment({ owner: github.owner, repo: github.repo, issue_number: marked, body: persons });
      }

      const run = await pass();
      const onMarked = commentsOn(marked);
      assert.deepEqual(onMarked[0], { user: 'dana', body: persons }, 'the person\'s comment is untouched');
      assert.equal(onMarked.length, 2);
      assert.equal(onMarked[1]?.user, ourLogin);
      assert.ok(onMarked[1]?.body.startsWith(planMarker));
      assert.match(onMarked[1]?.body ?? '', /\| db\/pg \| data \| 1 \| 10Gi → 20Gi \|/);
      // Feedback for the other pull request went on as usual.
      const onOther = commentsOn(other);
      assert.deepEqual(onOther.map((c) => c.user), [ourLogin]);
      assert.match(onOther[0]?.body ?? '', /\| db\/logs \| data \| 1 \| 10Gi → 30Gi \|/);
      assert.deepEqual(run.feedback?.checks.map((c) => c.state), ['success', 'success']);
    });

    it('finds its own comment again on the next passes: edits only it, and writes nothing when nothing changed', async () => {
      github.requestLog.reset();
      await pass();
      assert.deepEqual(github.requestLog.writes(), []);
      const marked = github.state.pulls.find((p) => p.head === 'grow-pg')?.number ?? 0;
      await github.commitFiles({ branch: 'grow-pg', message: 'More', files: { 'k8s/pg.yaml': manifest('pg', '40Gi') } });
      await pass();
      const onMarked = commentsOn(marked);
      assert.equal(onMarked.length, 2, 'edited, not duplicated');
      assert.equal(onMarked[0]?.user, 'dana');
      assert.ok(onMarked[0]?.body.includes('I pasted its marker'));
      assert.match(onMarked[1]?.body ?? '', /10Gi → 40Gi/);
    });
  });
}
