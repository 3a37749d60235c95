// Dispatcher -> queue -> worker, in-process against both sandboxes: the dispatcher sends one message per target with
// the real SQS client to a local SQS endpoint, and the worker runs each message as its own pass.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { createDispatcher } from '../../functions/lambda/dispatcher.ts';
import { createWorker } from '../../functions/lambda/worker.ts';
import { sqsTargetQueue } from '../../functions/adapters/aws/target-queue.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { lambdaContext } from './lambda-context.ts';
import { sqsRecord, startLocalSqs, type LocalSqs } from './local-sqs.ts';

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' };

describe('dispatcher -> SQS FIFO -> worker', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let sqs: LocalSqs;
  let env: NodeJS.ProcessEnv;
  const token = 'FANOUT_GITHUB_TOKEN';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-fanout-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    sqs = await startLocalSqs();
    const good = sandboxConfig(kube.kubeconfigPath, github.url, token);
    // A second target whose kubeconfig cannot be read: its pass fails.
    const broken = good.replace('targets:\n', '').replace('name: demo', 'name: unreachable')
      .replace(JSON.stringify(kube.kubeconfigPath), JSON.stringify(join(dir, 'no-such-kubeconfig')));
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, `${good}${broken}`);
    env = { STS_VOLUME_GITOPS_CONFIG: configFile, STS_VOLUME_GITOPS_SCHEDULE_MINUTES: '5', [token]: github.token, ...sandboxRecordKeyEnv() };
  });
  after(async () => {
    await sqs.close();
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  const queue = () => sqsTargetQueue(sqs.queueUrl, { endpoint: sqs.endpoint, region: 'eu-west-1', credentials });

  it('enqueues one pass per target, grouped by cluster, once per schedule slot', async () => {
    const slotStart = Date.UTC(2026, 10, 23, 16, 0, 0);
    const dispatch = createDispatcher({ queue, env, now: () => slotStart + 1000 });
    const result = await dispatch({ source: 'schedule' }, lambdaContext('dispatcher'));
    assert.deepEqual(result.enqueued.map((e) => e.target), ['demo', 'unreachable']);
    assert.deepEqual(sqs.messages.map((m) => JSON.parse(m.body) as unknown), [
      { target: 'demo', action: 'pass', trigger: 'schedule' }, { target: 'unreachable', action: 'pass', trigger: 'schedule' },
    ]);
    assert.equal(sqs.messages[0]?.groupId, `kubeconfig:${kube.url}`, 'a kubeconfig cluster is its API server');
    assert.notEqual(sqs.messages[0]?.groupId, sqs.messages[1]?.groupId, 'different clusters run side by side');
    // A retried invocation in the same slot queues nothing new; the next slot does.
    await createDispatcher({ queue, env, now: () => slotStart + 200_000 })({ source: 'schedule' }, lambdaContext('dispatcher'));
    assert.equal(sqs.messages.length, 2);
    await createDispatcher({ queue, env, now: () => slotStart + 300_000 })({ source: 'schedule' }, lambdaContext('dispatcher'));
    assert.equal(sqs.messages.length, 4);
    // Invoked by a person in that slot (`aws lambda invoke`, infra/README.md step 7: "to queue them now"), it queues a
    // pass per target, which the slot's ids had SQS drop as duplicates; a retry of that invocation queues nothing new.
    const asked = lambdaContext('dispatcher');
    await createDispatcher({ queue, env, now: () => slotStart + 301_000 })({}, asked);
    assert.equal(sqs.messages.length, 6);
    assert.deepEqual(JSON.parse(sqs.messages[4]?.body ?? '{}'), { target: 'demo', action: 'pass', trigger: 'manual' });
    assert.equal(sqs.messages[4]?.groupId, sqs.messages[0]?.groupId, 'on its cluster\'s group, behind any other pass there');
    await createDispatcher({ queue, env, now: () => slotStart + 302_000 })({}, asked);
    assert.equal(sqs.messages.length, 6);
    assert.deepEqual(sqs.requests, Array(5).fill('AmazonSQS.SendMessageBatch'));
  });

  it('runs one pass per message and reports the failed target as a batch item failure', async () => {
    const records = sqs.drain().slice(0, 2);
    const worker = createWorker({ env });
    const before = kube.requestLog.writes().length;
    const answers = [];
    kube.startTimer(20); // the garbage collector finishes orphan deletes while a pass waits, as on a real cluster
    try {
      for (const record of records) answers.push(await worker({ Records: [record] }, lambdaContext('worker')));
    } finally {
      kube.stopTimer();
    }
    assert.deepEqual(answers[0], { batchItemFailures: [] }, 'the demo target passed');
    assert.deepEqual(answers[1], { batchItemFailures: [{ itemIdentifier: records[1]?.messageId }] });
    assert.ok(kube.requestLog.writes().length > before, 'a pass message applies');
  });

  it('reports a message it cannot read as a batch item failure', async () => {
    const worker = createWorker({ env });
    const record = sqsRecord({ messageId: 'm-bad', body: '{"target":"demo","action":"delete"}', groupId: 'g', deduplicationId: 'd' }, sqs.queueArn);
    const unknown = sqsRecord({ messageId: 'm-unknown', body: '{"target":"nope","action":"pass"}', groupId: 'g', deduplicationId: 'd2' }, sqs.queueArn);
    assert.deepEqual(await worker({ Records: [record, unknown] }, lambdaContext('worker')), { batchItemFailures: [{ itemIdentifier: 'm-bad' }, { itemIdentifier: 'm-unknown' }] });
  });

  it('validates pull requests without writing to the cluster', async () => {
    const pg = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml');
    assert.ok(pg);
    const head = await github.commitFiles({ branch: 'grow-pg', message: 'Grow pg', files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', 'storage: 40Gi') } });
    await github.openPullRequest({ head: 'grow-pg', title: 'Grow pg' });
    const writesBefore = kube.requestLog.writes().length;
    const worker = createWorker({ env });
    const record = sqsRecord({ messageId: 'm-validate', body: JSON.stringify({ target: 'demo', action: 'validate', trigger: 'pull_request' }), groupId: 'g', deduplicationId: 'v' }, sqs.queueArn);
    assert.deepEqual(await worker({ Records: [record] }, lambdaContext('worker')), { batchItemFailures: [] });
    assert.deepEqual(kube.requestLog.writes().slice(writesBefore), [], 'no cluster write');
    const statuses = github.state.statuses.filter((s) => s.sha === head && s.context === 'sts-volume-gitops/validate (demo)');
    assert.equal(statuses.length, 1, 'a check on the pull request head');
  });
});
