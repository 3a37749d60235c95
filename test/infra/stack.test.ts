// The CDK stack synthesizes offline from the tool's configuration and holds what the function needs, with
// least-privilege grants, alarms that notify someone, and logs that expire.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { App, Duration, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as logs from 'aws-cdk-lib/aws-logs';
import { buildLambdaBundle, lambdaBundle, lambdaEntries } from '../../infra/lambda-bundle.ts';
import { StsVolumeGitopsStack, type StsVolumeGitopsStackProps } from '../../infra/stack.ts';

const eksConfig = `targets:
  - name: prod-eu
    source:
      github:
        owner: acme
        repo: platform-gitops
        branch: main
        paths: ["k8s/**/*.yaml"]
        app: { appId: 123, installationId: 456, privateKey: { secret: github/sts-volume-gitops } }
    cluster:
      eks: { name: prod-eu, region: eu-west-1 }
    namespaces: { default: platform, allow: [db, cache] }
  - name: prod-eu-analytics
    source:
      github:
        owner: acme
        repo: analytics-gitops
        branch: main
        paths: ["**/*.yaml"]
        app: { appId: 123, installationId: 789, privateKey: { secret: github/sts-volume-gitops } }
    cluster:
      eks: { name: prod-eu, region: eu-west-1 }
    namespaces: { default: analytics, allow: [analytics] }
`;

const fixtureEntry = fileURLToPath(new URL('fixtures/handler.ts', import.meta.url));

type Props = Partial<StsVolumeGitopsStackProps>;
const env = { account: '123456789012', region: 'eu-west-1' };

async function synth(props: Props | ((app: App) => Props) = {}, configText = eksConfig, outdir?: string, options: { realEntries?: boolean } = {}): Promise<Template> {
  const dir = outdir ?? await mkdtemp(join(tmpdir(), 'sts-infra-'));
  const configFile = join(dir, 'config.yaml');
  await writeFile(configFile, configText);
  const app = new App({ outdir: join(dir, 'cdk.out') });
  const stack = new StsVolumeGitopsStack(app, 'Test', {
    env, configFile, ...(options.realEntries ? {} : { entry: fixtureEntry }), ...(typeof props === 'function' ? props(app) : props),
  });
  return Template.fromStack(stack);
}

type Statement = { Action: unknown; Resource: unknown; Effect: string };
function statements(template: Template): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement);
}

