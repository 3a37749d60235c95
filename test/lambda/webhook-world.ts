// The world the webhook Lambda tests drive (webhook.test.ts, merge-queue.test.ts): Kubernetes and GitHub sandboxes
// seeded from examples/, a local SQS queue the webhook enqueues to, and the worker Lambda draining it.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sqsTargetQueue } from '../../functions/adapters/aws/target-queue.ts';
import { createWebhook } from '../../functions/lambda/webhook.ts';
import { createWorker } from '../../functions/lambda/worker.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { lambdaContext } from './lambda-context.ts';
import { startLocalSqs, type LocalSqs } from './local-sqs.ts';

export const webhookSecret = 'a-webhook-secret-of-some-length';

export interface WebhookWorld {
  dir: string;
  kube: KubeSandbox;
  github: GitHubSandbox;
  sqs: LocalSqs;
  /** The Lambdas' environment: the config file written at start and what `configure` added. */
  env: NodeJS.ProcessEnv;
  webhook: ReturnType<typeof createWebhook>;
  /** Another webhook Lambda on the same queue, with this environment (another config file, say). */
  webhookWith(env: NodeJS.ProcessEnv): ReturnType<typeof createWebhook>;
  /** Runs what the queue holds through the worker, as the event source would; answers the messages' bodies. */
  drainToWorker<Message = unknown>(): Promise<Message[]>;
  close(): Promise<void>;
}

/** What a test makes of the sandboxes: its config's text and the environment variables that config names. */
export type ConfigureWebhookWorld = (kube: KubeSandbox, github: GitHubSandbox) => { configText: string; env: NodeJS.ProcessEnv };

export async function startWebhookWorld(name: string, configure: ConfigureWebhookWorld): Promise<WebhookWorld> {
  const examples = fileURLToPath(new URL('../../examples/', import.meta.url));
  const dir = await mkdtemp(join(tmpdir(), `sts-${name}-`));
  const kube = await startKubeSandbox({ seedFile: join(examples, 'cluster-seed.yaml'), workDir: join(dir, 'kube') });
  const github = await startGitHubSandbox({ seedDir: join(examples, 'gitops-repo'), workDir: join(dir, 'github') });
  const sqs = await startLocalSqs();
  const configFile = join(dir, 'config.yaml');
  const { configText, env: configured } = configure(kube, github);
  await writeFile(configFile, configText);
  const env: NodeJS.ProcessEnv = { STS_VOLUME_GITOPS_CONFIG: configFile, ...configured };
  const queue = sqsTargetQueue(sqs.queueUrl, { endpoint: sqs.endpoint, region: 'eu-west-1', credentials: { accessKeyId: 'AKIDTEST', secretAccessKey: 'test' } });
  const webhookWith = (withEnv: NodeJS.ProcessEnv): ReturnType<typeof createWebhook> =>
    createWebhook({ env: withEnv, secret: () => Promise.resolve(webhookSecret), enqueue: (messages) => queue.send(messages) });
  return {
    dir, kube, github, sqs, env, webhook: webhookWith(env), webhookWith,
    async drainToWorker<Message>(): Promise<Message[]> {
      const worker = createWorker({ env });
      const records = sqs.drain();
      for (const record of records) assert.deepEqual(await worker({ Records: [record] }, lambdaContext('worker')), { batchItemFailures: [] });
      return records.map((r) => JSON.parse(r.body) as Message);
    },
    async close(): Promise<void> {
      await sqs.close();
      await kube.close();
      await github.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}
