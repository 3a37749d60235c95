// fetch (undici, as client-node and Node's own fetch use it) says only "fetch failed": the cause behind it is named
// from its `cause` chain, on real sockets.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { networkFailureOf } from '../../functions/adapters/kube/network-failure.ts';

async function failureOf(url: string): Promise<unknown> {
  return fetch(url).then(() => assert.fail('expected a failure'), (error: unknown) => error);
}

describe('networkFailureOf', () => {
  it('names a refused connection, a TLS handshake with a plain HTTP server, and a blocked port', async () => {
    const server = createServer((_request, response) => response.end('plain'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      assert.equal(networkFailureOf(await failureOf(`https://127.0.0.1:${port}/version`))?.kind, 'tls');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
    assert.deepEqual(networkFailureOf(await failureOf(`http://127.0.0.1:${port}/version`)), { kind: 'refused', detail: `connection refused by 127.0.0.1:${port} (ECONNREFUSED): nothing listens there` });
    assert.equal(networkFailureOf(await failureOf('http://127.0.0.1:9/version'))?.kind, 'blocked-port');
  });

  it('reads the first error of an AggregateError (several addresses tried) and a resolver that did not answer', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED ::1:6443'), { code: 'ECONNREFUSED', address: '::1', port: 6443 });
    const aggregate = new TypeError('fetch failed', { cause: new AggregateError([refused]) });
    assert.equal(networkFailureOf(aggregate)?.detail, 'connection refused by ::1:6443 (ECONNREFUSED): nothing listens there');
    const again = new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo EAI_AGAIN kube.example'), { code: 'EAI_AGAIN', hostname: 'kube.example' }) });
    assert.match(networkFailureOf(again)?.detail ?? '', /^the host name kube\.example does not resolve \(EAI_AGAIN: the DNS server did not answer/);
    assert.equal(networkFailureOf(new Error('HTTP protocol is not allowed when skipTLSVerify is not set or false')), undefined);
  });
});
