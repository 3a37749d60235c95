// Issue 30, item 6: `plan` (read-only) reaches an `eks:` target from a laptop with the operator's AWS credentials, as
// `check` does; `reconcile` (writes) is refused there with exit 2 and the reason. The CLI runs as a child process with
// AWS credentials in its environment; the real EKSClient asks a local DescribeCluster (AWS_ENDPOINT_URL_EKS), and the
// Kubernetes sandbox, behind an HTTPS endpoint with its own CA, accepts a token only as EKS does (test/support/fake-eks.ts).
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startFakeEks, type FakeEks } from '../support/fake-eks.ts';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';
import { startLocalSqs } from '../lambda/local-sqs.ts';

const credentials = { accessKeyId: 'AKIAOPERATORLAPTOP01', secretAccessKey: 'operator-laptop-secret-access-key-0123456' };

describe('plan and check from a laptop against an EKS cluster', () => {
  let sandboxes: CheckSandboxes;
  let eks: FakeEks;
  let config: string;
  let aws: Record<string, string>;

  before(async () => {
    sandboxes = await startCheckSandboxes();
    const kubeconfigTarget = await sandboxes.configFile('kubeconfig-target');
    // The operator's IAM principal, mapped by its access entry to a group granted what `rbac` generates.
    await sandboxes.toolIdentity('eks-operators', kubeconfigTarget);
    eks = await startFakeEks(sandboxes.kube, { clusterName: 'prod-eu', region: 'eu-west-1', credentials, user: { name: 'arn:aws:sts::111122223333:assumed-role/operator/laptop', groups: ['eks-operators'] } });
    config = await sandboxes.configFile('eks', { edit: (t) => t.replace(/kubeconfig: \{ path: .* \}/, 'eks: { name: prod-eu, region: eu-west-1 }') });
    // Only these credentials: no profile, file or instance metadata of the machine running the tests.
    aws = {
      AWS_ACCESS_KEY_ID: credentials.accessKeyId, AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey, AWS_ENDPOINT_URL_EKS: eks.eksEndpoint,
      AWS_SHARED_CREDENTIALS_FILE: '/nonexistent', AWS_CONFIG_FILE: '/nonexistent', AWS_EC2_METADATA_DISABLED: 'true',
    };
  });
  after(async () => {
    await eks.close();
    await sandboxes.close();
  });

  it('plans with the operator\'s AWS credentials: DescribeCluster, then the cluster with an EKS token, writing nothing', async () => {
    sandboxes.kube.requestLog.reset();
    const planned = await sandboxes.cli(['plan', '--config', config], aws);
    assert.equal(planned.code, 0, planned.stdout + planned.stderr);
    assert.match(planned.stdout, /^Plan for target demo at commit [0-9a-f]{12}\n {2}server v1\.34\.9/);
    assert.match(planned.stdout, /~ db\/pg \(OrderedReady, 3 replicas\): will resize/);
    assert.deepEqual(eks.describes.at(-1), { cluster: 'prod-eu', accessKeyId: credentials.accessKeyId });
    assert.ok(eks.tokens.accepted > 0, 'the cluster was read with an EKS token');
    assert.deepEqual(sandboxes.kube.requestLog.writes(), [], 'plan writes nothing');
  });

  it('checks the same way, and says the token was refused when the credentials are not the principal\'s', async () => {
    const checked = await sandboxes.cli(['check', '--config', config], aws);
    assert.match(checked.stdout, /ok +cluster\.reach +https:\/\/127\.0\.0\.1:\d+: reachable as sts-volume-gitops/);
    assert.match(checked.stdout, /ok +cluster\.access +permissions: all \d+ verbs the tool uses are allowed/);
    const refused = await sandboxes.cli(['check', '--config', config], { ...aws, AWS_SECRET_ACCESS_KEY: 'not-the-principals-secret' });
    assert.equal(refused.code, 1);
    assert.match(refused.stdout, /error +cluster\.reach +https:\/\/127\.0\.0\.1:\d+: the API server refused the credentials \(401 Unauthorized\)/);
    assert.match(refused.stdout, /fix: EKS did not accept this IAM identity \(`aws sts get-caller-identity` shows which\): give it an access entry on prod-eu in group sts-volume-gitops/);
  });

  it('says whether the cluster honours access entries (issue 37 item 6): API or API_AND_CONFIG_MAP, not CONFIG_MAP', async () => {
    const honoured = await sandboxes.cli(['check', '--config', config], aws);
    assert.match(honoured.stdout, /ok +cluster\.eks-access +EKS prod-eu: authentication mode API_AND_CONFIG_MAP: access entries are honoured \(the access entry the stack creates for the function's role among them\)/);
    eks.setAuthenticationMode('CONFIG_MAP');
    try {
      const ignored = await sandboxes.cli(['check', '--config', config], aws);
      assert.equal(ignored.code, 1, ignored.stdout);
      assert.match(ignored.stdout, /error +cluster\.eks-access +EKS prod-eu: authentication mode CONFIG_MAP: access entries are ignored, so the access entry the stack creates for the function's role maps nothing/);
      assert.match(ignored.stdout, /fix: `aws eks update-cluster-config --name prod-eu --region eu-west-1 --access-config authenticationMode=API_AND_CONFIG_MAP`/);
    } finally {
      eks.setAuthenticationMode('API_AND_CONFIG_MAP');
    }
  });

  it('reads the stack\'s secrets in the cluster\'s region when this machine sets none (issue 37 item 7)', async () => {
    const secrets = await startLocalSqs({ secrets: { 'sts-volume-gitops/record-key': JSON.stringify({ recordKey: 'r'.repeat(40) }) } });
    try {
      const withSecret = await sandboxes.configFile('eks-secret', { edit: (t) => t.replace(/kubeconfig: \{ path: .* \}/, 'eks: { name: prod-eu, region: eu-west-1 }').replace(/recordKey: \{ env: \w+ \}/, 'recordKey: { secret: sts-volume-gitops/record-key }') });
      assert.equal(process.env.AWS_REGION ?? process.env.AWS_DEFAULT_REGION, undefined, 'this machine sets no region');
      const checked = await sandboxes.cli(['check', '--config', withSecret], { ...aws, AWS_ENDPOINT_URL_SECRETS_MANAGER: secrets.endpoint });
      assert.doesNotMatch(checked.stdout, /no AWS region is set/);
      assert.match(checked.stdout, /ok +config\.record-key +recordKey: readable/);
      assert.deepEqual(secrets.signedRegions, ['eu-west-1']);
    } finally {
      await secrets.close();
    }
  });

  it('says the AWS credentials are missing when there are none, for plan and check', async () => {
    const none = { ...aws, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' };
    const planned = await sandboxes.cli(['plan', '--config', config], none);
    assert.equal(planned.code, 1);
    assert.match(planned.stdout, /target demo: error: cannot reach EKS cluster prod-eu \(eu-west-1\): no AWS credentials were found on this machine \(the AWS SDK's CredentialsProviderError: /);
    const checked = await sandboxes.cli(['check', '--config', config], none);
    assert.match(checked.stdout, /error +cluster\.reach +EKS prod-eu: cannot reach EKS cluster prod-eu \(eu-west-1\): no AWS credentials were found/);
    assert.match(checked.stdout, /fix: provide AWS credentials allowed eks:DescribeCluster on prod-eu: `aws sso login --profile NAME`/);
    // The fix is said once, on its line: the message says what is missing, and no second fix in other words.
    assert.equal(checked.stdout.match(/eks:DescribeCluster/g)?.length, 1, checked.stdout);
    // plan, which has no fix line, says the same fix in its message.
    assert.match(planned.stdout, /no AWS credentials were found on this machine \(the AWS SDK's CredentialsProviderError: [^\n]*\); provide AWS credentials allowed eks:DescribeCluster on prod-eu: `aws sso login --profile NAME`/);
  });

  it('refuses reconcile against EKS with exit 2 and the reason, before asking AWS anything', async () => {
    const before = eks.describes.length;
    const reconciled = await sandboxes.cli(['reconcile', '--config', config], aws);
    assert.equal(reconciled.code, 2, reconciled.stdout + reconciled.stderr);
    assert.match(reconciled.stderr, /target demo: reconcile does not write to an EKS cluster from here; the deployed function does, as the role the RBAC manifest grants and with the record key only it reads\. Run `plan` here/);
    assert.equal(eks.describes.length, before);
  });
});
