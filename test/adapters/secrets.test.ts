import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { readSecretString } from '../../functions/adapters/github/secrets.ts';

describe('readSecretString over the Parameters and Secrets extension endpoint', () => {
  it('sends the session token header and returns SecretString; reports errors with the secret id', async () => {
    const server = createServer((request, response) => {
      const url = new URL(request.url ?? '/', 'http://x');
      if (request.headers['x-aws-parameters-secrets-token'] !== 'session') {
        response.writeHead(401).end('missing token');
        return;
      }
      if (url.searchParams.get('secretId') === 'not-json') {
        response.writeHead(200, { 'Content-Type': 'text/html' }).end('<html>proxy</html>');
        return;
      }
      if (url.searchParams.get('secretId') === 'github/app-key') {
        response.writeHead(200, { 'Content-Type': 'application/json' }).end(JSON.stringify({ Name: 'github/app-key', SecretString: '-----BEGIN KEY-----' }));
        return;
      }
      response.writeHead(400).end('ResourceNotFoundException: Secrets Manager can\'t find the specified secret.');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      assert.equal(await readSecretString('github/app-key', { port, host: '127.0.0.1', sessionToken: 'session' }), '-----BEGIN KEY-----');
      await assert.rejects(readSecretString('missing', { port, host: '127.0.0.1', sessionToken: 'session' }), /cannot read secret missing: the extension answered 400: ResourceNotFoundException/);
      await assert.rejects(readSecretString('not-json', { port, host: '127.0.0.1', sessionToken: 'session' }), /cannot read secret not-json: the extension answered with something other than JSON: <html>proxy/);
      await assert.rejects(readSecretString('x', { port, host: '127.0.0.1', sessionToken: '' }), /AWS_SESSION_TOKEN is not set/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
