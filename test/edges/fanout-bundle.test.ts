// The fan-out functions as shipped: each entry the stack deploys (dispatcher, worker, webhook) bundled by the
// stack's own esbuild definition and run in its own plain Node 22 process (test/edges/fixtures/lambda-runtime.js),
// its AWS clients pointed by AWS_ENDPOINT_URL_* at a local endpoint speaking SQS's and Secrets Manager's JSON protocols.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdtemp, open, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { buildLambdaBundle, lambdaBundle, lambdaEntries, type BuiltBundle, type LambdaEntryName } from '../../infra/lambda-bundle.ts';
import { sandboxConfig, sandboxRecordKeyEnv } from '../../functions/cli/sandbox-config.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { pullRequestPayload } from '../../sandbox/github/webhooks.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { gitHubDelivery } from '../lambda/function-url-event.ts';
import { startLocalSqs, type LocalSqs } from '../lambda/local-sqs.ts';

/** The deployment's record key (one for the whole file: its passes resume each other's records). */
const recordKeyEnv = sandboxRecordKeyEnv();

const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
const runtime = fileURLToPath(new URL('fixtures/lambda-runtime.js', import.meta.url));
const webhookSecret = 'bundle-test-webhook-secret';

type Outcome = { ok: true; body: string } | { ok: false; errorType: string; errorMessage: string };

describe('the fan-out bundles, built as the stack builds them, each in its own Node 22 process', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let aws: LocalSqs;
  const bundles = new Map<LambdaEntryName, BuiltBundle>();
  const token = 'TEST_GITHUB_TOKEN';

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-fanout-bundle-'));
    kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
    github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
    aws = await startLocalSqs({ secrets: { 'github/webhook': JSON.stringify({ webhookSecret }) } });
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, sandboxConfig(kube.kubeconfigPath, github.url, token));
    for (const [name, entry] of Object.entries(lambdaEntries) as Array<[LambdaEntryName, string]>) {
      bundles.set(name, await buildLambdaBundle({ outdir: join(dir, name), configFile, entry }));
    }
  });
  after(async () => {
    await aws.close();
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function invoke(name: LambdaEntryName, event: unknown): Promise<{ outcome: Outcome; output: string }> {
    const bundle = bundles.get(name);
    assert.ok(bundle);
    const outcomeFile = join(dir, `${name}-${Date.now()}-${Math.random().toString(36).slice(2)}.json`);
    const env = {
      PATH: process.env.PATH ?? '',
      STS_VOLUME_GITOPS_CONFIG: join(bundle.directory, lambdaBundle.configFileName),
      STS_VOLUME_GITOPS_QUEUE_URL: aws.queueUrl,
      STS_VOLUME_GITOPS_WEBHOOK_SECRET: 'github/webhook',
      AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'test-secret',
      AWS_ENDPOINT_URL_SQS: aws.endpoint, AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint,
      POWERTOOLS_SERVICE_NAME: 'sts-volume-gitops', POWERTOOLS_METRICS_NAMESPACE: 'StsVolumeGitopsTest',
      [token]: github.token,
      ...recordKeyEnv,
    };
    const outputFile = `${outcomeFile}.log`;
    const output = await open(outputFile, 'w');
    await new Promise<number | null>((resolve, reject) => {
      const child = spawn(process.execPath, [runtime, bundle.file, JSON.stringify(event), outcomeFile, '300000'],
        { env, cwd: bundle.directory, stdio: ['ignore', output.fd, output.fd] });
      child.on('error', reject);
      child.on('exit', (code) => resolve(code));
    });
    await output.close();
    const text = await readFile(outputFile, 'utf8');
    const outcome = JSON.parse(await readFile(outcomeFile, 'utf8').catch(() => `{"ok":false,"errorType":"NoOutcome","errorMessage":${JSON.stringify(text)}}`)) as Outcome;
    return { outcome, output: text };
  }

  it('dispatcher: one message per target on the queue, through the real SQS client', async () => {
    const { outcome, output } = await invoke('dispatcher', { source: 'schedule' });
    assert.ok(outcome.ok, `${JSON.stringify(outcome)}\n${output}`);
    assert.deepEqual(JSON.parse(outcome.body), { enqueued: [{ target: 'demo', group: `kubeconfig:${kube.url}` }] });
    assert.deepEqual(aws.messages.map((m) => JSON.parse(m.body) as unknown), [{ target: 'demo', action: 'pass', trigger: 'schedule' }]);
  });

  it('worker: runs the queued pass and answers with no batch item failures', async () => {
    const [record] = aws.drain();
    assert.ok(record);
    const writesBefore = kube.requestLog.writes().length;
    const { outcome, output } = await invoke('worker', { Records: [record] });
    assert.ok(outcome.ok, `${JSON.stringify(outcome)}\n${output}`);
    assert.deepEqual(JSON.parse(outcome.body), { batchItemFailures: [] });
    assert.ok(kube.requestLog.writes().length > writesBefore, 'the pass applied');
    assert.match(output, /"message":"pass finished"/);
  });

  it('webhook: a signed pull_request (secret from Secrets Manager) is queued as a validate, a bad one gets 401; each counted', async () => {
    const pg = await github.readFile('refs/heads/main', 'k8s/db/pg.yaml');
    assert.ok(pg);
    await github.commitFiles({ branch: 'grow', message: 'grow', files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', 'storage: 50Gi') } });
    const number = await github.openPullRequest({ head: 'grow', title: 'grow' });
    const pr = github.state.pulls.find((p) => p.number === number);
    assert.ok(pr);
    const payload = pullRequestPayload(github.context, pr, 'opened', 'dana');
    const signed = await invoke('webhook', await gitHubDelivery({ event: 'pull_request', payload, secret: webhookSecret }));
    assert.ok(signed.outcome.ok, `${JSON.stringify(signed.outcome)}\n${signed.output}`);
    assert.deepEqual(JSON.parse(signed.outcome.body), { statusCode: 202, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ queued: [{ target: 'demo', action: 'validate' }] }) });
    assert.deepEqual(aws.drain().map((r) => JSON.parse(r.body) as unknown), [{ target: 'demo', action: 'validate', trigger: 'pull_request', pullRequest: number }]);
    const bad = await invoke('webhook', await gitHubDelivery({ event: 'pull_request', payload, secret: 'not-the-secret' }));
    assert.ok(bad.outcome.ok);
    assert.equal((JSON.parse(bad.outcome.body) as { statusCode: number }).statusCode, 401);
    assert.ok(!bad.output.includes('"pull_request":'), 'the body is not logged');
    // The metrics the stack's alarm and dashboard read, as the shipped bundle writes them (EMF on stdout).
    const emf = (output: string): Array<Record<string, unknown>> => output.split('\n').filter((l) => l.startsWith('{') && l.includes('"_aws"')).map((l) => JSON.parse(l) as Record<string, unknown>);
    assert.deepEqual(emf(signed.output).map((m) => [m.WebhookDeliveriesQueued, m.reason]), [[1, undefined]]);
    assert.deepEqual(emf(bad.output).map((m) => [m.WebhookDeliveriesRefused, m.reason]), [[1, 'bad-signature']]);
  });
});