describe('StsVolumeGitopsStack', () => {
  let template: Template;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-infra-'));
    // The real entries: synth bundles each with the shared definition (infra/lambda-bundle.ts).
    template = await synth({ alarmEmail: 'oncall@example.com' }, eksConfig, dir, { realEntries: true });
  });

  it('ships exactly the bundles the tests build and run (one esbuild definition), each with the config beside it', async () => {
    const assets = (await readdir(join(dir, 'cdk.out'))).filter((name) => name.startsWith('asset.'));
    assert.equal(assets.length, 3, 'dispatcher, worker, webhook');
    const shipped = await Promise.all(assets.map((a) => readFile(join(dir, 'cdk.out', a, lambdaBundle.outfileName))));
    for (const [name, entry] of Object.entries(lambdaEntries)) {
      const built = await buildLambdaBundle({ outdir: join(dir, 'built', name), configFile: join(dir, 'config.yaml'), entry });
      const bytes = await readFile(built.file);
      assert.equal(shipped.filter((s) => s.equals(bytes)).length, 1, `the ${name} bundle ships, byte for byte`);
    }
    for (const asset of assets) assert.equal(await readFile(join(dir, 'cdk.out', asset, lambdaBundle.configFileName), 'utf8'), eksConfig);
  });

  it('runs the worker on Node.js 22 arm64 with its reserved concurrency, bundled config, Powertools settings and no layers', () => {
    template.hasResourceProperties('AWS::Lambda::Function', {
      Runtime: 'nodejs22.x', Architectures: ['arm64'], Handler: 'index.handler', Timeout: 300, MemorySize: 512,
      ReservedConcurrentExecutions: 5,
      Environment: { Variables: Match.objectLike({ STS_VOLUME_GITOPS_CONFIG: '/var/task/config.yaml', POWERTOOLS_SERVICE_NAME: 'sts-volume-gitops', POWERTOOLS_METRICS_NAMESPACE: 'StsVolumeGitops' }) },
      Layers: Match.absent(),
    });
    // The dispatcher: invoked asynchronously by the schedule, failed invocations to the dead-letter queue.
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 60, DeadLetterConfig: Match.anyValue(),
      Environment: { Variables: Match.objectLike({ STS_VOLUME_GITOPS_QUEUE_URL: Match.anyValue(), STS_VOLUME_GITOPS_SCHEDULE_MINUTES: '5' }) },
    });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 600 });
  });

  it('queues targets on a FIFO queue whose failed messages go to a FIFO dead-letter queue after 3 receives', () => {
    const queues = template.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: true } }) as Record<string, { Properties: Record<string, unknown> }>;
    const [targetsId, targets] = Object.entries(queues).find(([, q]) => q.Properties.RedrivePolicy !== undefined) ?? assert.fail('the target queue');
    const [deadId] = Object.entries(queues).find(([id]) => id !== targetsId) ?? assert.fail('its dead-letter queue');
    assert.deepEqual(targets.Properties.RedrivePolicy, { deadLetterTargetArn: { 'Fn::GetAtt': [deadId, 'Arn'] }, maxReceiveCount: 3 });
    assert.equal(targets.Properties.VisibilityTimeout, 360, 'one minute past the worker timeout');
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], EventSourceArn: { 'Fn::GetAtt': [targetsId, 'Arn'] },
    });
  });

  it('serves the webhook from a Function URL with auth NONE, its secret generated, readable by the webhook only', () => {
    template.hasResourceProperties('AWS::Lambda::Url', { AuthType: 'NONE' });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Timeout: 10, Environment: { Variables: Match.objectLike({ STS_VOLUME_GITOPS_QUEUE_URL: Match.anyValue(), STS_VOLUME_GITOPS_WEBHOOK_SECRET: Match.anyValue() }) },
    });
    template.hasResourceProperties('AWS::SecretsManager::Secret', { GenerateSecretString: Match.objectLike({ GenerateStringKey: 'webhookSecret', SecretStringTemplate: '{}' }) });
    template.hasOutput('WebhookUrl', Match.anyValue());
  });

  it('grants each role only its job: dispatcher and webhook send to the queue, the webhook reads its secret, the worker reads the App key', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{ Properties: { Roles: Array<{ Ref: string }>; PolicyDocument: { Statement: Statement[] } } }>;
    const functions = template.findResources('AWS::Lambda::Function') as Record<string, { Properties: { Role: { 'Fn::GetAtt': [string, string] }; Timeout: number } }>;
    const roleOf = (timeout: number): string => Object.values(functions).find((f) => f.Properties.Timeout === timeout)?.Properties.Role['Fn::GetAtt'][0] ?? assert.fail(`a function with timeout ${timeout}`);
    const actionsOf = (role: string): string[] => policies.filter((p) => p.Properties.Roles.some((r) => r.Ref === role))
      .flatMap((p) => p.Properties.PolicyDocument.Statement).flatMap((st) => [st.Action].flat() as string[]).sort();
    assert.deepEqual(actionsOf(roleOf(60)), ['sqs:SendMessage', 'sqs:SendMessage'], 'dispatcher: SendMessage (and its async dead-letter queue)');
    assert.deepEqual(actionsOf(roleOf(10)), ['secretsmanager:GetSecretValue', 'sqs:SendMessage']);
    const worker = actionsOf(roleOf(300));
    assert.ok(worker.includes('eks:DescribeCluster') && worker.includes('secretsmanager:GetSecretValue') && worker.includes('sqs:ReceiveMessage'), worker.join(', '));
    assert.ok(!worker.includes('sqs:SendMessage'), 'the worker queues nothing');
  });

  it('keeps the logs 30 days by default', () => {
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
  });

  it('invokes the dispatcher from EventBridge Scheduler with a role that may only invoke it', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)', FlexibleTimeWindow: { Mode: 'OFF' },
      Target: Match.objectLike({ Input: '{"source":"schedule"}', RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 } }),
    });
    const roles = template.findResources('AWS::IAM::Role', { Properties: { AssumeRolePolicyDocument: Match.objectLike({ Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })] }) } });
    const [roleId] = Object.keys(roles);
    assert.ok(roleId, 'a scheduler role exists');
    const schedulerPolicies = Object.values(template.findResources('AWS::IAM::Policy'))
      .filter((p) => JSON.stringify((p as { Properties: { Roles: unknown } }).Properties.Roles) === JSON.stringify([{ Ref: roleId }]));
    const granted = schedulerPolicies.flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement);
    assert.deepEqual(granted.map((s) => s.Action), ['lambda:InvokeFunction']);
    assert.equal(JSON.stringify(granted[0]?.Resource).includes(':*'), false, 'the function itself, not its versions');
  });

  it('maps the function role to the sts-volume-gitops Kubernetes group on the cluster the config names, once', () => {
    template.resourceCountIs('AWS::EKS::AccessEntry', 1);
    template.hasResourceProperties('AWS::EKS::AccessEntry', {
      ClusterName: 'prod-eu', Type: 'STANDARD', KubernetesGroups: ['sts-volume-gitops'], AccessPolicies: Match.absent(),
    });
    const describe = statements(template).find((s) => s.Action === 'eks:DescribeCluster');
    assert.ok(describe, 'eks:DescribeCluster is granted');
    assert.match(JSON.stringify(describe.Resource), /:eks:eu-west-1:123456789012:cluster\/prod-eu/);
  });

  it('creates the secret under the name the config gives it and lets the function read exactly that secret', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 2); // and the webhook secret
    template.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'github/sts-volume-gitops' });
    const [secretId] = Object.keys(template.findResources('AWS::SecretsManager::Secret', { Properties: { Name: 'github/sts-volume-gitops' } }));
    const read = statements(template).find((s) => Array.isArray(s.Action) && s.Action.includes('secretsmanager:GetSecretValue'));
    assert.ok(read, 'the function may read the secret');
    assert.deepEqual(read.Resource, { Ref: secretId });
  });

  it('grants no wildcard resources in its own policies (only the managed basic execution policy has them)', () => {
    for (const statement of statements(template)) {
      const resources = [statement.Resource].flat();
      for (const resource of resources) assert.ok(resource !== '*' && !JSON.stringify(resource).includes('*'), `wildcard in ${JSON.stringify(statement)}`);
    }
    template.hasResourceProperties('AWS::IAM::Role', {
      ManagedPolicyArns: [{ 'Fn::Join': ['', ['arn:', { Ref: 'AWS::Partition' }, ':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole']] }],
    });
  });

  it('alarms on errors, duration near the timeout, dead letters and the age of the oldest message, each notifying the topic, which mails on-call', () => {
    const alarms = Object.values(template.findResources('AWS::CloudWatch::Alarm')) as Array<{ Properties: { MetricName: string; Threshold: number; AlarmActions: unknown[] } }>;
    assert.deepEqual(alarms.map((a) => a.Properties.MetricName).sort(), [
      'ApproximateAgeOfOldestMessage', 'ApproximateNumberOfMessagesVisible', 'ApproximateNumberOfMessagesVisible', 'Duration', 'Errors', 'Errors', 'Errors',
    ]);
    assert.equal(alarms.find((a) => a.Properties.MetricName === 'ApproximateAgeOfOldestMessage')?.Properties.Threshold, 600, 'twice the schedule interval');
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
    for (const alarm of alarms) assert.deepEqual(alarm.Properties.AlarmActions, [{ Ref: topicId }]);
    assert.equal(alarms.find((a) => a.Properties.MetricName === 'Duration')?.Properties.Threshold, 240_000);
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
  });
});

