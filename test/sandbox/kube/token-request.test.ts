// `kubectl create token NAME`: the TokenRequest subresource, sent as kubectl sends it (protobuf, client-go's typed
// client) and as client-node sends it (JSON); the token it returns is a ServiceAccount's, restricted by RBAC, until it
// expires or the ServiceAccount is gone.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api } from '@kubernetes/client-node';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { failure } from './fixtures.ts';

/** Protobuf as gogo-protobuf writes Kubernetes objects: varints, and length-delimited strings and messages. */
function varint(value: number): Buffer {
  const bytes: number[] = [];
  let rest = value;
  while (rest >= 0x80) {
    bytes.push((rest % 0x80) | 0x80);
    rest = Math.floor(rest / 0x80);
  }
  bytes.push(rest);
  return Buffer.from(bytes);
}
const bytes = (field: number, value: Buffer | string): Buffer => {
  const data = typeof value === 'string' ? Buffer.from(value) : value;
  return Buffer.concat([varint(field * 8 + 2), varint(data.length), data]);
};
const number = (field: number, value: number): Buffer => Buffer.concat([varint(field * 8), varint(value)]);

/** The body `kubectl create token deployer --audience vault --duration 2h` sends: `k8s\0` + runtime.Unknown. */
function kubectlTokenRequest(spec: { audiences?: string[]; expirationSeconds?: number }): Buffer {
  const request = Buffer.concat([
    bytes(1, bytes(8, Buffer.alloc(0))), // metadata: only an empty creationTimestamp
    bytes(2, Buffer.concat([...(spec.audiences ?? []).map((a) => bytes(1, a)), ...(spec.expirationSeconds === undefined ? [] : [number(4, spec.expirationSeconds)])])),
    bytes(3, Buffer.concat([bytes(1, ''), bytes(2, Buffer.alloc(0))])), // status: empty token and time
  ]);
  const typeMeta = Buffer.concat([bytes(1, 'authentication.k8s.io/v1'), bytes(2, 'TokenRequest')]);
  return Buffer.concat([Buffer.from('k8s\0'), bytes(1, typeMeta), bytes(2, request), bytes(3, ''), bytes(4, '')]);
}

interface TokenRequest {
  kind: string;
  apiVersion: string;
  metadata: { name: string; namespace: string; creationTimestamp: string };
  spec: { audiences: string[]; expirationSeconds: number; boundObjectRef: unknown };
  status: { token: string; expirationTimestamp: string };
}

