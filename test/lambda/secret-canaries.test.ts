// No error carries a secret's text, anywhere (issue 22 item 8): a canary planted in every credential the Lambdas read
// (the GitHub token and App key from the environment, the App key, the webhook secret, the record key and the Prometheus
// bearer token from Secrets Manager (and the environment), a
// kubeconfig's token), each broken the ways they break in practice (malformed JSON, a trailing line break, a PEM that
// is not one, YAML that does not parse). The worker and the webhook run in-process with the real clients against the
// sandboxes and a local Secrets Manager endpoint; the canary must not appear in the error, its stack or the logs.
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import type { KubeSandbox } from '../../sandbox/kube/index.ts';
import { sandboxConfig, sandboxRecordKeyEnv, sandboxRecordKeyVariable } from '../../functions/cli/sandbox-config.ts';
import { createWorker } from '../../functions/lambda/worker.ts';
import { checkCommand } from '../../functions/cli/check-command.ts';
import { handler as webhookHandler, webhookSecretVariable } from '../../functions/lambda/webhook.ts';
import { startOneSetWorld } from '../feedback/one-set-world.ts';
import { gitHubDelivery } from './function-url-event.ts';
import { captureLambdaOutput } from '../support/lambda-output.ts';
import { lambdaContext } from './lambda-context.ts';
import { sqsRecord, startLocalSqs, type LocalSqs } from './local-sqs.ts';

const canary = 'Zq7vKx9Wp2Lm4Rt8YsQe';
const brokenPem = (body: string): string => `-----BEGIN RSA PRIVATE KEY-----\n${body}\n-----END RSA PRIVATE KEY-----\n`;

/** No run of six of the canary's characters: V8 and js-yaml quote a dozen characters around a fault. */
function assertNoCanary(text: string, where: string): void {
  for (let i = 0; i + 6 <= canary.length; i++) assert.ok(!text.includes(canary.slice(i, i + 6)), `${where} shows the secret:\n${text}`);
}

/** The JSON lines written while `act` runs (test/support/lambda-output.ts). */
async function captureOutput<T>(act: () => Promise<T>): Promise<{ result: T; output: string }> {
  const { result, output } = await captureLambdaOutput(act);
  return { result, output };
}

