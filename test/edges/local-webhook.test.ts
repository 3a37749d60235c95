// `sts-volume-gitops webhook` against the GitHub sandbox delivering signed webhooks as its pull requests and branches
// change: a pull request gets its check with no cluster write, a wrongly signed delivery gets 401, a push to the
// target branch runs a pass.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { loadConfig } from '../../functions/domain/config.ts';
import { runTargets } from '../../functions/app/run-targets.ts';
import { startLocalWebhookServer, type LocalWebhookServer } from '../../functions/app/local-webhook-server.ts';
import type { TargetMessage } from '../../functions/app/target-messages.ts';
import { main } from '../../functions/cli/main.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const secret = 'local-webhook-secret-value';

describe('the local webhook server with the GitHub sandbox delivering', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let server: LocalWebhookServer;
  const ran: Array<TargetMessage & { error: string | undefined }> = [];
  const token = 'LOCAL_WEBHOOK_GITHUB_TOKEN';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-local-webhook-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, sandboxConfig(kube.kubeconfigPath, github.url, token));
    const config = await loadConfig(configFile);
    server = await startLocalWebhookServer({
      port: 0, config, secret, log: () => undefined,
      run: async (message) => {
        const [run] = await runTargets(config, {
          mode: message.action === 'validate' ? 'validate' : 'apply', targetName: message.target,
          holderIdentity: `test-${hostname()}`, env: { [token]: github.token, ...sandboxRecordKeyEnv() },
        });
        ran.push({ ...message, error: run?.error });
      },
    });
    github.webhooks.subscribe({ url: server.url, secret });
  });
  after(async () => {
    await server.close();
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('validates a pull request when it is opened and when it is pushed to, without a cluster write', async () => {
    const pg = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml');
    assert.ok(pg);
    const writesBefore = kube.requestLog.writes().length;
    await github.commitFiles({ branch: 'grow', message: 'grow', files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', 'storage: 40Gi') } });
    await github.openPullRequest({ head: 'grow', title: 'grow' });
    await server.idle();
    const second = await github.commitFiles({ branch: 'grow', message: 'more', files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', 'storage: 60Gi') } });
    await server.idle();
    assert.deepEqual(github.webhooks.deliveries.map((d) => `${d.event}:${String(d.payload.action ?? d.payload.ref)}:${d.status}`), [
      'push:refs/heads/grow:202', 'pull_request:opened:202', 'push:refs/heads/grow:202', 'pull_request:synchronize:202',
    ]);
    assert.deepEqual(ran.map((r) => `${r.action}:${r.target}:${r.error ?? 'ok'}`), ['validate:demo:ok', 'validate:demo:ok']);
    assert.deepEqual(kube.requestLog.writes().slice(writesBefore), []);
    const status = github.state.statuses.filter((s) => s.sha === second && s.context === 'sts-volume-gitops/validate (demo)');
    assert.equal(status.length, 1, 'the new head is checked');
  });

  it('answers 401 to a delivery signed with another secret, and runs nothing', async () => {
    github.webhooks.subscriptions[0] = { url: server.url, secret: 'not-the-secret' };
    try {
      await github.openPullRequest({ head: 'grow', title: 'again' });
    } finally {
      github.webhooks.subscriptions[0] = { url: server.url, secret };
    }
    await server.idle();
    assert.equal(github.webhooks.deliveries.at(-1)?.status, 401);
    assert.equal(ran.length, 2);
  });

  it('runs a pass for a push to the target branch', async () => {
    const writesBefore = kube.requestLog.writes().length;
    kube.startTimer(20);
    try {
      const [pr] = github.state.pulls.filter((p) => p.head === 'grow');
      assert.ok(pr);
      await github.mergePullRequest(pr.number);
      await server.idle();
    } finally {
      kube.stopTimer();
    }
    // The merge is a push to main and the pull request closed (merged), as GitHub sends them; only the push runs a pass.
    assert.deepEqual(github.webhooks.deliveries.slice(-2).map((d) => `${d.event}:${String(d.payload.action ?? d.payload.ref)}:${d.status}`),
      ['push:refs/heads/main:202', 'pull_request:closed:202']);
    assert.deepEqual(ran.slice(2).map((r) => `${r.action}:${r.target}`), ['pass:demo']);
    assert.ok(kube.requestLog.writes().length > writesBefore, 'the pass applies');
  });

  it('refuses to start without a port or a secret, with usage', async () => {
    assert.equal(await main(['webhook']), 2);
    delete process.env.GITHUB_WEBHOOK_SECRET;
    assert.equal(await main(['webhook', '--port', '0']), 2);
  });
});
