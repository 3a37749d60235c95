// The dispatcher's message groups are clusters, however targets name them (issue 34 item 6): an EKS cluster named
// with a roleArn by one target and without one by another is one group when STS says the function runs in the role's
// account, so their passes never run at once. The real STS client asks a local STS (GetCallerIdentity, awsQuery
// over HTTP, pointed at by the SDK's own AWS_ENDPOINT_URL_STS) and the real SQS client sends to a local FIFO queue.
import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { createDispatcher } from '../../functions/lambda/dispatcher.ts';
import { sqsTargetQueue } from '../../functions/adapters/aws/target-queue.ts';
import { callerAccountOnce } from '../../functions/adapters/aws/caller-account.ts';
import { lambdaContext } from './lambda-context.ts';
import { startLocalSqs, type LocalSqs } from './local-sqs.ts';

const credentials = { accessKeyId: 'AKIDTEST', secretAccessKey: 'test-secret' };
const account = '111111111111';

const target = (name: string, allow: string, cluster: string): string => `
  - name: ${name}
    source:
      github: { owner: acme, repo: platform-gitops, branch: main, paths: ["k8s/**/*.yaml"], token: { env: GITHUB_TOKEN } }
    cluster:
      ${cluster}
    namespaces: { state: sts-${name}, allow: [${allow}] }`;

describe('message groups per cluster, as run time knows it', () => {
  let dir: string;
  let sqs: LocalSqs;
  let sts: Server;
  let stsEndpoint: string;
  const stsRequests: string[] = [];
  const saved: Record<string, string | undefined> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-cluster-groups-'));
    sqs = await startLocalSqs();
    sts = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk: Buffer) => { body += chunk.toString('utf8'); });
      request.on('end', () => {
        stsRequests.push(body);
        response.writeHead(200, { 'content-type': 'text/xml', 'x-amzn-requestid': 'r' }).end(
          `<GetCallerIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><GetCallerIdentityResult><Arn>arn:aws:sts::${account}:assumed-role/dispatcher/fn</Arn>`
          + `<UserId>AROAEXAMPLE:fn</UserId><Account>${account}</Account></GetCallerIdentityResult><ResponseMetadata><RequestId>r</RequestId></ResponseMetadata></GetCallerIdentityResponse>`,
        );
      });
    });
    await new Promise<void>((resolve) => sts.listen(0, '127.0.0.1', resolve));
    stsEndpoint = `http://127.0.0.1:${(sts.address() as AddressInfo).port}`;
    for (const [name, value] of Object.entries({ AWS_ENDPOINT_URL_STS: stsEndpoint, AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey })) {
      saved[name] = process.env[name];
      process.env[name] = value;
    }
  });
  after(async () => {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    sts.closeAllConnections();
    await new Promise<void>((resolve) => sts.close(() => resolve()));
    await sqs.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function dispatch(...targets: string[]): Promise<Array<{ target: string; group: string }>> {
    const configFile = join(dir, `config-${Math.random().toString(36).slice(2)}.yaml`);
    await writeFile(configFile, `targets:${targets.join('')}\n`);
    const queue = () => sqsTargetQueue(sqs.queueUrl, { endpoint: sqs.endpoint, region: 'eu-west-1', credentials });
    // The function's own account comes from STS, as deployed (the dispatcher's default asks once per cold start).
    const dispatcher = createDispatcher({ queue, env: { STS_VOLUME_GITOPS_CONFIG: configFile }, ownAccount: callerAccountOnce() });
    return (await dispatcher({ source: 'schedule' }, lambdaContext('dispatcher'))).enqueued;
  }

  it('groups one EKS cluster named with and without a roleArn as one cluster: the account STS names', async () => {
    const enqueued = await dispatch(
      target('platform', 'db', 'eks: { name: prod, region: eu-west-1 }'),
      target('team', 'cache', `eks: { name: prod, region: eu-west-1, roleArn: "arn:aws:iam::${account}:role/sts-volume-gitops" }`),
    );
    assert.deepEqual(enqueued.map((e) => e.target), ['platform', 'team']);
    assert.equal(enqueued[0]?.group, `eks:${account}/eu-west-1/prod`);
    assert.equal(enqueued[1]?.group, enqueued[0]?.group, 'their passes never run at once on the one cluster');
    assert.match(stsRequests.at(-1) ?? '', /Action=GetCallerIdentity/);
  });

  it('refuses the two when they share a namespace, and queues nothing', async () => {
    const before = sqs.messages.length;
    await assert.rejects(dispatch(
      target('platform', 'db', 'eks: { name: prod, region: eu-west-1 }'),
      target('team', 'db', `eks: { name: prod, region: eu-west-1, roleArn: "arn:aws:iam::${account}:role/sts-volume-gitops" }`),
    ), /target "platform" and target "team" both resize StatefulSets in namespace db on the same cluster/);
    assert.equal(sqs.messages.length, before);
  });
});
