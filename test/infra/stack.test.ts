// The CDK stack synthesizes offline and holds what the function needs, with least-privilege grants.
import assert from 'node:assert/strict';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { StsVolumeGitopsStack } from '../../infra/stack.ts';

describe('StsVolumeGitopsStack', () => {
  let template: Template;

  before(async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sts-infra-'));
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, 'targets: []\n');
    const app = new App({ outdir: join(dir, 'cdk.out') });
    const stack = new StsVolumeGitopsStack(app, 'Test', {
      env: { account: '123456789012', region: 'eu-west-1' },
      configFile,
      eksClusters: [{ name: 'prod-eu', namespaces: ['db', 'cache'] }],
      secretsExtensionLayerArn: 'arn:aws:lambda:eu-west-1:015030872274:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12',
    });
    template = Template.fromStack(stack);
  });

  it('runs the handler on Node.js 22 arm64, one at a time, with its config and Powertools settings', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler', Timeout: 300, MemorySize: 512,
      ReservedConcurrentExecutions: 1,
      Environment: { Variables: Match.objectLike({ STS_VOLUME_GITOPS_CONFIG: '/var/task/config.yaml', POWERTOOLS_SERVICE_NAME: 'sts-volume-gitops' }) },
      Layers: ['arn:aws:lambda:eu-west-1:015030872274:layer:AWS-Parameters-and-Secrets-Lambda-Extension-Arm64:12'],
      DeadLetterConfig: Match.anyValue(),
    });
  });

  it('invokes it from EventBridge Scheduler with the schedule input and a dedicated role', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)', FlexibleTimeWindow: { Mode: 'OFF' },
      Target: Match.objectLike({ Input: '{"source":"schedule"}' }),
    });
    template.hasResourceProperties('AWS::IAM::Role', { AssumeRolePolicyDocument: Match.objectLike({ Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })] }) });
  });

  it('grants eks:DescribeCluster on the configured cluster only and maps the role with a namespace-scoped access entry', () => {
    const policies = template.findResources('AWS::IAM::Policy');
    const statements = Object.values(policies).flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Array<{ Action: unknown; Resource: unknown }> } } }).Properties.PolicyDocument.Statement);
    const describe = statements.find((s) => s.Action === 'eks:DescribeCluster');
    assert.ok(describe, 'eks:DescribeCluster is granted');
    assert.match(JSON.stringify(describe.Resource), /cluster\/prod-eu/);
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'prod-eu', Type: 'STANDARD',
      AccessPolicies: [{ PolicyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy', AccessScope: { Type: 'namespace', Namespaces: ['db', 'cache'] } }],
    });
  });

  it('keeps the GitHub key in Secrets Manager, readable by the function', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 1);
    const policies = JSON.stringify(template.findResources('AWS::IAM::Policy'));
    assert.match(policies, /secretsmanager:GetSecretValue/);
  });

  it('catches failed invocations in a queue and alarms on errors', () => {
    template.resourceCountIs('AWS::SQS::Queue', 1);
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'Errors', Threshold: 1 });
  });

  it('lets the scheduler role invoke the function and dead-letter to the queue, and nothing more', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      Target: Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 0 }, DeadLetterConfig: { Arn: Match.anyValue() } }),
    });
    const statements = Object.values(template.findResources('AWS::IAM::Policy'))
      .flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Array<{ Action: unknown }> } } }).Properties.PolicyDocument.Statement)
      .map((s) => s.Action);
    assert.ok(statements.some((a) => a === 'lambda:InvokeFunction'), 'the scheduler may invoke the function');
    assert.ok(statements.some((a) => Array.isArray(a) && a.includes('sqs:SendMessage')), 'failed deliveries reach the queue');
  });
});

describe('StsVolumeGitopsStack options', () => {
  async function synth(props: Partial<ConstructorParameters<typeof StsVolumeGitopsStack>[2]>): Promise<Template> {
    const dir = await mkdtemp(join(tmpdir(), 'sts-infra-'));
    const configFile = join(dir, 'config.yaml');
    await writeFile(configFile, 'targets: []\n');
    const app = new App({ outdir: join(dir, 'cdk.out') });
    const stack = new StsVolumeGitopsStack(app, 'Options', {
      env: { account: '123456789012', region: 'eu-west-1' },
      configFile,
      eksClusters: [],
      entry: fileURLToPath(new URL('fixtures/handler.ts', import.meta.url)),
      ...props,
    });
    return Template.fromStack(stack);
  }

  it('runs every minute when asked, with a singular rate unit, and takes a cluster-scoped access policy', async () => {
    const template = await synth({
      everyMinutes: 1,
      eksClusters: [{ name: 'ops', namespaces: [], accessPolicy: { policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminPolicy', scope: 'cluster' } }],
    });
    template.hasResourceProperties('AWS::Scheduler::Schedule', { ScheduleExpression: 'rate(1 minute)' });
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'ops', AccessPolicies: [{ PolicyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSAdminPolicy', AccessScope: { Type: 'cluster' } }],
    });
    template.resourceCountIs('AWS::EKS::AccessEntry', 1);
  });

  const badOptions: Array<[string, Partial<ConstructorParameters<typeof StsVolumeGitopsStack>[2]>, RegExp]> = [
    ['a schedule of zero minutes', { everyMinutes: 0 }, /everyMinutes must be a whole number/],
    ['a fractional schedule', { everyMinutes: 2.5 }, /everyMinutes must be a whole number/],
    ['a namespace-scoped policy without namespaces', { eksClusters: [{ name: 'empty', namespaces: [] }] }, /empty: a namespace-scoped access policy needs at least one namespace/],
  ];
  for (const [name, props, message] of badOptions) {
    it(`refuses ${name} with a clear error`, async () => {
      await assert.rejects(synth(props), message);
    });
  }
});
