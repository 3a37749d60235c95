// The GitHub App key through Powertools Parameters and the real Secrets Manager client, over HTTP against a local
// endpoint that answers GetSecretValue in the service's JSON protocol (awsJson1.1).
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { privateKeyFromSecret, SecretReader } from '../../functions/adapters/github/secrets.ts';

const pem = '-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----\n';
const secrets: Record<string, string> = {
  'github/sts-volume-gitops': JSON.stringify({ privateKey: pem }),
  'github/bare-pem': pem,
  'github/wrong-shape': JSON.stringify({ key: pem }),
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
});
