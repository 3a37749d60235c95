// README's loop, run as a newcomer runs it, every step a real command: `sandbox --webhook URL` and `webhook` side by
// side, `git clone` of the printed remote, a shrink pushed to a branch, `sandbox pr open` (the check appears, blocked,
// through a signed delivery), `sandbox pr rerun` (a new run of the check), a fix pushed (the check passes), `sandbox pr
// merge` (the push delivery runs a pass), then `reconcile` until the set converges.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { runCli, startWebhookCommand, type WebhookCommand } from '../support/cli-children.ts';
import { startSandboxCommand, type SandboxCommand } from '../sandbox/kube/fixtures.ts';

const run = promisify(execFile);
const secret = 'sandbox-loop-webhook-secret';
const check = 'sts-volume-gitops/validate (demo)';

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Polls `read` until it gives something, for at most `ms`. */
async function eventually<T>(what: string, read: () => Promise<T | undefined>, ms = 90_000): Promise<T> {
  const until = Date.now() + ms;
  for (;;) {
    const value = await read();
    if (value !== undefined) return value;
    if (Date.now() > until) assert.fail(`${what}: not within ${ms} ms`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

describe('the loop on the sandboxes, from edit to converged', () => {
  let dir: string;
  let sandbox: SandboxCommand;
  let webhook: WebhookCommand;
  let octokit: GitHubClient;
  let clone: string;
  let env: Record<string, string>;
  const gitEnv = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'Dana', GIT_AUTHOR_EMAIL: 'dana@example.com', GIT_COMMITTER_NAME: 'Dana', GIT_COMMITTER_EMAIL: 'dana@example.com' };
  const git = async (...args: string[]): Promise<string> => (await run('git', ['-C', clone, ...args], { env: gitEnv })).stdout.trim();
  const runsOn = async (sha: string): Promise<Array<{ id: number; conclusion: string | null }>> =>
    (await octokit.rest.checks.listForRef({ owner: 'acme', repo: 'platform-gitops', ref: sha, check_name: check, filter: 'all' })).data.check_runs;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-sandbox-loop-'));
    const port = await freePort();
    sandbox = await startSandboxCommand(['--webhook', `http://127.0.0.1:${port}/`, '--tick-ms', '50'], { GITHUB_WEBHOOK_SECRET: secret });
    const config = sandbox.info.config ?? '';
    webhook = await startWebhookCommand(['--port', String(port), '--config', config], { GITHUB_WEBHOOK_SECRET: secret });
    env = { STS_SANDBOX_GITHUB_URL: sandbox.info.githubUrl ?? '', STS_SANDBOX_GITHUB_TOKEN: sandbox.info.githubToken ?? '' };
    octokit = createGitHubClient({ baseUrl: env.STS_SANDBOX_GITHUB_URL, auth: { kind: 'token', token: env.STS_SANDBOX_GITHUB_TOKEN ?? '' } });
    clone = join(dir, 'platform-gitops');
    await run('git', ['clone', sandbox.info.gitRemote ?? '', clone], { env: gitEnv });
  });
  after(async () => {
    await webhook.stop();
    await sandbox.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('prints the remote, the webhook and its secret', () => {
    assert.match(sandbox.info.gitRemote ?? '', /^http:\/\/x-access-token:ghp_[0-9a-f]+@127\.0\.0\.1:\d+\/acme\/platform-gitops\.git$/);
    assert.equal(sandbox.info.webhookSecret, secret, 'the secret in $GITHUB_WEBHOOK_SECRET signs the deliveries');
    assert.match(webhook.listening, /^listening on http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('a shrink pushed and opened gets a blocked check through the webhook; Re-run checks it again; a fix passes; merged, it converges', async () => {
    const pg = join(clone, 'k8s/db/pg.yaml');
    await git('switch', '-c', 'shrink-pg');
    await writeFile(pg, (await readFile(pg, 'utf8')).replace('storage: 20Gi', 'storage: 5Gi'));
    await git('commit', '-am', 'Shrink pg data');
    await git('push', '-u', 'origin', 'shrink-pg');
    const opened = await runCli(['sandbox', 'pr', 'open', '--head', 'shrink-pg', '--title', 'Shrink pg data', '--json'], env);
    assert.equal(opened.code, 0, opened.stderr);
    const { number, headSha } = JSON.parse(opened.stdout) as { number: number; headSha: string };
    const blocked = await eventually('the check of the shrink', async () => (await runsOn(headSha)).find((r) => r.conclusion !== null));
    assert.equal(blocked.conclusion, 'failure');
    const logged = new RegExp(`error validate demo: pull request #${number} failure: db/pg data: 5Gi is not above the current capacity of data-pg-0`);
    await eventually('the webhook\'s verdict line', async () => (logged.test(webhook.stderr()) ? true : undefined));

    const rerun = await runCli(['sandbox', 'pr', 'rerun', String(number)], env);
    assert.equal(rerun.code, 0, rerun.stderr);
    assert.match(rerun.stdout, new RegExp(`asked for ${check.replace(/[()]/g, '\\$&')} on ${headSha.slice(0, 7)} again`));
    await eventually('a new run of the check, answering the Re-run', async () => ((await runsOn(headSha)).length === 2 ? true : undefined));
    assert.match(webhook.stderr(), /"event":"check_run"/);

    await writeFile(pg, (await readFile(pg, 'utf8')).replace('storage: 5Gi', 'storage: 30Gi'));
    await git('commit', '-am', 'Grow pg data instead');
    await git('push');
    const fixed = await git('rev-parse', 'HEAD');
    const passing = await eventually('the check of the fix', async () => (await runsOn(fixed)).find((r) => r.conclusion !== null));
    assert.equal(passing.conclusion, 'success');

    const merged = await runCli(['sandbox', 'pr', 'merge', String(number)], env);
    assert.equal(merged.code, 0, merged.stderr);
    await eventually('the pass the merge\'s push delivery runs', async () => (/info pass demo: ok|error pass demo:/.test(webhook.stderr()) ? true : undefined));
    assert.doesNotMatch(webhook.stderr(), /: \?/);

    const converged = await eventually('db/pg converged', async () => {
      const pass = await runCli(['reconcile', '--config', sandbox.info.config ?? '']);
      return /= db\/pg \(OrderedReady, 3 replicas\): converged\n {6}data: 30Gi, class gold/.test(pass.stdout) ? pass.stdout : undefined;
    }, 120_000);
    assert.match(converged, /= db\/pg/);
  });
});
