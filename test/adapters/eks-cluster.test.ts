import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, it } from 'node:test';
import { EKSClient } from '@aws-sdk/client-eks';
import { eksKubeConfig, eksToken } from '../../functions/adapters/kube/eks-cluster.ts';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const now = () => new Date('2026-11-23T10:00:00Z');

function decode(token: string): URL {
  assert.ok(token.startsWith('k8s-aws-v1.'));
  const encoded = token.slice('k8s-aws-v1.'.length);
  assert.doesNotMatch(encoded, /[=+/]/, 'base64url without padding');
  return new URL(Buffer.from(encoded, 'base64url').toString('utf8'));
}

describe('eksToken', () => {
  it('is a presigned STS GetCallerIdentity URL that signs the cluster name header', async () => {
    const url = decode(await eksToken({ clusterName: 'prod-eu', region: 'eu-west-1', credentials, now }));
    assert.equal(url.origin, 'https://sts.eu-west-1.amazonaws.com');
    assert.equal(url.searchParams.get('Action'), 'GetCallerIdentity');
    assert.equal(url.searchParams.get('Version'), '2011-06-15');
    assert.equal(url.searchParams.get('X-Amz-Algorithm'), 'AWS4-HMAC-SHA256');
    assert.equal(url.searchParams.get('X-Amz-Credential'), 'AKIDEXAMPLE/20261123/eu-west-1/sts/aws4_request');
    assert.equal(url.searchParams.get('X-Amz-Date'), '20261123T100000Z');
    assert.equal(url.searchParams.get('X-Amz-Expires'), '60');
    assert.equal(url.searchParams.get('X-Amz-SignedHeaders'), 'host;x-k8s-aws-id');
    assert.match(url.searchParams.get('X-Amz-Signature') ?? '', /^[0-9a-f]{64}$/);
  });

  it('signs differently for another cluster, so a token cannot be replayed elsewhere', async () => {
    const a = decode(await eksToken({ clusterName: 'a', region: 'eu-west-1', credentials, now }));
    const b = decode(await eksToken({ clusterName: 'b', region: 'eu-west-1', credentials, now }));
    assert.notEqual(a.searchParams.get('X-Amz-Signature'), b.searchParams.get('X-Amz-Signature'));
  });
});

describe('eksKubeConfig', () => {
  it('reads endpoint and CA with DescribeCluster over HTTP and builds a kubeconfig with the token', async () => {
    const requests: string[] = [];
    const server = createServer((request, response) => {
      requests.push(`${request.method ?? ''} ${request.url ?? ''}`);
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ cluster: { name: 'prod-eu', endpoint: 'https://ABC.gr7.eu-west-1.eks.amazonaws.com', status: 'ACTIVE', certificateAuthority: { data: Buffer.from('CA').toString('base64') } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const config = await eksKubeConfig({
        clusterName: 'prod-eu', region: 'eu-west-1', credentials, now,
        eksClient: new EKSClient({ region: 'eu-west-1', endpoint, credentials }),
      });
      assert.deepEqual(requests, ['GET /clusters/prod-eu']);
      assert.equal(config.getCurrentCluster()?.server, 'https://ABC.gr7.eu-west-1.eks.amazonaws.com');
      assert.equal(config.getCurrentCluster()?.caData, Buffer.from('CA').toString('base64'));
      assert.match(config.getCurrentUser()?.token ?? '', /^k8s-aws-v1\./);
      await eksKubeConfig({ clusterName: 'prod-eu', region: 'eu-west-1', credentials, now, eksClient: new EKSClient({ region: 'eu-west-1', endpoint, credentials }) });
      assert.equal(requests.length, 1, 'the kubeconfig is cached while the token is valid');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('asks again for the cluster and a fresh token once the cached token is within a minute of expiring', async () => {
    let describes = 0;
    const server = createServer((_request, response) => {
      describes += 1;
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ cluster: { name: 'renewed', endpoint: 'https://renewed.example', status: 'ACTIVE', certificateAuthority: { data: 'Q0E=' } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      let clock = new Date('2026-11-23T10:00:00Z');
      const options = { clusterName: 'renewed', region: 'eu-west-1', credentials, now: () => clock, eksClient: new EKSClient({ region: 'eu-west-1', endpoint, credentials }) };
      const first = (await eksKubeConfig(options)).getCurrentUser()?.token;
      clock = new Date('2026-11-23T10:13:59Z');
      assert.equal((await eksKubeConfig(options)).getCurrentUser()?.token, first);
      assert.equal(describes, 1);
      clock = new Date('2026-11-23T10:14:01Z');
      const renewed = (await eksKubeConfig(options)).getCurrentUser()?.token;
      assert.equal(describes, 2);
      assert.notEqual(renewed, first);
      assert.equal(decode(renewed ?? '').searchParams.get('X-Amz-Date'), '20261123T101401Z');
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  it('re-mints a cached token that would expire before the invocation ends, and refuses a time no token covers', async () => {
    let describes = 0;
    const server = createServer((_request, response) => {
      describes += 1;
      response.writeHead(200, { 'Content-Type': 'application/json' });
      response.end(JSON.stringify({ cluster: { name: 'deadline', endpoint: 'https://deadline.example', status: 'ACTIVE', certificateAuthority: { data: 'Q0E=' } } }));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      let clock = new Date('2026-11-23T10:00:00Z');
      const options = { clusterName: 'deadline', region: 'eu-west-1', credentials, now: () => clock, eksClient: new EKSClient({ region: 'eu-west-1', endpoint, credentials }) };
      const first = (await eksKubeConfig({ ...options, validForMs: 300_000 })).getCurrentUser()?.token;
      clock = new Date('2026-11-23T10:08:00Z'); // 6 minutes of the token left, 5 asked for: reused
      assert.equal((await eksKubeConfig({ ...options, validForMs: 300_000 })).getCurrentUser()?.token, first);
      clock = new Date('2026-11-23T10:10:00Z'); // 4 minutes left, 5 asked for: a new one
      const renewed = (await eksKubeConfig({ ...options, validForMs: 300_000 })).getCurrentUser()?.token;
      assert.notEqual(renewed, first);
      assert.equal(decode(renewed ?? '').searchParams.get('X-Amz-Date'), '20261123T101000Z');
      assert.equal(describes, 2);
      await assert.rejects(eksKubeConfig({ ...options, validForMs: 15 * 60_000 }), /an EKS token lives 14 minutes, less than the 15 asked for/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });
});