describe('secrets never reach an error message, a stack or the logs', () => {
  let dir: string;
  let kube: KubeSandbox;
  let github: GitHubSandbox;
  let aws: LocalSqs;

  before(async () => {
    ({ dir, kube, github } = await startOneSetWorld('sts-secret-canaries-'));
    aws = await startLocalSqs({
      secrets: {
        'github/app-malformed-json': `{"privateKey": ${canary}`,
        'github/app-broken-pem': JSON.stringify({ privateKey: brokenPem(canary) }),
        'github/webhook-malformed-json': `{"webhookSecret": ${canary}}`,
        'github/webhook-wrong-shape': JSON.stringify({ secret: canary }),
        'records/key-malformed-json': `{"recordKey": ${canary}-${canary}}`,
        'prometheus/token-malformed-json': `{"token": ${canary}`,
        'prometheus/token-wrong-shape': JSON.stringify({ bearer: canary }),
      },
    });
    // The worker's and the webhook's Secrets Manager reader is built at module level, as in the Lambda: the SDK takes
    // its endpoint from the environment when it first sends.
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_SECRETS_MANAGER: aws.endpoint, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: 'AKIDTEST', AWS_SECRET_ACCESS_KEY: 'test',
    });
  });
  after(async () => {
    await aws.close();
    await kube.close();
    await github.close();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs one pass of the target through the worker with this configuration text and environment. */
  async function workerPass(name: string, configText: string, env: Record<string, string>): Promise<string> {
    const configFile = join(dir, `${name}.yaml`);
    await writeFile(configFile, configText);
    const worker = createWorker({ env: { ...sandboxRecordKeyEnv(), STS_VOLUME_GITOPS_CONFIG: configFile, ...env } });
    const body = JSON.stringify({ target: 'demo', action: 'pass', trigger: 'schedule' });
    const record = sqsRecord({ messageId: randomUUID(), body, groupId: 'g', deduplicationId: randomUUID() }, aws.queueArn);
    const { result, output } = await captureOutput(() => worker({ Records: [record] }, lambdaContext('worker')));
    assert.equal(result.batchItemFailures.length, 1, `${name}: the pass fails\n${output}`);
    assert.match(output, /"message":"target failed"/, `${name}: and says so`);
    return output;
  }

  const tokenConfig = (): string => sandboxConfig(kube.kubeconfigPath, github.url, 'CANARY_TOKEN');
  const appConfig = (privateKey: string): string => {
    const text = tokenConfig().replace('token: { env: CANARY_TOKEN }', `app: { appId: 1, installationId: 2, privateKey: ${privateKey} }`);
    assert.notEqual(text, tokenConfig());
    return text;
  };

  it('the GitHub token from the environment: a line break or a control character in it', async () => {
    for (const [name, token] of [['token-crlf', `ghp_${canary}\r\nX-Injected: 1`], ['token-nul', `ghp_${canary}\u0000`], ['token-inner-space', `ghp_${canary} x`]] as const) {
      const output = await workerPass(name, tokenConfig(), { CANARY_TOKEN: token });
      assert.match(output, /environment variable CANARY_TOKEN holds a GitHub token with a space, line break or other character no token has \(not shown\)/);
      assertNoCanary(output, name);
    }
    // A trailing line break (a token read from a file) is not part of the token: the pass authenticates.
    const configFile = join(dir, 'token-newline.yaml');
    await writeFile(configFile, tokenConfig());
    const worker = createWorker({ env: { ...sandboxRecordKeyEnv(), STS_VOLUME_GITOPS_CONFIG: configFile, CANARY_TOKEN: `${github.token}\n` } });
    const record = sqsRecord({ messageId: randomUUID(), body: JSON.stringify({ target: 'demo', action: 'validate', trigger: 'schedule' }), groupId: 'g', deduplicationId: randomUUID() }, aws.queueArn);
    const { result } = await captureOutput(() => worker({ Records: [record] }, lambdaContext('worker')));
    assert.deepEqual(result, { batchItemFailures: [] });
  });

  it('the GitHub App key from the environment and from Secrets Manager: not a PEM, malformed JSON', async () => {
    const cases: Array<[string, string, Record<string, string>]> = [
      ['app-env-broken-pem', appConfig('{ env: CANARY_KEY }'), { CANARY_KEY: brokenPem(canary) }],
      ['app-env-not-pem', appConfig('{ env: CANARY_KEY }'), { CANARY_KEY: canary }],
      ['app-secret-malformed-json', appConfig('{ secret: github/app-malformed-json }'), {}],
      ['app-secret-broken-pem', appConfig('{ secret: github/app-broken-pem }'), {}],
    ];
    for (const [name, config, env] of cases) {
      const output = await workerPass(name, config, env);
      assertNoCanary(output, name);
      // The error names the setting and what is wrong, not OpenSSL's decoder text.
      if (name.startsWith('app-env')) assert.match(output, /the GitHub App private key \(environment variable CANARY_KEY\) is not a PEM private key/, name);
    }
  });

  it('the record key from Secrets Manager: malformed JSON, in the worker and in check', async () => {
    const config = tokenConfig().replace(`recordKey: { env: ${sandboxRecordKeyVariable} }`, 'recordKey: { secret: records/key-malformed-json }');
    assert.notEqual(config, tokenConfig());
    const output = await workerPass('record-key-malformed-json', config, { CANARY_TOKEN: github.token });
    assertNoCanary(output, 'record key (worker)');
    assert.match(output, /cannot read secret records\/key-malformed-json: the value starts like JSON but does not parse \(\d+ characters; the parser's message is not shown/);
    // check reads the same secret with this machine's credentials (here the local Secrets Manager) and prints an error.
    const configFile = join(dir, 'record-key-check.yaml');
    await writeFile(configFile, config);
    let printed = '';
    const { result: code, output: logged } = await captureOutput(() => checkCommand(['--config', configFile], { env: { ...process.env, CANARY_TOKEN: github.token } }, (text) => { printed += text; }));
    assertNoCanary(`${printed}\n${logged}`, 'record key (check)');
    assert.equal(code, 1, printed);
    assert.match(printed, /config\.record-key.*cannot read secret records\/key-malformed-json: the value starts like JSON but does not parse/s);
  });

  it('the Prometheus bearer token from Secrets Manager and the environment: malformed JSON, wrong shape, a line break; the pass goes on', async () => {
    const usage = (auth: string): string => `${tokenConfig()}    usage: { prometheus: { url: "${kube.prometheus.url}", auth: { bearer: ${auth} } } }\n`;
    const cases: Array<[string, string, Record<string, string>, RegExp]> = [
      ['token-secret-malformed-json', usage('{ secret: prometheus/token-malformed-json }'), {}, /cannot read secret prometheus\/token-malformed-json: the value starts like JSON but does not parse/],
      ['token-secret-wrong-shape', usage('{ secret: prometheus/token-wrong-shape }'), {}, /cannot read secret prometheus\/token-wrong-shape: the JSON has no \\"token\\" string/],
      ['token-env-crlf', usage('{ env: CANARY_PROM_TOKEN }'), { CANARY_PROM_TOKEN: `${canary}\r\nX-Injected: 1` }, /the bearer token \(environment variable CANARY_PROM_TOKEN\) holds a space, line break or other character no token has \(not shown\)/],
    ];
    for (const [name, configText, env, message] of cases) {
      const configFile = join(dir, `${name}.yaml`);
      await writeFile(configFile, configText);
      const worker = createWorker({ env: { ...sandboxRecordKeyEnv(), STS_VOLUME_GITOPS_CONFIG: configFile, CANARY_TOKEN: github.token, ...env } });
      const record = sqsRecord({ messageId: randomUUID(), body: JSON.stringify({ target: 'demo', action: 'pass', trigger: 'schedule' }), groupId: 'g', deduplicationId: randomUUID() }, aws.queueArn);
      const { result, output } = await captureOutput(() => worker({ Records: [record] }, lambdaContext('worker')));
      // A usage read that fails costs growth, not the pass.
      assert.deepEqual(result, { batchItemFailures: [] }, `${name}\n${output}`);
      assert.match(output, /"message":"usage read failed"/, name);
      assert.match(output, message, name);
      assertNoCanary(output, name);
    }
  });

  it('a kubeconfig that does not parse, next to its token', async () => {
    const kubeconfig = join(dir, 'broken-kubeconfig.yaml');
    await writeFile(kubeconfig, `apiVersion: v1\nkind: Config\nusers:\n- name: u\n  user:\n    token: ${canary}: x\n    other: [\n`);
    const output = await workerPass('kubeconfig-yaml', tokenConfig().replace(JSON.stringify(kube.kubeconfigPath), JSON.stringify(kubeconfig)), { CANARY_TOKEN: github.token });
    assert.match(output, /cannot read kubeconfig [^:]+: not valid YAML at line 6, column \d+: bad indentation of a mapping entry/);
    assertNoCanary(output, 'kubeconfig');
  });

  it('the webhook secret from Secrets Manager: malformed JSON, wrong shape', async () => {
    for (const id of ['github/webhook-malformed-json', 'github/webhook-wrong-shape']) {
      process.env[webhookSecretVariable] = id;
      const delivery = await gitHubDelivery({ event: 'ping', payload: { zen: 'hi' }, signature: `sha256=${'0'.repeat(64)}` });
      const { result: error, output } = await captureOutput(() => webhookHandler(delivery, lambdaContext('webhook')).then(() => assert.fail('answered'), (e: unknown) => e as Error));
      assert.match(error.message, new RegExp(`^cannot read secret ${id}: `));
      assertNoCanary([error.message, error.stack, output].join('\n'), id);
    }
  });
});
