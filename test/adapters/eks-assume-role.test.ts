// A cluster in another account: the role the config names is assumed through STS (the real client over HTTP, its
// awsQuery wire), and its temporary credentials describe the cluster and sign the EKS token.
import assert from 'node:assert/strict';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, it } from 'node:test';
import { STSClient } from '@aws-sdk/client-sts';
import { eksKubeConfig, eksKubeConfigOf } from '../../functions/adapters/kube/eks-cluster.ts';

const base = { accessKeyId: 'AKIDFUNCTIONROLE', secretAccessKey: 'function-role-secret' };
const roleArn = 'arn:aws:iam::210987654321:role/sts-volume-gitops-access';

interface Seen { path: string; body: string; authorization: string; securityToken: string | undefined }

function record(request: IncomingMessage, seen: Seen[], answer: (body: string) => { status: number; type: string; text: string }, response: ServerResponse): void {
  let body = '';
  request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
  request.on('end', () => {
    const header = request.headers['x-amz-security-token'];
    seen.push({ path: request.url ?? '', body, authorization: String(request.headers.authorization ?? ''), securityToken: Array.isArray(header) ? header[0] : header });
    const { status, type, text } = answer(body);
    response.writeHead(status, { 'content-type': type, 'x-amzn-requestid': 'req-1' }).end(text);
  });
}

describe('eksKubeConfig with an assumed role', () => {
  const sts: Seen[] = [];
  const eks: Seen[] = [];
  let stsServer: Server;
  let eksServer: Server;
  let stsEndpoint: string;
  let refuse = false;

  before(async () => {
    stsServer = createServer((request, response) => record(request, sts, () => (refuse
      ? { status: 403, type: 'text/xml', text: '<ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not authorized to perform sts:AssumeRole</Message></Error><RequestId>r</RequestId></ErrorResponse>' }
      : { status: 200, type: 'text/xml', text: `<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult><Credentials><AccessKeyId>ASIAASSUMED</AccessKeyId><SecretAccessKey>assumed-secret</SecretAccessKey><SessionToken>assumed-session-token</SessionToken><Expiration>2099-01-01T00:00:00Z</Expiration></Credentials><AssumedRoleUser><Arn>${roleArn}/s</Arn><AssumedRoleId>AROA:s</AssumedRoleId></AssumedRoleUser></AssumeRoleResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></AssumeRoleResponse>` }), response));
    eksServer = createServer((request, response) => record(request, eks, () => ({
      status: 200, type: 'application/json',
      text: JSON.stringify({ cluster: { name: 'prod-us', endpoint: 'https://XYZ.gr7.eu-west-1.eks.amazonaws.com', status: 'ACTIVE', certificateAuthority: { data: Buffer.from('CA').toString('base64') } } }),
    }), response));
    for (const server of [stsServer, eksServer]) await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    stsEndpoint = `http://127.0.0.1:${(stsServer.address() as AddressInfo).port}`;
  });
  after(async () => {
    for (const server of [stsServer, eksServer]) {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    }
  });

  async function withEksEndpoint<T>(work: () => Promise<T>): Promise<T> {
    // The SDK's own per-service endpoint variable: the EKS client is the one the adapter builds from the assumed credentials.
    process.env.AWS_ENDPOINT_URL_EKS = `http://127.0.0.1:${(eksServer.address() as AddressInfo).port}`;
    try {
      return await work();
    } finally {
      delete process.env.AWS_ENDPOINT_URL_EKS;
    }
  }

  it('assumes the role with its external ID, then describes the cluster and signs the token as that role', async () => {
    const config = await withEksEndpoint(() => eksKubeConfig({
      clusterName: 'prod-us', region: 'eu-west-1', credentials: base,
      assumeRole: { roleArn, externalId: 'acme-volumes', sessionName: 'sts-volume-gitops-req-1' },
      stsClient: new STSClient({ region: 'eu-west-1', endpoint: stsEndpoint, credentials: base }),
    }));
    assert.equal(sts.length, 1);
    const form = new URLSearchParams(sts[0]?.body);
    assert.equal(form.get('Action'), 'AssumeRole');
    assert.equal(form.get('RoleArn'), roleArn);
    assert.equal(form.get('ExternalId'), 'acme-volumes');
    assert.equal(form.get('RoleSessionName'), 'sts-volume-gitops-req-1');
    assert.match(sts[0]?.authorization ?? '', /Credential=AKIDFUNCTIONROLE\//, 'STS is called with the function role');
    assert.deepEqual(eks.map((e) => e.path), ['/clusters/prod-us']);
    assert.match(eks[0]?.authorization ?? '', /Credential=ASIAASSUMED\//, 'EKS is called as the assumed role');
    assert.equal(eks[0]?.securityToken, 'assumed-session-token');
    const token = config.getCurrentUser()?.token ?? '';
    const url = new URL(Buffer.from(token.slice('k8s-aws-v1.'.length), 'base64url').toString('utf8'));
    assert.match(url.searchParams.get('X-Amz-Credential') ?? '', /^ASIAASSUMED\//);
    assert.equal(url.searchParams.get('X-Amz-Security-Token'), 'assumed-session-token');
    assert.equal(config.getCurrentCluster()?.server, 'https://XYZ.gr7.eu-west-1.eks.amazonaws.com');
  });

  it('reaches a configured cluster (cluster.eks) through its roleArn and externalId, the session named within STS\'s 64 characters', async () => {
    // The deployed function and the CLI both go through eksKubeConfigOf, starting from the machine's credentials.
    const variables = { AWS_ACCESS_KEY_ID: base.accessKeyId, AWS_SECRET_ACCESS_KEY: base.secretAccessKey, AWS_ENDPOINT_URL_STS: stsEndpoint, AWS_EC2_METADATA_DISABLED: 'true' };
    const saved = Object.fromEntries(Object.keys(variables).map((name) => [name, process.env[name]]));
    Object.assign(process.env, variables);
    sts.length = 0;
    try {
      const longSession = `sts-volume-gitops-${'7'.repeat(80)}`;
      // Another cluster than the tests above use: eksKubeConfig caches per role, region and cluster.
      const config = await withEksEndpoint(() => eksKubeConfigOf({ name: 'prod-configured', region: 'eu-west-1', roleArn, externalId: 'acme-volumes' }, longSession));
      const form = new URLSearchParams(sts[0]?.body);
      assert.deepEqual([form.get('RoleArn'), form.get('ExternalId'), form.get('RoleSessionName')], [roleArn, 'acme-volumes', longSession.slice(0, 64)]);
      assert.match(sts[0]?.authorization ?? '', /Credential=AKIDFUNCTIONROLE\//, 'STS is called with the machine\'s credentials');
      assert.equal(config.getCurrentCluster()?.server, 'https://XYZ.gr7.eu-west-1.eks.amazonaws.com');
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
    }
  });

  it('names the role when STS refuses it', async () => {
    refuse = true;
    await assert.rejects(withEksEndpoint(() => eksKubeConfig({
      clusterName: 'prod-other', region: 'eu-west-1', credentials: base,
      assumeRole: { roleArn, externalId: 'wrong', sessionName: 's' },
      stsClient: new STSClient({ region: 'eu-west-1', endpoint: stsEndpoint, credentials: base }),
    })), /cannot assume arn:aws:iam::210987654321:role\/sts-volume-gitops-access \(with its external ID\): not authorized/);
  });
});
