// The GitHub App key through Powertools Parameters and the real Secrets Manager client, over HTTP against a local
// endpoint that answers GetSecretValue in the service's JSON protocol (awsJson1.1).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { privateKeyFromSecret, SecretReader, webhookSecretFromSecret } from '../../functions/adapters/github/secrets.ts';

const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n';
const secrets: Record<string, string> = {
  'github/sts-volume-gitops': JSON.stringify({ privateKey: pem }),
  'github/bare-pem': pem,
  'github/wrong-shape': JSON.stringify({ key: pem }),
};

/** A secret's text that must never appear in an error: no run of six of its characters may. */
const canary = 'Zq7vKx9Wp2Lm4Rt8YsQe';
function assertNoCanary(text: string, where: string): void {
  for (let i = 0; i + 6 <= canary.length; i++) assert.ok(!text.includes(canary.slice(i, i + 6)), `${where} quotes the secret: ${text}`);
}
function errorText(error: unknown): string {
  const { message, stack, cause } = error as Error;
  return [message, stack, String(cause), (cause as Error | undefined)?.stack, JSON.stringify(error)].join('\n');
}

/** Answers Secrets Manager would never give, but a proxy or a broken endpoint might: the SDK cannot read them. */
const rawAnswers: Record<string, { status: number; body: string }> = {
  'github/truncated': { status: 200, body: `{"ARN":"arn:aws:secretsmanager:eu-west-1:1:secret:x","Name":"x","SecretString":"${canary}` },
  'github/html-error': { status: 500, body: `<html>${canary}</html>` },
  'github/control-character': { status: 200, body: `{"Name":"x","SecretString":"a\u0001${canary}"}` },
};

describe('SecretReader (Powertools Parameters over Secrets Manager)', () => {
  const requests: Array<{ target: string; secretId: string }> = [];
  let server: ReturnType<typeof createServer>;
  let reader: SecretReader;

  before(async () => {
    server = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      request.on('end', () => {
        const target = String(request.headers['x-amz-target'] ?? '');
        const secretId = (JSON.parse(body) as { SecretId: string }).SecretId;
        requests.push({ target, secretId });
        if (secretId === 'github/empty') {
          // A secret created with no value (what the stack makes for the App key): no AWSCURRENT version yet.
          response.setHeader('Content-Type', 'application/x-amz-json-1.1');
          response.writeHead(400).end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'Secrets Manager can\'t find the specified secret value for staging label: AWSCURRENT' }));
          return;
        }
        const value = secrets[secretId];
        response.setHeader('Content-Type', 'application/x-amz-json-1.1');
        const raw = rawAnswers[secretId];
        if (raw !== undefined) {
          response.writeHead(raw.status).end(raw.body);
          return;
        }
        if (value === undefined) {
          response.writeHead(400).end(JSON.stringify({ __type: 'ResourceNotFoundException', message: 'Secrets Manager can\'t find the specified secret.' }));
          return;
        }
        response.writeHead(200).end(JSON.stringify({ ARN: `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${secretId}-AbCdEf`, Name: secretId, SecretString: value, VersionId: 'v1' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    reader = new SecretReader({
      clientConfig: {
        endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, region: 'eu-west-1',
        credentials: { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'secret' },
        maxAttempts: 1,
      },
    });
  });
  after(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('reads the documented JSON shape once and answers warm invocations from its cache', async () => {
    assert.equal(await reader.readGitHubPrivateKey('github/sts-volume-gitops'), pem);
    assert.equal(await reader.readGitHubPrivateKey('github/sts-volume-gitops'), pem);
    assert.deepEqual(requests.filter((r) => r.secretId === 'github/sts-volume-gitops'), [{ target: 'secretsmanager.GetSecretValue', secretId: 'github/sts-volume-gitops' }]);
  });

  it('accepts a bare PEM and refuses other shapes with the secret id and the expected shape', async () => {
    assert.equal(await reader.readGitHubPrivateKey('github/bare-pem'), pem.trim());
    await assert.rejects(reader.readGitHubPrivateKey('github/wrong-shape'), /cannot read secret github\/wrong-shape: the JSON has no "privateKey"/);
    assert.throws(() => privateKeyFromSecret('s', '{"privateKey": '), /cannot read secret s: the value starts like JSON but does not parse/);
    assert.throws(() => privateKeyFromSecret('s', 'hunter2'), /expected \{"privateKey": "<PEM>"\} or a PEM private key/);
  });

  it('says what to do when the secret exists but has no value yet (the stack creates the App key\'s secret empty)', async () => {
    await assert.rejects(reader.readGitHubPrivateKey('github/empty'), /cannot read secret github\/empty: the secret has no value yet .* store \{"privateKey": "<PEM>"\} in it, see infra\/README\.md step 5/);
  });

  it('names the secret and the service\'s reason when it cannot be read', async () => {
    await assert.rejects(reader.readString('github/missing'), /cannot read secret github\/missing: Secrets Manager can't find the specified secret/);
  });

  it('never puts a secret\'s text in an error: malformed JSON, wrong shapes, missing fields', () => {
    const values = [
      `{"privateKey": ${canary}}`, `{"kSecret": "${canary}"`, `{${canary}}`, `{"privateKey": "${canary}"}`, `{"key": "${canary}"}`,
      `{"webhookSecret": 42, "other": "${canary}"}`, `{"webhookSecret": "${canary.slice(0, 8)}"}`, canary, canary.slice(0, 10), `{"webhookSecret": "${canary}", }`,
    ];
    for (const value of values) {
      for (const read of [privateKeyFromSecret, webhookSecretFromSecret]) {
        let thrown: unknown;
        try {
          read('github/canary', value);
        } catch (error) {
          thrown = error;
        }
        if (thrown === undefined) continue; // a well-formed value (a bare webhook secret of 16 or more characters)
        assert.match((thrown as Error).message, /^cannot read secret github\/canary: /);
        assertNoCanary(errorText(thrown), `${read.name}(${JSON.stringify(value.slice(0, 12))}...)`);
      }
    }
    assert.throws(() => webhookSecretFromSecret('s', `{"webhookSecret": "${canary}"`), /does not parse \(\d+ characters; the parser's message is not shown/);
  });

  it('never puts the service\'s answer in an error when the SDK cannot read it (it may hold the secret)', async () => {
    for (const id of Object.keys(rawAnswers)) {
      const error = await reader.readString(id).then(() => assert.fail(`${id} was read`), (e: unknown) => e);
      assert.match((error as Error).message, new RegExp(`^cannot read secret ${id}: the answer \\(HTTP \\d+\\) could not be read`));
      assertNoCanary(errorText(error), id);
    }
  });
});
