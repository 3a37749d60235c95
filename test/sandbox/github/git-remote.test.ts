// The GitHub sandbox's repository is a git remote, driven by the real git client over smart HTTP with the API's
// token as the password, and a push is seen as on GitHub: the branch moves, the API reads it, and the webhook hears
// `push` (and `synchronize` for the pull request it is the head of); pull requests opened, closed, reopened and merged
// through the REST API, and a check run asked for again, are delivered too, each with the fields GitHub's own
// deliveries have (@octokit/webhooks-examples) and read by this tool's webhook as the event it is.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { verify } from '@octokit/webhooks-methods';
import { createGitHubClient, type GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { payloadReaders, isReadEvent } from '../../../functions/app/webhook-payloads.ts';
import { gitRemoteOf } from '../../../functions/cli/sandbox-serve.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';

const run = promisify(execFile);
const require = createRequire(import.meta.url);
const examplesRoot = dirname(require.resolve('@octokit/webhooks-examples/package.json'));
const recorded = require(join(examplesRoot, 'api.github.com', 'index.json')) as Array<{ name: string; examples: Array<Record<string, unknown>> }>;
const seedDir = fileURLToPath(new URL('../../../examples/gitops-repo', import.meta.url));
const secret = 'git-remote-webhook-secret';
type Json = Record<string, unknown>;

interface Received { event: string; payload: Json; signed: boolean }

/** Keys of `example` at `path` missing from `ours` at the same place. */
function missingKeys(example: unknown, ours: unknown, path: string): string[] {
  if (typeof example !== 'object' || example === null || Array.isArray(example)) return [];
  if (typeof ours !== 'object' || ours === null) return [`${path} (not an object)`];
  return Object.keys(example).filter((key) => !(key in ours)).map((key) => `${path}.${key}`);
}

describe('the GitHub sandbox as a git remote, with its webhook deliveries', () => {
  let github: GitHubSandbox;
  let hook: Server;
  let dir: string;
  let clone: string;
  let octokit: GitHubClient;
  const received: Received[] = [];
  const env = { ...process.env, GIT_TERMINAL_PROMPT: '0', GIT_AUTHOR_NAME: 'Dana', GIT_AUTHOR_EMAIL: 'dana@example.com', GIT_COMMITTER_NAME: 'Dana', GIT_COMMITTER_EMAIL: 'dana@example.com' };
  const git = async (...args: string[]): Promise<string> => (await run('git', ['-C', clone, ...args], { env })).stdout;
  const pg = (): string => join(clone, 'k8s/db/pg.yaml');
  /** Waits for the deliveries made so far, and returns those since `from`. */
  const since = async (from: number): Promise<string[]> => {
    await github.webhooks.idle();
    return received.slice(from).map((r) => `${r.event}:${String(r.payload.action ?? r.payload.ref)}`);
  };

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-git-remote-'));
    hook = createServer((request, response) => {
      const chunks: Buffer[] = [];
      request.on('data', (chunk: Buffer) => chunks.push(chunk));
      request.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        void verify(secret, body, String(request.headers['x-hub-signature-256'])).then((signed) => {
          received.push({ event: String(request.headers['x-github-event']), payload: JSON.parse(body) as Json, signed });
          response.writeHead(202).end('{}');
        });
      });
    });
    await new Promise<void>((resolve) => hook.listen(0, '127.0.0.1', resolve));
    github = await startGitHubSandbox({ seedDir, workDir: join(dir, 'github') });
    github.webhooks.subscribe({ url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/`, secret });
    octokit = createGitHubClient({ baseUrl: github.url, auth: { kind: 'token', token: github.token } });
    clone = join(dir, 'clone');
    await run('git', ['clone', gitRemoteOf(github.url, github.token, `${github.owner}/${github.repo}`), clone], { env });
  });
  after(async () => {
    await github.close();
    hook.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('clones with the token as the password, and refuses without one, or a push by a reader', async () => {
    assert.match(await readFile(pg(), 'utf8'), /storage: 20Gi/);
    const anonymous = await run('git', ['ls-remote', `${github.url}/${github.owner}/${github.repo}.git`], { env }).then(() => '', (error: { stderr: string }) => error.stderr);
    assert.match(anonymous, /could not read Username|Authentication failed/);
    const reader = github.addPerson('rita', 'read');
    const readerClone = join(dir, 'reader');
    await run('git', ['clone', gitRemoteOf(github.url, reader, `${github.owner}/${github.repo}`), readerClone], { env });
    await run('git', ['-C', readerClone, 'commit', '--allow-empty', '-m', 'nope'], { env });
    const refused = await run('git', ['-C', readerClone, 'push', 'origin', 'HEAD:rita'], { env }).then(() => '', (error: { stderr: string }) => error.stderr);
    assert.match(refused, /Permission to acme\/platform-gitops\.git denied to rita\./);
    assert.equal(await github.state.git.resolve('refs/heads/rita'), undefined);
  });

  it('a pushed branch is the repository\'s, delivered as a push; a push to a pull request\'s head as its synchronize', async () => {
    const from = received.length;
    await git('switch', '-c', 'grow');
    await writeFile(pg(), (await readFile(pg(), 'utf8')).replace('storage: 20Gi', 'storage: 30Gi'));
    await git('commit', '-am', 'Grow pg');
    await git('push', '-u', 'origin', 'grow');
    const head = (await git('rev-parse', 'HEAD')).trim();
    assert.equal((await octokit.rest.git.getRef({ owner: github.owner, repo: github.repo, ref: 'heads/grow' })).data.object.sha, head);
    const { data: pull } = await octokit.rest.pulls.create({ owner: github.owner, repo: github.repo, head: 'grow', base: 'main', title: 'Grow pg' });
    await writeFile(pg(), (await readFile(pg(), 'utf8')).replace('storage: 30Gi', 'storage: 40Gi'));
    await git('commit', '-am', 'More');
    await git('push');
    assert.deepEqual(await since(from), ['push:refs/heads/grow', 'pull_request:opened', 'push:refs/heads/grow', 'pull_request:synchronize']);
    const synchronize = received.at(-1)?.payload;
    assert.equal((synchronize?.pull_request as { head: { sha: string } }).head.sha, (await git('rev-parse', 'HEAD')).trim());
    assert.equal(synchronize?.before, head);
    const created = received[from]?.payload;
    assert.equal(created?.created, true);
    assert.deepEqual((created?.head_commit as { modified: string[] }).modified, ['k8s/db/pg.yaml']);
    await octokit.rest.pulls.update({ owner: github.owner, repo: github.repo, pull_number: pull.number, state: 'closed' });
    await octokit.rest.pulls.update({ owner: github.owner, repo: github.repo, pull_number: pull.number, state: 'open' });
    await octokit.rest.pulls.merge({ owner: github.owner, repo: github.repo, pull_number: pull.number });
    assert.deepEqual((await since(from)).slice(4), ['pull_request:closed', 'pull_request:reopened', 'push:refs/heads/main', 'pull_request:closed']);
    assert.equal((received.at(-1)?.payload.pull_request as { merged: boolean }).merged, true);
    await git('push', 'origin', '--delete', 'grow');
    assert.deepEqual((await since(from)).slice(8), ['push:refs/heads/grow']);
    assert.equal(received.at(-1)?.payload.deleted, true);
  });

  it('delivers a check run asked for again (Re-run) to its App, and refuses it to a reader', async () => {
    const app = createGitHubClient({ baseUrl: github.url, auth: { kind: 'app', appId: github.app.appId, installationId: github.app.installationId, privateKey: github.app.privateKeyPem } });
    const head = await github.commitFiles({ branch: 'check-me', message: 'check me', files: { 'k8s/db/pg.yaml': (await readFile(pg(), 'utf8')).replace('storage: 40Gi', 'storage: 50Gi') } });
    await github.openPullRequest({ head: 'check-me', title: 'Check me' });
    const { data: checkRun } = await app.rest.checks.create({ owner: github.owner, repo: github.repo, name: 'sts-volume-gitops/validate (demo)', head_sha: head, conclusion: 'failure', output: { title: 'blocked', summary: 'blocked' } });
    const from = received.length;
    assert.equal((await octokit.rest.checks.rerequestRun({ owner: github.owner, repo: github.repo, check_run_id: checkRun.id })).status, 201);
    assert.equal((await octokit.rest.checks.rerequestSuite({ owner: github.owner, repo: github.repo, check_suite_id: checkRun.check_suite?.id ?? 0 })).status, 201);
    assert.deepEqual(await since(from), ['check_run:rerequested', 'check_suite:rerequested']);
    const rerun = received[from]?.payload.check_run as { name: string; head_sha: string; check_suite: { head_branch: string }; pull_requests: Array<{ number: number }> };
    assert.deepEqual([rerun.name, rerun.head_sha, rerun.check_suite.head_branch, rerun.pull_requests.length], ['sts-volume-gitops/validate (demo)', head, 'check-me', 1]);
    assert.equal(github.state.checkRuns.find((r) => r.id === checkRun.id)?.conclusion, 'failure', 'the run itself is left as it was');
    const reader = createGitHubClient({ baseUrl: github.url, auth: { kind: 'token', token: github.addPerson('rita2', 'read') } });
    await assert.rejects(reader.rest.checks.rerequestRun({ owner: github.owner, repo: github.repo, check_run_id: checkRun.id }), (error: { status?: number }) => error.status === 403);
  });

  it('every delivery is signed, has the fields of GitHub\'s own, and reads as its event', () => {
    assert.ok(received.length >= 12 && received.every((r) => r.signed));
    const exampleOf = (event: string, action: unknown): Json | undefined => recorded.find((e) => e.name === event)?.examples
      .find((e) => (action === undefined ? String(e.ref).startsWith('refs/heads/') : e.action === action));
    for (const { event, payload } of received) {
      const where = `${event} ${String(payload.action ?? payload.ref)}`;
      const example = exampleOf(event, payload.action);
      assert.ok(example, where);
      const missing = [
        ...missingKeys(example, payload, 'body'),
        // A deleted branch's push has no head commit (null), as on GitHub.
        ...['pull_request', 'repository', 'sender', 'check_run', 'check_suite', 'head_commit'].filter((key) => !(key === 'head_commit' && payload.deleted === true))
          .flatMap((key) => (example[key] ? missingKeys(example[key], payload[key], key) : [])),
        ...(example.pull_request ? ['head', 'base'].flatMap((side) => missingKeys((example.pull_request as Json)[side], (payload.pull_request as Json)[side], `pull_request.${side}`)) : []),
        ...(example.check_run ? missingKeys((example.check_run as Json).check_suite, (payload.check_run as Json).check_suite, 'check_run.check_suite') : []),
      ].filter((key) => !/^body\.(organization|enterprise)$/.test(key));
      assert.deepEqual(missing, [], where);
      assert.ok(isReadEvent(event), event);
      const reading = payloadReaders[event](payload);
      assert.ok(reading.ok, `${where}: ${reading.ok ? '' : reading.problem}`);
    }
  });
});