describe('the TokenRequest subresource (kubectl create token)', () => {
  let kube: KubeSandbox;
  let clock = new Date('2026-03-01T12:00:00Z');
  const url = '/api/v1/namespaces/db/serviceaccounts';
  const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => fetch(`${kube.url}${path}`, {
    method, headers: { 'Content-Type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: Buffer.isBuffer(body) ? body : JSON.stringify(body) }),
  });
  const asToken = (token: string, path: string): Promise<Response> => send('GET', path, undefined, { Authorization: `Bearer ${token}` });

  before(async () => {
    kube = await startKubeSandbox({ now: () => clock, seed: { namespaces: ['db'] } });
    const rbac = 'rbac.authorization.k8s.io';
    for (const [path, object] of [
      [url, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'deployer' } }],
      [`/apis/${rbac}/v1/namespaces/db/roles`, { apiVersion: `${rbac}/v1`, kind: 'Role', metadata: { name: 'cm-reader' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] }],
      [`/apis/${rbac}/v1/namespaces/db/rolebindings`, {
        apiVersion: `${rbac}/v1`, kind: 'RoleBinding', metadata: { name: 'deployer-reads' },
        roleRef: { apiGroup: rbac, kind: 'Role', name: 'cm-reader' }, subjects: [{ kind: 'ServiceAccount', name: 'deployer' }],
      }],
    ] as const) assert.equal((await send('POST', path, object)).status, 201, path);
  });
  after(() => kube.close());

  it('answers kubectl\'s protobuf request with the real TokenRequest, whose token is the ServiceAccount\'s under RBAC', async () => {
    const response = await send('POST', `${url}/deployer/token`, kubectlTokenRequest({ audiences: ['vault'], expirationSeconds: 7200 }), {
      'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/vnd.kubernetes.protobuf, */*',
    });
    assert.equal(response.status, 201);
    const answer = await response.json() as TokenRequest;
    assert.deepEqual({ ...answer, status: { ...answer.status, token: '' } }, {
      kind: 'TokenRequest', apiVersion: 'authentication.k8s.io/v1',
      metadata: { name: 'deployer', namespace: 'db', creationTimestamp: '2026-03-01T12:00:00Z' },
      spec: { audiences: ['vault'], expirationSeconds: 7200, boundObjectRef: null },
      status: { token: '', expirationTimestamp: '2026-03-01T14:00:00Z' },
    });
    const [, payload] = answer.status.token.split('.');
    const claims = JSON.parse(Buffer.from(payload ?? '', 'base64url').toString('utf8')) as Record<string, unknown>;
    assert.equal(claims.sub, 'system:serviceaccount:db:deployer');
    assert.deepEqual(claims.aud, ['vault']);
    assert.equal(claims.exp, Date.parse('2026-03-01T14:00:00Z') / 1000);
    assert.equal((await asToken(answer.status.token, '/api/v1/namespaces/db/configmaps')).status, 200);
    const denied = await asToken(answer.status.token, '/api/v1/namespaces/db/pods');
    assert.equal(denied.status, 403);
    assert.equal((await denied.json() as { message: string }).message,
      'pods is forbidden: User "system:serviceaccount:db:deployer" cannot list resource "pods" in API group "" in the namespace "db"');
  });

  it('defaults to an hour for the API server\'s audience through client-node, and the token stops working when it expires', async () => {
    const core = kube.kubeConfig().makeApiClient(CoreV1Api);
    const answer = await core.createNamespacedServiceAccountToken({ name: 'deployer', namespace: 'db', body: { spec: { audiences: [] } } });
    assert.deepEqual([answer.spec?.audiences, answer.spec?.expirationSeconds], [['https://kubernetes.default.svc.cluster.local'], 3600]);
    const token = answer.status?.token ?? '';
    assert.equal((await asToken(token, '/api/v1/namespaces/db/configmaps')).status, 200);
    clock = new Date(clock.getTime() + 3600 * 1000);
    assert.equal((await asToken(token, '/api/v1/namespaces/db/configmaps')).status, 401);
  });

  it('refuses what the real server refuses, in its words', async () => {
    const missing = await send('POST', `${url}/nobody/token`, { spec: {} });
    assert.deepEqual([missing.status, (await missing.json() as { message: string }).message], [404, 'serviceaccounts "nobody" not found']);
    const short = await send('POST', `${url}/deployer/token`, { spec: { expirationSeconds: 60 } });
    assert.deepEqual([short.status, (await short.json() as { message: string }).message],
      [422, 'TokenRequest.authentication.k8s.io "" is invalid: spec.expirationSeconds: Invalid value: 60: may not specify a duration less than 10 minutes']);
    const renamed = await send('POST', `${url}/deployer/token`, { metadata: { name: 'other' }, spec: {} });
    assert.equal((await renamed.json() as { message: string }).message,
      'TokenRequest.authentication.k8s.io "deployer" is invalid: metadata.name: Invalid value: "other": must match the service account name if specified');
    assert.equal((await send('GET', `${url}/deployer/token`)).status, 405);
    const discovery = await (await send('GET', '/api/v1')).json() as { resources: Array<{ name: string; kind: string; verbs: string[] }> };
    assert.deepEqual(discovery.resources.find((r) => r.name === 'serviceaccounts/token'), {
      name: 'serviceaccounts/token', singularName: '', namespaced: true, group: 'authentication.k8s.io', version: 'v1', kind: 'TokenRequest', verbs: ['create'],
    });
  });

  it('stops accepting a token once its ServiceAccount is deleted', async () => {
    const answer = await (await send('POST', `${url}/deployer/token`, { spec: {} })).json() as TokenRequest;
    assert.equal((await asToken(answer.status.token, '/api/v1/namespaces/db/configmaps')).status, 200);
    assert.equal((await send('DELETE', `${url}/deployer`)).status, 200);
    assert.equal((await asToken(answer.status.token, '/api/v1/namespaces/db/configmaps')).status, 401);
    const core = kube.kubeConfig().makeApiClient(CoreV1Api);
    assert.equal((await failure(core.createNamespacedServiceAccountToken({ name: 'deployer', namespace: 'db', body: { spec: { audiences: [] } } }))).code, 404);
  });
});
