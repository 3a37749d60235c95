// The webhook Lambda, in-process, driven with Function URL events carrying sandbox-made GitHub deliveries: a signed
// pull_request queues a validate whose worker run checks the PR head with no cluster write; bad signatures get 401
// (logged without the body); duplicates and unknown repositories change nothing.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-command.ts';
import { createWebhook } from '../../functions/lambda/webhook.ts';
import { createWorker } from '../../functions/lambda/worker.ts';
import { sqsTargetQueue } from '../../functions/adapters/aws/target-queue.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { pullRequestPayload, pushPayload } from '../../sandbox/github/webhooks.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { gitHubDelivery } from './function-url-event.ts';
import { lambdaContext } from './lambda-context.ts';
import { startLocalSqs, type LocalSqs } from './local-sqs.ts';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const secret = 'a-webhook-secret-of-some-length';

describe('the webhook Lambda', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let sqs: LocalSqs;
  let env: NodeJS.ProcessEnv;
  let webhook: ReturnType<typeof createWebhook>;
  const token = 'WEBHOOK_GITHUB_TOKEN';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-webhook-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    sqs = await startLocalSqs();
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, sandboxConfig(kube.kubeconfigPath, github.url, token));
    env = { STS_VOLUME_GITOPS_CONFIG: configFile, [token]: github.token, ...sandboxRecordKeyEnv() };
    const queue = sqsTargetQueue(sqs.queueUrl, { endpoint: sqs.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' } });
    webhook = createWebhook({ env, secret: () => Promise.resolve(secret), enqueue: (messages) => queue.send(messages) });
  });
  after(async () => {
    await sqs.close();
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function openPullRequest(branch: string, size: string): Promise<{ number: number; head: string }> {
    const pg = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml');
    assert.ok(pg);
    const head = await github.commitFiles({ branch, message: `pg to ${size}`, files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', `storage: ${size}`) } });
    return { number: await github.openPullRequest({ head: branch, title: `pg to ${size}` }), head };
  }

  function pullRequestEvent(number: number): Record<string, unknown> {
    const pr = github.state.pulls.find((p) => p.number === number);
    assert.ok(pr);
    return pullRequestPayload(github.state, pr, 'opened', 'dana');
  }

  /** Runs what the queue holds through the worker, as the event source would. */
  async function drainToWorker(): Promise<Array<{ target: string; action: string }>> {
    const worker = createWorker({ env });
    const records = sqs.drain();
    for (const record of records) assert.deepEqual(await worker({ Records: [record] }, lambdaContext('worker')), { batchItemFailures: [] });
    return records.map((r) => JSON.parse(r.body) as { target: string; action: string });
  }

  it('turns a signed pull_request into a check on the PR head, with no cluster write', async () => {
    const { number, head } = await openPullRequest('grow-pg', '40Gi');
    const answer = await webhook(await gitHubDelivery({ event: 'pull_request', payload: pullRequestEvent(number), secret }), lambdaContext('webhook'));
    assert.equal(typeof answer === 'object' && answer.statusCode, 202);
    assert.deepEqual(JSON.parse(typeof answer === 'object' ? answer.body ?? '' : ''), { queued: [{ target: 'demo', action: 'validate' }] });
    const writesBefore = kube.requestLog.writes().length;
    assert.deepEqual(await drainToWorker(), [{ target: 'demo', action: 'validate', trigger: 'pull_request' }]);
    assert.deepEqual(kube.requestLog.writes().slice(writesBefore), [], 'a webhook never causes a cluster write');
    const statuses = github.state.statuses.filter((s) => s.sha === head && s.context === 'sts-volume-gitops/validate (demo)');
    assert.deepEqual(statuses.map((s) => s.state), ['success']);
    assert.equal(github.state.comments.filter((c) => c.issue === number).length, 1, 'the plan comment');
  });

  it('lets a duplicate delivery write nothing new: deduplicated by the queue, and level-triggered if it runs again', async () => {
    const [pr] = github.state.pulls.filter((p) => p.head === 'grow-pg');
    assert.ok(pr);
    const messagesBefore = sqs.messages.length;
    const statusesBefore = github.state.statuses.length;
    const delivery = await gitHubDelivery({ event: 'pull_request', payload: pullRequestEvent(pr.number), secret, delivery: 'same-delivery' });
    for (let i = 0; i < 2; i++) assert.equal((await webhook(delivery, lambdaContext('webhook')) as { statusCode: number }).statusCode, 202);
    assert.equal(sqs.messages.length, messagesBefore, 'the same pull request head is queued once per deduplication window');
    // Even when it does run again (after the window), nothing new is written anywhere.
    const writesBefore = kube.requestLog.writes().length;
    const commentsBefore = JSON.stringify(github.state.comments);
    const worker = createWorker({ env });
    const again = { ...(sqs.messages.at(-1) ?? assert.fail('a message')) };
    const { sqsRecord } = await import('./local-sqs.ts');
    assert.deepEqual(await worker({ Records: [sqsRecord(again, sqs.queueArn)] }, lambdaContext('worker')), { batchItemFailures: [] });
    assert.equal(github.state.statuses.length, statusesBefore);
    assert.equal(JSON.stringify(github.state.comments), commentsBefore);
    assert.deepEqual(kube.requestLog.writes().slice(writesBefore), []);
  });

  it('refuses unsigned and badly signed deliveries with 401 and logs them without the body', async () => {
    const payload = { ...pullRequestEvent(1), marker: 'BODY-MUST-NOT-BE-LOGGED' };
    const logged: string[] = [];
    // Powertools writes warnings to stderr and the rest to stdout: both are captured.
    const [stdout, stderr] = [process.stdout.write.bind(process.stdout), process.stderr.write.bind(process.stderr)];
    const capture = (chunk: string | Uint8Array): boolean => { logged.push(String(chunk)); return true; };
    process.stdout.write = capture;
    process.stderr.write = capture;
    const answers: unknown[] = [];
    try {
      for (const options of [{ secret: 'another-secret-entirely' }, {}, { signature: 'sha256=zz' }, { signature: `sha1=${'0'.repeat(40)}` }]) {
        answers.push(await webhook(await gitHubDelivery({ event: 'pull_request', payload, ...options }), lambdaContext('webhook')));
      }
    } finally {
      process.stdout.write = stdout;
      process.stderr.write = stderr;
    }
    assert.deepEqual(answers.map((a) => (a as { statusCode: number }).statusCode), [401, 401, 401, 401]);
    const refusals = logged.filter((l) => l.includes('missing or bad signature'));
    assert.equal(refusals.length, 4);
    assert.ok(logged.every((l) => !l.includes('BODY-MUST-NOT-BE-LOGGED')), 'no body in the logs');
    assert.equal(sqs.drain().length, 0);
  });

  it('ignores unknown repositories, other branches and other actions with 202; queues a pass for a push to the target branch', async () => {
    const ignored = async (event: string, payload: Record<string, unknown>): Promise<string> => {
      const answer = await webhook(await gitHubDelivery({ event, payload, secret }), lambdaContext('webhook')) as { statusCode: number; body: string };
      assert.equal(answer.statusCode, 202);
      return (JSON.parse(answer.body) as { ignored: string }).ignored;
    };
    const pr = pullRequestEvent(1);
    assert.equal(await ignored('pull_request', { ...pr, repository: { full_name: 'someone/else' } }), 'no target reads someone/else');
    assert.match(await ignored('pull_request', { ...pr, action: 'closed' }), /pull_request closed changes nothing/);
    const head = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml') ? await github.state.git.resolve('refs/heads/main') ?? '' : '';
    assert.match(await ignored('push', pushPayload(github.state, 'grow-pg', undefined, head, 'dana')), /no target of acme\/platform-gitops follows refs\/heads\/grow-pg/);
    assert.match(await ignored('issues', {}), /event issues is not used/);
    assert.equal(sqs.drain().length, 0);
    const push = await webhook(await gitHubDelivery({ event: 'push', payload: pushPayload(github.state, 'main', head, head, 'dana'), secret, base64: true }), lambdaContext('webhook')) as { statusCode: number; body: string };
    assert.deepEqual({ status: push.statusCode, body: JSON.parse(push.body) as unknown }, { status: 202, body: { queued: [{ target: 'demo', action: 'pass' }] } });
    assert.deepEqual(sqs.drain().map((r) => JSON.parse(r.body) as unknown), [{ target: 'demo', action: 'pass', trigger: 'push' }]);
  });
});
