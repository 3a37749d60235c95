// Issue 30, item 5: when the cluster cannot be reached or read, check (and plan) name the cause and a fix that fits
// it, over real sockets: credentials the Kubernetes sandbox refuses (401), a host name that cannot resolve (`.invalid`
// never does), a local port nothing listens on, and an HTTP server that is not Kubernetes (404 on /version). And with
// no AWS credentials on the machine, the secrets the config names are said unreadable for that reason.
import assert from 'node:assert/strict';
import { writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';

describe('check: why the cluster cannot be reached, and what to do', () => {
  let sandboxes: CheckSandboxes;
  let notKubernetes: Server;

  /** A config whose cluster is `server`, reached with `token`. */
  async function configFor(name: string, server: string, token = 'a-token'): Promise<string> {
    const kubeconfig = join(sandboxes.dir, `kubeconfig-${name}`);
    await writeFile(kubeconfig, [
      'apiVersion: v1', 'kind: Config', 'current-context: ctx',
      `clusters: [{ name: far, cluster: { server: "${server}", insecure-skip-tls-verify: true } }]`,
      `users: [{ name: me, user: { token: "${token}" } }]`,
      'contexts: [{ name: ctx, context: { cluster: far, user: me } }]', '',
    ].join('\n'));
    return sandboxes.configFile(name, { kubeconfig });
  }

  async function reach(path: string): Promise<{ message: string; fix: string }> {
    const checked = await sandboxes.check(path);
    assert.equal(checked.code, 1);
    const result = checked.results.find((r) => r.id === 'cluster.reach');
    assert.equal(result?.level, 'error', checked.text);
    return { message: result?.message ?? '', fix: result?.fix ?? '' };
  }

  before(async () => {
    sandboxes = await startCheckSandboxes();
    notKubernetes = createServer((_request, response) => { response.writeHead(404).end(); });
    await new Promise<void>((resolve) => notKubernetes.listen(0, '127.0.0.1', resolve));
  });
  after(async () => {
    notKubernetes.closeAllConnections();
    await new Promise<void>((resolve) => notKubernetes.close(() => resolve()));
    await sandboxes.close();
  });

  it('says the credentials were refused (401) and how to get a valid token, and plan says the same', async () => {
    const path = await configFor('garbage-token', sandboxes.kube.url, 'garbage');
    const { message, fix } = await reach(path);
    assert.equal(message, 'the API server refused the credentials (401 Unauthorized): the token or client certificate is not valid there');
    assert.match(fix, /^the credentials of user me \(context ctx\) in kubeconfig .*kubeconfig-garbage-token are wrong, expired or for another cluster: get a valid token \(a ServiceAccount's: `kubectl create token NAME -n NAMESPACE`/);
    assert.doesNotMatch(fix, /network path/);
    const planned = await sandboxes.cli(['plan', '--config', path]);
    assert.match(planned.stdout, /target demo: error: the API server refused the credentials \(401 Unauthorized\)/);
  });

  it('says a host name does not resolve (DNS), not "fetch failed"', async () => {
    const { message, fix } = await reach(await configFor('dns', 'https://kube-api.sts-volume-gitops.invalid:6443'));
    assert.match(message, /^API server unreachable: the host name kube-api\.sts-volume-gitops\.invalid does not resolve \((ENOTFOUND|EAI_AGAIN)/);
    assert.match(fix, /^correct the server URL of cluster far \(context ctx\) in kubeconfig .*kubeconfig-dns \(https:\/\/kube-api\.sts-volume-gitops\.invalid:6443\), or run where that name resolves/);
  });

  it('says the connection was refused at a port nothing listens on, and plan says the same', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    const path = await configFor('refused', `http://127.0.0.1:${port}`);
    const { message, fix } = await reach(path);
    assert.equal(message, `API server unreachable: connection refused by 127.0.0.1:${port} (ECONNREFUSED): nothing listens there`);
    assert.match(fix, new RegExp(`^nothing listens at http://127\\.0\\.0\\.1:${port}: correct the server URL and port of cluster far`));
    const planned = await sandboxes.cli(['plan', '--config', path]);
    assert.match(planned.stdout, new RegExp(`target demo: error: API server unreachable: connection refused by 127\\.0\\.0\\.1:${port} \\(ECONNREFUSED\\)`));
  });

  it('says an endpoint answering 404 on /version is not a Kubernetes API server, and plan says the same', async () => {
    const server = `http://127.0.0.1:${(notKubernetes.address() as AddressInfo).port}`;
    const path = await configFor('not-kubernetes', server);
    const { message, fix } = await reach(path);
    assert.equal(message, `${server} is not a Kubernetes API server: GET /version answered HTTP 404, not the server's version`);
    assert.match(fix, /^set the server URL of cluster far .* to the cluster's API server/);
    const planned = await sandboxes.cli(['plan', '--config', path]);
    assert.match(planned.stdout, /target demo: error: http:\/\/127\.0\.0\.1:\d+ is not a Kubernetes API server/);
  });

  it('says the AWS credentials are missing, not that the secrets hold the wrong thing', async () => {
    const secrets = (t: string): string => t.replace(/recordKey: .*/, 'recordKey: { secret: sts-volume-gitops/record-key }');
    const path = await sandboxes.configFile('aws-secrets', { edit: secrets });
    const noCredentials = {
      AWS_REGION: 'eu-west-1', AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '', AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_CONFIG_FILE: '/nonexistent',
      AWS_EC2_METADATA_DISABLED: 'true', STS_VOLUME_GITOPS_WEBHOOK_SECRET: 'arn:aws:secretsmanager:eu-west-1:111122223333:secret:hook',
    };
    const checked = await sandboxes.cli(['check', '--config', path, '--json'], noCredentials);
    const report = JSON.parse(checked.stdout) as { targets: Array<{ results: Array<{ id: string; level: string; message: string; fix?: string }> }>; webhook: Array<{ level: string; message: string; fix?: string }> };
    const recordKey = report.targets[0]?.results.find((r) => r.id === 'config.record-key');
    assert.match(recordKey?.message ?? '', /^cannot read secret sts-volume-gitops\/record-key: no AWS credentials were found on this machine \(the AWS SDK's CredentialsProviderError: /);
    assert.match(recordKey?.fix ?? '', /^provide AWS credentials allowed secretsmanager:GetSecretValue on sts-volume-gitops\/record-key: `aws sso login --profile NAME`/);
    assert.doesNotMatch(recordKey?.fix ?? '', /openssl rand/);
    assert.match(report.webhook[0]?.message ?? '', /no AWS credentials were found on this machine/);
    assert.match(report.webhook[0]?.fix ?? '', /^provide AWS credentials allowed secretsmanager:GetSecretValue on arn:aws:secretsmanager/);
    assert.doesNotMatch(report.webhook[0]?.fix ?? '', /webhookSecret/);
  });
});