describe('StsVolumeGitopsStack options', () => {
  it('takes a flexible window, scheduler retries, retention, a metrics namespace and a VPC', async () => {
    const template = await synth((app) => ({
      everyMinutes: 1, flexibleWindowMinutes: 3, scheduleRetryAttempts: 2, scheduleMaximumEventAgeSeconds: 120,
      logRetention: logs.RetentionDays.ONE_WEEK, metricsNamespace: 'Platform/Volumes', maximumEventAge: Duration.minutes(2),
      vpc: ec2.Vpc.fromVpcAttributes(new Stack(app, 'Network', { env }), 'Vpc', { vpcId: 'vpc-0123456789abcdef0', availabilityZones: ['eu-west-1a'], privateSubnetIds: ['subnet-0123456789abcdef0'] }),
    }));
    template.hasResourceProperties('AWS::Lambda::Function', { VpcConfig: { SubnetIds: ['subnet-0123456789abcdef0'], SecurityGroupIds: Match.anyValue() } });
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(1 minute)', FlexibleTimeWindow: { Mode: 'FLEXIBLE', MaximumWindowInMinutes: 3 },
      Target: Match.objectLike({ RetryPolicy: { MaximumRetryAttempts: 2, MaximumEventAgeInSeconds: 120 } }),
    });
    template.hasResourceProperties('AWS::Logs::LogGroup', { RetentionInDays: 7 });
    template.hasResourceProperties('AWS::Lambda::EventInvokeConfig', { MaximumEventAgeInSeconds: 120 });
    template.hasResourceProperties('AWS::Lambda::Function', { Environment: { Variables: Match.objectLike({ POWERTOOLS_METRICS_NAMESPACE: 'Platform/Volumes' }) } });
  });

  it('uses an existing secret and topic instead of creating them', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github/sts-volume-gitops-AbCdEf';
    const template = await synth({ githubSecretArn: arn, webhookSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github/webhook-AbCdEf' });
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    const read = statements(template).find((s) => Array.isArray(s.Action) && s.Action.includes('secretsmanager:GetSecretValue'));
    assert.equal(read?.Resource, arn);
  });

  it('takes the worker concurrency, the receives before dead-lettering, the oldest-message age, and can leave out the webhook', async () => {
    const template = await synth({ workerConcurrency: 20, maxReceiveCount: 5, oldestMessageAlarmAge: Duration.minutes(30), webhook: false });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 300, ReservedConcurrentExecutions: 20 });
    template.hasResourceProperties('AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }) });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 1800 });
    template.resourceCountIs('AWS::Lambda::Url', 0);
    template.resourceCountIs('AWS::Lambda::Function', 2);
  });

  it('lets the worker assume the role a cross-account cluster names, with no access entry or DescribeCluster of its own for it', async () => {
    const roleArn = 'arn:aws:iam::210987654321:role/sts-volume-gitops-access';
    const crossAccount = eksConfig.replace('eks: { name: prod-eu, region: eu-west-1 }', `eks: { name: prod-eu, region: eu-west-1, roleArn: "${roleArn}", externalId: acme-volumes }`);
    const template = await synth({}, crossAccount.replace(/eks: \{ name: prod-eu, region: eu-west-1 \}/, 'eks: { name: prod-us, region: eu-west-1 }'));
    const assume = statements(template).filter((s) => s.Action === 'sts:AssumeRole');
    assert.deepEqual(assume.map((s) => s.Resource), [roleArn]);
    template.resourceCountIs('AWS::EKS::AccessEntry', 1);
    template.hasResourceProperties('AWS::EKS::AccessEntry', { ClusterName: 'prod-us' });
  });

  const badOptions: Array<[string, Props, string, RegExp]> = [
    ['a worker concurrency of zero', { workerConcurrency: 0 }, eksConfig, /workerConcurrency must be a whole number >= 1/],
    ['a maxReceiveCount of zero', { maxReceiveCount: 0 }, eksConfig, /maxReceiveCount must be a whole number from 1 to 1000/],
    ['a schedule of zero minutes', { everyMinutes: 0 }, eksConfig, /everyMinutes must be a whole number/],
    ['a fractional schedule', { everyMinutes: 2.5 }, eksConfig, /everyMinutes must be a whole number/],
    ['a timeout no EKS token outlives', { timeout: Duration.minutes(15) }, eksConfig, /timeout must be at most 14 minutes/],
    ['a config that fails the schema, with the schema\'s message', {}, 'targets:\n  - name: x\n', /invalid configuration .*config\.yaml: targets\[0\]/],
    ['a cluster in another region', {}, eksConfig.replaceAll('eu-west-1', 'us-east-1'), /EKS cluster prod-eu is in us-east-1, but this stack deploys to eu-west-1/],
    ['an existing secret the config does not name', { githubSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:other-AbCdEf' }, eksConfig, /the config names secret github\/sts-volume-gitops, but githubSecretArn is/],
    ['a flexible window of zero', { flexibleWindowMinutes: 0 }, eksConfig, /flexibleWindowMinutes must be a whole number from 1 to 1440/],
  ];
  for (const [name, props, config, message] of badOptions) {
    it(`refuses ${name} with a clear error`, async () => {
      await assert.rejects(synth(props, config), message);
    });
  }
});
