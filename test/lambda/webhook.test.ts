// The webhook Lambda, in-process, driven with Function URL events carrying sandbox-made GitHub deliveries: a signed
// pull_request queues a validate whose worker run checks the PR head with no cluster write; bad signatures get 401
// (logged without the body); duplicates and unknown repositories change nothing.
import assert from 'node:assert/strict';
import { createHmac } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { createWorker } from '../../functions/lambda/worker.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import { pullRequestPayload, pushPayload } from '../../sandbox/github/webhooks.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { gitHubDelivery } from './function-url-event.ts';
import { captureLambdaOutput } from '../support/lambda-output.ts';
import { lambdaContext } from './lambda-context.ts';
import type { LocalSqs } from './local-sqs.ts';
import { startWebhookWorld, webhookSecret, type WebhookWorld } from './webhook-world.ts';

const secret = webhookSecret;

describe('the webhook Lambda', () => {
  let world: WebhookWorld;
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let sqs: LocalSqs;
  let env: NodeJS.ProcessEnv;
  let webhook: WebhookWorld['webhook'];
  const token = 'WEBHOOK_GITHUB_TOKEN';

  before(async () => {
    world = await startWebhookWorld('webhook', (k, g) => ({
      configText: sandboxConfig(k.kubeconfigPath, g.url, token), env: { [token]: g.token, ...sandboxRecordKeyEnv() },
    }));
    ({ dir, kube, github, sqs, env, webhook } = world);
  });
  after(() => world.close());

  async function openPullRequest(branch: string, size: string): Promise<{ number: number; head: string }> {
    const pg = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml');
    assert.ok(pg);
    const head = await github.commitFiles({ branch, message: `pg to ${size}`, files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', `storage: ${size}`) } });
    return { number: await github.openPullRequest({ head: branch, title: `pg to ${size}` }), head };
  }

  function pullRequestEvent(number: number): Record<string, unknown> {
    const pr = github.state.pulls.find((p) => p.number === number);
    assert.ok(pr);
    return pullRequestPayload(github.context, pr, 'opened', 'dana');
  }

  const drainToWorker = (): Promise<Array<{ target: string; action: string }>> => world.drainToWorker();

  it('turns a signed pull_request into a check on the PR head, with no cluster write', async () => {
    const { number, head } = await openPullRequest('grow-pg', '40Gi');
    const answer = await webhook(await gitHubDelivery({ event: 'pull_request', payload: pullRequestEvent(number), secret }), lambdaContext('webhook'));
    assert.equal(typeof answer === 'object' && answer.statusCode, 202);
    assert.deepEqual(JSON.parse(typeof answer === 'object' ? answer.body ?? '' : ''), { queued: [{ target: 'demo', action: 'validate' }] });
    const writesBefore = kube.requestLog.writes().length;
    assert.deepEqual(await drainToWorker(), [{ target: 'demo', action: 'validate', trigger: 'pull_request', pullRequest: number }]);
    assert.deepEqual(kube.requestLog.writes().slice(writesBefore), [], 'a pull request delivery never causes a cluster write');
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
    const elsewhere = { full_name: 'someone/else' };
    const prElsewhere = { ...pr, repository: elsewhere, pull_request: { ...(pr.pull_request as Record<string, unknown>), base: { ...((pr.pull_request as { base: object }).base), repo: elsewhere } } };
    assert.equal(await ignored('pull_request', prElsewhere), 'no target reads someone/else');
    assert.match(await ignored('pull_request', { ...pr, action: 'closed' }), /pull_request closed changes nothing/);
    const head = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml') ? await github.state.git.resolve('refs/heads/main') ?? '' : '';
    assert.match(await ignored('push', await pushPayload(github.context, 'grow-pg', undefined, head, 'dana')), /no target of acme\/platform-gitops follows refs\/heads\/grow-pg/);
    assert.match(await ignored('issues', {}), /event issues is not used/);
    assert.match(await ignored('pull_request', { ...pr, action: 'labeled' }), /pull_request labeled changes nothing/);
    assert.equal(sqs.drain().length, 0);
    const push = await webhook(await gitHubDelivery({ event: 'push', payload: await pushPayload(github.context, 'main', head, head, 'dana'), secret, base64: true }), lambdaContext('webhook')) as { statusCode: number; body: string };
    assert.deepEqual({ status: push.statusCode, body: JSON.parse(push.body) as unknown }, { status: 202, body: { queued: [{ target: 'demo', action: 'pass' }] } });
    assert.deepEqual(sqs.drain().map((r) => JSON.parse(r.body) as unknown), [{ target: 'demo', action: 'pass', trigger: 'push' }]);
  });

  /** Powertools writes EMF blobs and logs to stdout and stderr as JSON lines: those captured while `act` runs. */
  async function captureOutput(act: () => Promise<void>): Promise<string[]> {
    return (await captureLambdaOutput(act)).lines;
  }

  interface EmfBlob { _aws: { CloudWatchMetrics: Array<{ Dimensions: string[][]; Metrics: Array<{ Name: string }> }> }; [field: string]: unknown }
  const metricsIn = (lines: string[]): EmfBlob[] => lines.filter((l) => l.startsWith('{') && l.includes('"_aws"')).map((l) => JSON.parse(l) as EmfBlob);

  it('queues nothing for a fork\'s pull request under forks: neutral, and a validate when the target opts into forks: validate', async () => {
    await github.forkRepository('mallory');
    await github.commitFiles({ fork: 'mallory', branch: 'shrink', message: 'Shrink pg', files: { 'k8s/db/pg.yaml': 'kind: StatefulSet\n' } });
    const number = await github.openPullRequest({ head: 'mallory:shrink', title: 'Shrink pg', author: 'mallory' });
    const payload = pullRequestEvent(number);
    assert.equal((payload.pull_request as { head: { repo: { full_name: string } } }).head.repo.full_name, 'mallory/platform-gitops');
    sqs.drain();
    const neutral = await webhook(await gitHubDelivery({ event: 'pull_request', payload, secret }), lambdaContext('webhook')) as { statusCode: number; body: string };
    assert.equal(neutral.statusCode, 202);
    assert.match((JSON.parse(neutral.body) as { ignored: string }).ignored, new RegExp(`pull request #${number} comes from a fork and no target validates forks`));
    assert.equal(sqs.drain().length, 0, 'no pass reads the cluster for a fork nobody validates');

    const validatingConfig = join(dir, 'config-forks-validate.yaml');
    const text = sandboxConfig(kube.kubeconfigPath, github.url, token);
    const opted = text.replace('pullRequests: { validate: true, recovery: true }', 'pullRequests: { validate: true, recovery: true, forks: validate }');
    assert.notEqual(opted, text, 'the configuration names the fork policy');
    await writeFile(validatingConfig, opted);
    const validating = world.webhookWith({ ...env, STS_VOLUME_GITOPS_CONFIG: validatingConfig });
    const answer = await validating(await gitHubDelivery({ event: 'pull_request', payload, secret }), lambdaContext('webhook')) as { statusCode: number; body: string };
    assert.deepEqual({ status: answer.statusCode, body: JSON.parse(answer.body) as unknown }, { status: 202, body: { queued: [{ target: 'demo', action: 'validate' }] } });
    assert.deepEqual(sqs.drain().map((r) => JSON.parse(r.body) as unknown), [{ target: 'demo', action: 'validate', trigger: 'pull_request', pullRequest: number }]);
  });

  it('refuses signed bodies that are not the event their header names (the header is not signed) with 400, never 5xx', async () => {
    const repository = { full_name: 'acme/platform-gitops', name: 'platform-gitops', owner: { login: 'acme' } };
    const workflowDispatch = { ref: 'refs/heads/main', inputs: null, repository, sender: { login: 'mallory' }, workflow: '.github/workflows/ci.yml' };
    const push = await pushPayload(github.context, 'main', undefined, await github.state.git.resolve('refs/heads/main') ?? '', 'dana');
    const cases: Array<[string, unknown, RegExp]> = [
      ['push', workflowDispatch, /the body is not a push delivery: body\.before must be a commit SHA/],
      ['push', null, /the body is not a push delivery: the body must be an object/],
      ['push', { repository: { full_name: 42 } }, /body\.ref must be a non-empty string/],
      ['push', { ...push, repository: { full_name: 42 } }, /body\.repository\.full_name must be a non-empty string/],
      ['pull_request', push, /the body is not a pull_request delivery: body\.action must be a non-empty string/],
      ['pull_request', { ...pullRequestEvent(1), repository: { full_name: 42 } }, /body\.repository\.full_name must be a non-empty string/],
    ];
    for (const [event, payload, error] of cases) {
      const answer = await webhook(await gitHubDelivery({ event, payload, secret }), lambdaContext('webhook')) as { statusCode: number; body: string };
      assert.equal(answer.statusCode, 400, `${event} ${JSON.stringify(payload).slice(0, 80)}`);
      assert.match((JSON.parse(answer.body) as { error: string }).error, error);
    }
    const empty = await gitHubDelivery({ event: 'push', payload: null, secret });
    const signedEmpty = { ...empty, body: '', headers: { ...empty.headers, 'x-hub-signature-256': `sha256=${createHmac('sha256', secret).update('').digest('hex')}` } };
    const emptyAnswer = await webhook(signedEmpty, lambdaContext('webhook')) as { statusCode: number; body: string };
    assert.deepEqual({ status: emptyAnswer.statusCode, body: JSON.parse(emptyAnswer.body) as unknown }, { status: 400, body: { error: 'the body is empty: GitHub always sends a JSON payload' } });
    const unsignedEmpty = { ...signedEmpty, headers: { ...signedEmpty.headers, 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` } };
    assert.equal((await webhook(unsignedEmpty, lambdaContext('webhook')) as { statusCode: number }).statusCode, 401);
    assert.equal(sqs.drain().length, 0);
  });

  it('counts refused deliveries by reason and queued ones, as EMF metrics', async () => {
    const head = await github.state.git.resolve('refs/heads/main') ?? '';
    const lines = await captureOutput(async () => {
      await webhook(await gitHubDelivery({ event: 'push', payload: { marker: 1 }, secret: 'not-the-secret' }), lambdaContext('webhook'));
      await webhook(await gitHubDelivery({ event: 'push', payload: { marker: 2 }, secret: 'not-the-secret' }), lambdaContext('webhook'));
      await webhook(await gitHubDelivery({ event: 'push', payload: null, secret }), lambdaContext('webhook'));
      const oversized = await gitHubDelivery({ event: 'push', payload: null, secret });
      const tooLarge = await webhook({ ...oversized, body: 'x'.repeat(25 * 1024 * 1024 + 1) }, lambdaContext('webhook')) as { statusCode: number };
      assert.equal(tooLarge.statusCode, 413);
      await webhook(await gitHubDelivery({ event: 'push', payload: await pushPayload(github.context, 'main', undefined, head, 'dana'), secret }), lambdaContext('webhook'));
      await webhook(await gitHubDelivery({ event: 'issues', payload: {}, secret }), lambdaContext('webhook'));
    });
    sqs.drain();
    const counted = metricsIn(lines).flatMap((blob) => blob._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((metric) => ({
      name: metric.Name, value: blob[metric.Name], dimensions: m.Dimensions.flat().sort(), reason: blob.reason,
    }))));
    assert.deepEqual(counted, [
      { name: 'WebhookDeliveriesRefused', value: 1, dimensions: ['reason', 'service'], reason: 'bad-signature' },
      { name: 'WebhookDeliveriesRefused', value: 1, dimensions: ['reason', 'service'], reason: 'bad-signature' },
      { name: 'WebhookDeliveriesRefused', value: 1, dimensions: ['reason', 'service'], reason: 'payload-mismatch' },
      { name: 'WebhookDeliveriesRefused', value: 1, dimensions: ['reason', 'service'], reason: 'too-large' },
      { name: 'WebhookDeliveriesQueued', value: 1, dimensions: ['service'], reason: undefined },
    ]);
  });

  it('counts a delivery id it queued before as WebhookDeliveriesRepeated, and still queues it (GitHub\'s Redeliver keeps the id)', async () => {
    const head = await github.state.git.resolve('refs/heads/main') ?? '';
    // A captured delivery sent again: the signature covers the body, not a time, so it verifies every time.
    const captured = await gitHubDelivery({ event: 'push', payload: await pushPayload(github.context, 'main', undefined, head, 'dana'), secret, delivery: 'captured-delivery' });
    const lines = await captureOutput(async () => {
      for (let i = 0; i < 3; i++) assert.equal((await webhook(captured, lambdaContext('webhook')) as { statusCode: number }).statusCode, 202);
      await webhook(await gitHubDelivery({ event: 'push', payload: await pushPayload(github.context, 'main', undefined, head, 'dana'), secret }), lambdaContext('webhook'));
    });
    sqs.drain();
    const names = metricsIn(lines).flatMap((blob) => blob._aws.CloudWatchMetrics.flatMap((m) => m.Metrics.map((metric) => metric.Name)));
    assert.deepEqual(names.filter((n) => n === 'WebhookDeliveriesQueued').length, 4);
    assert.deepEqual(names.filter((n) => n === 'WebhookDeliveriesRepeated').length, 2, 'the second and third sending of one delivery id');
    const repeats = lines.filter((l) => l.includes('"webhook delivery repeated"'));
    assert.equal(repeats.length, 2);
    assert.match(repeats[0] ?? '', /"delivery":"captured-delivery"/);
  });
});
