// README's loop, run as a newcomer runs it, every step a real command: `sandbox --webhook URL` and `webhook` side by
// side, `git clone` of the printed remote, a shrink pushed to a branch, `sandbox pr open` (the check appears, blocked,
// through a signed delivery), `sandbox pr rerun` (a new run of the check), a fix pushed (the check passes), `sandbox pr
// merge` (the push delivery runs a pass), then `reconcile` until the set converges; then the example's size the driver
// refuses for good, the recovery pull request `reconcile` names, `sandbox pr merge` of it, and `reconcile` until that
// set converges too. README's block holds these very commands, in this order.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { runCli, startWebhookCommand, type WebhookCommand } from '../support/cli-children.ts';
import { startSandboxCommand, type SandboxCommand } from '../sandbox/kube/fixtures.ts';
import { freePort } from '../support/free-port.ts';

const run = promisify(execFile);
const secret = 'sandbox-loop-webhook-secret';
const check = 'sts-volume-gitops/validate (demo)';

/** The commands of README's loop, as README spells them (placeholders in <>, N and M the pull requests' numbers). */
const walk = [
  'npx sts-volume-gitops sandbox --webhook http://127.0.0.1:8080/',
  'export GITHUB_WEBHOOK_SECRET=<printed>',
  'npx sts-volume-gitops webhook --port 8080 --config <config>',
  'export STS_SANDBOX_GITHUB_URL=<printed> STS_SANDBOX_GITHUB_TOKEN=<printed>',
  'git clone <gitRemote> platform-gitops && cd platform-gitops && git switch -c resize-pg',
  `sed -i 's/storage: 20Gi/storage: 5Gi/' k8s/db/pg.yaml && git commit -am "Resize pg data" && git push -u origin resize-pg`,
  'npx sts-volume-gitops sandbox pr open --head resize-pg --title "Resize pg data"',
  'npx sts-volume-gitops sandbox pr rerun N',
  `sed -i 's/storage: 5Gi/storage: 30Gi/' k8s/db/pg.yaml && git commit -am "Grow pg data instead" && git push`,
  'npx sts-volume-gitops sandbox pr merge N',
  'npx sts-volume-gitops reconcile --config <config>',
  'npx sts-volume-gitops reconcile --config <config>',
  'npx sts-volume-gitops sandbox pr merge M',
  'npx sts-volume-gitops reconcile --config <config>',
];

/** The command lines of README's loop block, without their comments. */
async function readmeWalk(): Promise<string[]> {
  const readme = await readFile(new URL('../../README.md', import.meta.url), 'utf8');
  const section = readme.slice(readme.indexOf('### The loop on the sandboxes'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return block.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('#')).map((line) => line.replace(/\s+# .*$/, ''));
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

  it('is README\'s loop, command for command', async () => {
    assert.deepEqual(await readmeWalk(), walk);
  });

  it('prints the remote, the webhook and its secret', () => {
    assert.match(sandbox.info.gitRemote ?? '', /^http:\/\/x-access-token:ghp_[0-9a-f]+@127\.0\.0\.1:\d+\/acme\/platform-gitops\.git$/);
    assert.equal(sandbox.info.webhookSecret, secret, 'the secret in $GITHUB_WEBHOOK_SECRET signs the deliveries');
    assert.match(webhook.listening, /^listening on http:\/\/127\.0\.0\.1:\d+\//);
  });

  it('a shrink pushed and opened gets a blocked check through the webhook; Re-run checks it again; a fix passes; merged, it converges', async () => {
    const pg = join(clone, 'k8s/db/pg.yaml');
    await git('switch', '-c', 'resize-pg');
    await writeFile(pg, (await readFile(pg, 'utf8')).replace('storage: 20Gi', 'storage: 5Gi'));
    await git('commit', '-am', 'Resize pg data');
    await git('push', '-u', 'origin', 'resize-pg');
    const opened = await runCli(['sandbox', 'pr', 'open', '--head', 'resize-pg', '--title', 'Resize pg data', '--json'], env);
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

  it('a size the driver refuses for good: reconcile names the recovery pull request, checked like any; merged, the set converges', async () => {
    const config = sandbox.info.config ?? '';
    // examples/ asks clickhouse for 100Gi on class capped, whose driver refuses more than 50Gi.
    const named = await eventually('the recovery pull request, named by reconcile', async () => {
      const pass = await runCli(['reconcile', '--config', config]);
      const line = /recovery pull request #(\d+) proposes 100Gi -> 50Gi/.exec(pass.stdout);
      return line && /x analytics\/clickhouse \([^)]*\): failed/.test(pass.stdout) ? Number(line[1]) : undefined;
    }, 120_000);
    const pull = (await octokit.rest.pulls.get({ owner: 'acme', repo: 'platform-gitops', pull_number: named })).data;
    assert.equal(pull.state, 'open');
    // Opened by the App through the API: delivered to the webhook as any pull request, and checked.
    const checked = await eventually('the recovery pull request\'s check', async () => (await runsOn(pull.head.sha)).find((r) => r.conclusion !== null));
    assert.equal(checked.conclusion, 'success');

    const merged = await runCli(['sandbox', 'pr', 'merge', String(named)], env);
    assert.equal(merged.code, 0, merged.stderr);
    assert.match(merged.stdout, new RegExp(`merged pull request #${named}: [0-9a-f]{7}`));
    const converged = await eventually('analytics/clickhouse converged', async () => {
      const pass = await runCli(['reconcile', '--config', config]);
      return /= analytics\/clickhouse \([^)]*\): converged\n {6}data: 50Gi\b/.test(pass.stdout) ? pass.stdout : undefined;
    }, 120_000);
    assert.doesNotMatch(converged, /recovery pull request #\d+ proposes/);
  });
});
