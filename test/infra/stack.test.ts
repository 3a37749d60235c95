// The CDK stack synthesizes offline from the tool's configuration and holds what the function needs, with
// least-privilege grants, alarms that notify someone, a dashboard of what the code emits, logs that expire, and no
// cdk-nag finding (AwsSolutions, Serverless, NIST 800-53 R5) left unfixed or unexplained.
import assert from 'node:assert/strict';
import { mkdtemp, readdir, readFile, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { before, describe, it } from 'node:test';
import { App, Duration, Stack, type CfnElement } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { AwsSolutionsChecks, NIST80053R5Checks, ServerlessChecks, type NagPack } from 'cdk-nag';
import { buildLambdaBundle, lambdaBundle, lambdaEntries } from '../../infra/lambda-bundle.ts';
import { passCountNames, webhookMetricNames } from '../../infra/metrics.ts';
import { StsVolumeGitopsStack, type StsVolumeGitopsStackProps } from '../../infra/stack.ts';
import { runbookOutputNames } from '../../infra/outputs.ts';

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

async function synthStack(props: Props | ((app: App) => Props) = {}, configText = eksConfig, outdir?: string, options: { realEntries?: boolean } = {}): Promise<{ template: Template; stack: StsVolumeGitopsStack }> {
  const dir = outdir ?? await mkdtemp(join(tmpdir(), 'sts-infra-'));
  const configFile = join(dir, 'config.yaml');
  await writeFile(configFile, configText);
  const app = new App({ outdir: join(dir, 'cdk.out') });
  const stack = new StsVolumeGitopsStack(app, 'Test', {
    env, configFile, alarmEmail: 'oncall@example.com', ...(options.realEntries ? {} : { entry: fixtureEntry }), ...(typeof props === 'function' ? props(app) : props),
  });
  return { template: Template.fromStack(stack), stack };
}

async function synth(props: Props | ((app: App) => Props) = {}, configText = eksConfig): Promise<Template> {
  return (await synthStack(props, configText)).template;
}

/** The cdk-nag packs the stack is held to; `validateScope` reads the acknowledgments recorded on the constructs. */
const nagPacks = (): NagPack[] =>
  [new AwsSolutionsChecks(undefined, { verbose: true }), new ServerlessChecks(undefined, { verbose: true }), new NIST80053R5Checks(undefined, { verbose: true })];

/** Every unacknowledged finding, errors and warnings, as `rule at path: description`. */
function nagFindings(stack: Stack): string[] {
  return nagPacks().flatMap((pack) => pack.validateScope(stack).violations.flatMap((v) =>
    v.violatingResources.map((r) => `${v.ruleName} at ${r.constructPath}: ${v.description}`)));
}

type Resource = { Properties: Record<string, unknown>; DeletionPolicy?: string; UpdateReplacePolicy?: string };
const resources = (template: Template, type: string): Record<string, Resource> => template.findResources(type) as Record<string, Resource>;

/** A Fn::Join of strings and tokens as one string, each token written as TOKEN (they sit inside JSON strings). */
function joined(value: unknown): string {
  if (typeof value === 'string') return value;
  const parts = (value as { 'Fn::Join'?: [string, unknown[]] })['Fn::Join']?.[1] ?? assert.fail(`not a Fn::Join: ${JSON.stringify(value)}`);
  return parts.map((part) => (typeof part === 'string' ? part : 'TOKEN')).join('');
}

type Statement = { Action: unknown; Resource: unknown; Effect: string };
function statements(template: Template): Statement[] {
  return Object.values(template.findResources('AWS::IAM::Policy'))
    .flatMap((p) => (p as { Properties: { PolicyDocument: { Statement: Statement[] } } }).Properties.PolicyDocument.Statement);
}

type AlarmMetricQuery = { Id: string; Expression?: string; Period?: number; ReturnData?: boolean; MetricStat?: { Metric: { Namespace: string; MetricName: string; Dimensions: Array<{ Name: string; Value: unknown }> }; Period: number; Stat: string } };
type AlarmResource = { Properties: {
  AlarmName: string; MetricName?: string; Namespace?: string; Statistic?: string; Dimensions?: Array<{ Name: string; Value: unknown }>; Metrics?: AlarmMetricQuery[];
  Threshold: number; EvaluationPeriods: number; DatapointsToAlarm?: number; Period?: number; AlarmActions: unknown[]; OKActions?: unknown[]; AlarmDescription: unknown;
} };
const alarmsOf = (t: Template): AlarmResource[] => Object.values(t.findResources('AWS::CloudWatch::Alarm')) as AlarmResource[];
const alarmNamed = (t: Template, name: string): AlarmResource['Properties'] => alarmsOf(t).find((a) => a.Properties.AlarmName === name)?.Properties ?? assert.fail(`no alarm ${name}`);

describe('StsVolumeGitopsStack', () => {
  let template: Template;
  let stack: StsVolumeGitopsStack;
  let dir: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-infra-'));
    // The real entries: synth bundles each with the shared definition (infra/lambda-bundle.ts).
    ({ template, stack } = await synthStack({ alarmEmail: 'oncall@example.com' }, eksConfig, dir, { realEntries: true }));
  });

  it('has no cdk-nag finding (AwsSolutions, Serverless, NIST 800-53 R5) that is not fixed or acknowledged with a reason', () => {
    assert.deepEqual(nagFindings(stack), []);
    // The packs do look: a bare topic and function, as CDK makes them by default, are found out.
    const bare = new Stack(new App(), 'Bare', { env });
    new sns.Topic(bare, 'Topic');
    new lambda.Function(bare, 'Function', { runtime: lambda.Runtime.NODEJS_22_X, handler: 'index.handler', code: lambda.Code.fromInline('exports.handler = async () => {};') });
    const found = nagFindings(bare).map((finding) => finding.split(' ')[0]);
    for (const rule of ['AwsSolutions-SNS3', 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', 'Serverless-LambdaDLQ', 'NIST.800.53.R5-LambdaConcurrency']) {
      assert.ok(found.includes(rule), `${rule} in ${found.join(', ')}`);
    }
    // Each acknowledgment carries its reason: the metadata CDK records for cdk-nag holds rule -> reason.
    const acknowledged = stack.node.findAll().flatMap((c) => c.node.metadata.filter((m) => m.type === 'aws:cdk:acknowledged-rules'))
      .flatMap((m) => Object.entries(m.data as Record<string, string>));
    assert.ok(acknowledged.length > 0);
    for (const [rule, reason] of acknowledged) assert.ok(reason.length >= 60, `${rule} is acknowledged with a real reason, got ${JSON.stringify(reason)}`);
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
    // Every function has reserved concurrency: the public webhook cannot take the account's shared pool from the others.
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 60, ReservedConcurrentExecutions: 1 });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 10, ReservedConcurrentExecutions: 5 });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 10, Environment: { Variables: Match.objectLike({ POWERTOOLS_METRICS_NAMESPACE: 'StsVolumeGitops' }) } });
  });

  it('queues targets on a FIFO queue (visibility 6x the worker timeout, retained past every receive) whose failed messages go to a FIFO dead-letter queue after 3 receives', () => {
    const queues = template.findResources('AWS::SQS::Queue', { Properties: { FifoQueue: true } }) as Record<string, { Properties: Record<string, unknown> }>;
    const [targetsId, targets] = Object.entries(queues).find(([, q]) => q.Properties.RedrivePolicy !== undefined) ?? assert.fail('the target queue');
    const [deadId] = Object.entries(queues).find(([id]) => id !== targetsId) ?? assert.fail('its dead-letter queue');
    assert.deepEqual(targets.Properties.RedrivePolicy, { deadLetterTargetArn: { 'Fn::GetAtt': [deadId, 'Arn'] }, maxReceiveCount: 3 });
    assert.equal(targets.Properties.VisibilityTimeout, 1800, 'six times the worker timeout, as AWS advises for an SQS event source');
    assert.equal(targets.Properties.MessageRetentionPeriod, 3 * 1800 + 3600, 'a failing message lives through its 3 receives into the dead-letter queue');
    for (const queue of Object.values(resources(template, 'AWS::SQS::Queue'))) assert.equal(queue.Properties.SqsManagedSseEnabled, true);
    // The event source invokes at most as many workers as may run: no throttled receive counts towards maxReceiveCount.
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', {
      BatchSize: 1, FunctionResponseTypes: ['ReportBatchItemFailures'], EventSourceArn: { 'Fn::GetAtt': [targetsId, 'Arn'] }, ScalingConfig: { MaximumConcurrency: 5 },
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

  it('grants each role only its job: its own log group, dispatcher and webhook send to the queue, the webhook reads its secret, the worker reads the App key', () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy')) as Array<{ Properties: { Roles: Array<{ Ref: string }>; PolicyDocument: { Statement: Statement[] } } }>;
    const functions = template.findResources('AWS::Lambda::Function') as Record<string, { Properties: { Role: { 'Fn::GetAtt': [string, string] }; Timeout: number } }>;
    const roleOf = (timeout: number): string => Object.values(functions).find((f) => f.Properties.Timeout === timeout)?.Properties.Role['Fn::GetAtt'][0] ?? assert.fail(`a function with timeout ${timeout}`);
    const statementsOf = (role: string): Statement[] => policies.filter((p) => p.Properties.Roles.some((r) => r.Ref === role)).flatMap((p) => p.Properties.PolicyDocument.Statement);
    const actionsOf = (role: string): string[] => statementsOf(role).flatMap((st) => [st.Action].flat() as string[]).sort();
    const logWrites = ['logs:CreateLogStream', 'logs:PutLogEvents'];
    assert.deepEqual(actionsOf(roleOf(60)), [...logWrites, 'sqs:SendMessage', 'sqs:SendMessage'], 'dispatcher: its logs, SendMessage (and its async dead-letter queue)');
    assert.deepEqual(actionsOf(roleOf(10)), [...logWrites, 'secretsmanager:GetSecretValue', 'sqs:SendMessage']);
    // Each role writes only the log group of its own function.
    for (const timeout of [60, 10, 300]) {
      const fn = Object.values(functions).find((f) => f.Properties.Timeout === timeout) as unknown as { Properties: { LoggingConfig: { LogGroup: { Ref: string } } } };
      const logs = statementsOf(roleOf(timeout)).filter((st) => JSON.stringify(st.Action).includes('logs:'));
      assert.deepEqual(logs.map((st) => st.Resource), [{ 'Fn::GetAtt': [fn.Properties.LoggingConfig.LogGroup.Ref, 'Arn'] }]);
    }
    const worker = actionsOf(roleOf(300));
    assert.ok(worker.includes('eks:DescribeCluster') && worker.includes('secretsmanager:GetSecretValue') && worker.includes('sqs:ReceiveMessage'), worker.join(', '));
    assert.ok(!worker.includes('sqs:SendMessage'), 'the worker queues nothing');
  });

  it('outputs what the runbook\'s commands take: the dispatcher\'s name, the queues\' URLs, the redrive ARN and each log group (issue 37 item 7)', () => {
    const outputs = template.findOutputs('*') as Record<string, { Value: unknown }>;
    for (const name of runbookOutputNames) assert.ok(outputs[name], `output ${name}`);
    const ref = (value: unknown): string => JSON.stringify(value);
    assert.equal(ref(outputs.DispatcherFunctionName?.Value), ref({ Ref: stack.getLogicalId(stack.dispatcher.node.defaultChild as CfnElement) }));
    assert.equal(ref(outputs.TargetsQueueUrl?.Value), ref({ Ref: stack.getLogicalId(stack.queue.node.defaultChild as CfnElement) }));
    assert.equal(ref(outputs.FailedTargetMessagesUrl?.Value), ref({ Ref: stack.getLogicalId(stack.failedMessages.node.defaultChild as CfnElement) }));
    assert.equal(ref(outputs.FailedTargetMessagesArn?.Value), ref({ 'Fn::GetAtt': [stack.getLogicalId(stack.failedMessages.node.defaultChild as CfnElement), 'Arn'] }));
    assert.equal(ref(outputs.FailedInvocationsUrl?.Value), ref({ Ref: stack.getLogicalId(stack.deadLetters.node.defaultChild as CfnElement) }));
    assert.equal(ref(outputs.WorkerLogGroup?.Value), ref({ Ref: stack.getLogicalId(stack.function.logGroup.node.defaultChild as CfnElement) }));
  });

  it('gives each function its own log group, kept 30 days by default', () => {
    const groups = Object.keys(resources(template, 'AWS::Logs::LogGroup'));
    assert.equal(groups.length, 3);
    for (const group of Object.values(resources(template, 'AWS::Logs::LogGroup'))) assert.equal(group.Properties.RetentionInDays, 30);
    const used = Object.values(resources(template, 'AWS::Lambda::Function')).map((f) => (f.Properties.LoggingConfig as { LogGroup: { Ref: string } }).LogGroup.Ref);
    assert.deepEqual(used.sort(), groups.sort());
  });

  it('invokes the dispatcher from EventBridge Scheduler with a role that may only invoke it, trusted only for this stack\'s schedule group and account', () => {
    template.hasResourceProperties('AWS::Scheduler::Schedule', {
      ScheduleExpression: 'rate(5 minutes)', FlexibleTimeWindow: { Mode: 'OFF' },
      Target: Match.objectLike({ Input: '{"source":"schedule"}', RetryPolicy: { MaximumRetryAttempts: 0, MaximumEventAgeInSeconds: 300 } }),
    });
    const roles = template.findResources('AWS::IAM::Role', { Properties: { AssumeRolePolicyDocument: Match.objectLike({ Statement: [Match.objectLike({ Principal: { Service: 'scheduler.amazonaws.com' } })] }) } });
    const [roleId] = Object.keys(roles);
    assert.ok(roleId, 'a scheduler role exists');
    const [groupId] = Object.keys(template.findResources('AWS::Scheduler::ScheduleGroup'));
    assert.ok(groupId, 'the stack\'s own schedule group');
    template.hasResourceProperties('AWS::Scheduler::Schedule', { GroupName: { Ref: groupId } });
    const trust = (roles[roleId] as { Properties: { AssumeRolePolicyDocument: { Statement: Array<{ Condition: unknown }> } } }).Properties.AssumeRolePolicyDocument.Statement;
    assert.deepEqual(trust.map((st) => st.Condition), [{ StringEquals: { 'aws:SourceAccount': '123456789012', 'aws:SourceArn': { 'Fn::GetAtt': [groupId, 'Arn'] } } }]);
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

  it('creates the secret under the name the config gives it, empty and retained, and lets the function read exactly that secret', () => {
    template.resourceCountIs('AWS::SecretsManager::Secret', 2); // and the webhook secret
    template.hasResourceProperties('AWS::SecretsManager::Secret', { Name: 'github/sts-volume-gitops', SecretString: Match.absent(), GenerateSecretString: Match.absent() });
    // Deleting the stack (or a target) keeps the real App key and the webhook secret GitHub signs with.
    for (const secret of Object.values(resources(template, 'AWS::SecretsManager::Secret'))) {
      assert.equal(secret.DeletionPolicy, 'Retain');
      assert.equal(secret.UpdateReplacePolicy, 'Retain');
      assert.equal(secret.Properties.SecretString, undefined, 'no value written into the template');
    }
    const [secretId] = Object.keys(template.findResources('AWS::SecretsManager::Secret', { Properties: { Name: 'github/sts-volume-gitops' } }));
    const read = statements(template).find((s) => Array.isArray(s.Action) && s.Action.includes('secretsmanager:GetSecretValue'));
    assert.ok(read, 'the function may read the secret');
    assert.deepEqual(read.Resource, { Ref: secretId });
  });

  it('grants no wildcard resources and attaches no managed policy (no AWSLambdaBasicExecutionRole, logs:* on *)', () => {
    for (const statement of statements(template)) {
      const resources = [statement.Resource].flat();
      for (const resource of resources) assert.ok(resource !== '*' && !JSON.stringify(resource).includes('*'), `wildcard in ${JSON.stringify(statement)}`);
    }
    for (const [id, role] of Object.entries(resources(template, 'AWS::IAM::Role'))) assert.equal(role.Properties.ManagedPolicyArns, undefined, `${id} has a managed policy`);
  });

  it('alarms on failed and blocked resizes, manifest errors, refused records, dead letters, errors, refused webhook deliveries, duration and the oldest message, each named for a person and notifying the SSL-only topic when it fires and when it is resolved', () => {
    const alarms = alarmsOf(template);
    assert.deepEqual(alarms.map((a) => a.Properties.AlarmName).sort(), [
      'Test-blocked-resizes', 'Test-dispatcher-dead-letters', 'Test-dispatcher-errors', 'Test-duration-near-timeout', 'Test-failed-resizes', 'Test-failed-targets',
      'Test-manifest-errors', 'Test-oldest-message', 'Test-refused-records', 'Test-usage-read-failures', 'Test-webhook-errors', 'Test-webhook-refused', 'Test-worker-errors',
    ]);
    // Growth skipped for an hour (usage unread in each of four 15-minute periods), not one Prometheus blip.
    const usage = alarmNamed(template, 'Test-usage-read-failures');
    assert.deepEqual([usage.MetricName, usage.Statistic, usage.Period, usage.Threshold, usage.EvaluationPeriods, usage.DatapointsToAlarm], ['UsageReadFailures', 'Sum', 900, 1, 4, 4]);
    assert.match(joined(alarmsOf(template).find((a) => a.Properties.AlarmName === 'Test-usage-read-failures')?.Properties.AlarmDescription), /First: `npx sts-volume-gitops check` /);
    // What a pass finds that needs a person, from the counts the worker publishes (their totals: dimension service alone).
    for (const [name, metric] of [['Test-failed-resizes', 'StatefulSetsFailed'], ['Test-blocked-resizes', 'StatefulSetsBlocked'], ['Test-manifest-errors', 'ManifestErrors'], ['Test-refused-records', 'RefusedRecreationRecords']] as const) {
      const alarm = alarmNamed(template, name);
      assert.deepEqual([alarm.Namespace, alarm.MetricName, alarm.Statistic, alarm.Dimensions, alarm.Threshold], ['StsVolumeGitops', metric, 'Sum', [{ Name: 'service', Value: 'sts-volume-gitops' }], 1], name);
    }
    // Refused deliveries of every reason, summed by a Metrics Insights query (an alarm cannot evaluate SEARCH).
    const refused = alarmNamed(template, 'Test-webhook-refused');
    assert.deepEqual(refused.Metrics?.map((m) => [m.Expression, m.Period]), [['SELECT SUM(WebhookDeliveriesRefused) FROM SCHEMA("StsVolumeGitops", reason, service)', 900]]);
    assert.equal(refused.Threshold, 1);
    // Every alarm says what it means and what to do first, and names the dashboard to open.
    for (const alarm of alarms) {
      const description = joined(alarm.Properties.AlarmDescription);
      assert.match(description, /^sts-volume-gitops: .+\. First: .+\. Dashboard: /, description);
      assert.ok(description.endsWith('Dashboard: https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/Test-eu-west-1'), description);
      assert.ok(description.length <= 1024, `CloudWatch takes at most 1024 characters: ${description}`);
    }
    assert.equal(alarmNamed(template, 'Test-oldest-message').Threshold, 600, 'twice the schedule interval');
    assert.equal(alarmNamed(template, 'Test-duration-near-timeout').Threshold, 240_000);
    const [topicId] = Object.keys(template.findResources('AWS::SNS::Topic'));
    for (const alarm of alarms) {
      assert.deepEqual(alarm.Properties.AlarmActions, [{ Ref: topicId }]);
      assert.deepEqual(alarm.Properties.OKActions, [{ Ref: topicId }], `${alarm.Properties.AlarmName}: on call hears it resolved`);
    }
    template.hasResourceProperties('AWS::SNS::Subscription', { Protocol: 'email', Endpoint: 'oncall@example.com' });
    template.hasResourceProperties('AWS::SNS::TopicPolicy', {
      PolicyDocument: { Statement: Match.arrayWith([Match.objectLike({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } })]) },
    });
  });

  it('alarms on each new arrival in a dead-letter queue, not on messages that wait there for 14 days', () => {
    const queues = template.findResources('AWS::SQS::Queue') as Record<string, { Properties: Record<string, unknown> }>;
    const failedTargetsId = Object.values(queues).map((q) => (q.Properties.RedrivePolicy as { deadLetterTargetArn?: { 'Fn::GetAtt': [string, string] } } | undefined)?.deadLetterTargetArn?.['Fn::GetAtt'][0]).find((id) => id !== undefined) ?? assert.fail('the target queue\'s dead-letter queue');
    const dispatcher = Object.values(resources(template, 'AWS::Lambda::Function')).find((f) => f.Properties.DeadLetterConfig !== undefined) ?? assert.fail('the dispatcher');
    const invocationsId = (dispatcher.Properties.DeadLetterConfig as { TargetArn: { 'Fn::GetAtt': [string, string] } }).TargetArn['Fn::GetAtt'][0];
    for (const id of [failedTargetsId, invocationsId]) assert.equal(queues[id]?.Properties.MessageRetentionPeriod, 14 * 24 * 3600);
    // SQS moves a message to the target queue's dead-letter queue without a SendMessage: NumberOfMessagesSent never counts
    // it. The alarm is on the increase of the most messages visible in five minutes over the five before (an idle empty
    // queue, which SQS stops reporting, filled as 0), any of three periods (SQS's data may come late).
    const failedTargets = alarmNamed(template, 'Test-failed-targets');
    assert.equal(failedTargets.MetricName, undefined);
    const [expression, visible] = [failedTargets.Metrics?.find((m) => m.Expression !== undefined), failedTargets.Metrics?.find((m) => m.MetricStat !== undefined)];
    assert.equal(expression?.Expression, `DIFF(FILL(${visible?.Id ?? '?'}, 0))`);
    assert.equal(expression?.ReturnData, true);
    assert.deepEqual([visible?.MetricStat?.Metric.Namespace, visible?.MetricStat?.Metric.MetricName, visible?.MetricStat?.Stat, visible?.MetricStat?.Period, visible?.ReturnData],
      ['AWS/SQS', 'ApproximateNumberOfMessagesVisible', 'Maximum', 300, false]);
    assert.deepEqual(visible?.MetricStat?.Metric.Dimensions, [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [failedTargetsId, 'QueueName'] } }]);
    assert.deepEqual([failedTargets.Threshold, failedTargets.EvaluationPeriods, failedTargets.DatapointsToAlarm], [1, 3, 1]);
    // Lambda sends a failed asynchronous invocation's event to its dead-letter queue with SendMessage (the dispatcher's
    // role is granted it): each arrival is a message sent.
    const invocations = alarmNamed(template, 'Test-dispatcher-dead-letters');
    assert.deepEqual([invocations.Namespace, invocations.MetricName, invocations.Statistic, invocations.Period, invocations.Threshold],
      ['AWS/SQS', 'NumberOfMessagesSent', 'Sum', 300, 1]);
    assert.deepEqual(invocations.Dimensions, [{ Name: 'QueueName', Value: { 'Fn::GetAtt': [invocationsId, 'QueueName'] } }]);
    // No alarm is left on the number visible, which stays up while a message waits and hides the next arrival.
    for (const alarm of alarmsOf(template)) assert.notEqual(alarm.Properties.MetricName, 'ApproximateNumberOfMessagesVisible', alarm.Properties.AlarmName);
  });

  it('draws the dashboard from the metrics the code emits: passes, failed and blocked sets, resizes, PVC patches, recovery PRs, API calls and throttles, webhook deliveries, the queue and its dead letters; and a runbook line per alarm', () => {
    const [dashboard] = Object.values(resources(template, 'AWS::CloudWatch::Dashboard'));
    assert.equal(dashboard?.Properties.DashboardName, 'Test-eu-west-1');
    type Widget = { type: string; properties: { title: string; metrics?: unknown[][]; query?: string; alarms?: unknown[]; markdown?: string } };
    const widgets = (JSON.parse(joined(dashboard?.Properties.DashboardBody)) as { widgets: Widget[] }).widgets;
    const metricsOf = (widget: Widget): string[] => (widget.properties.metrics ?? []).map((m) => {
      const expression = (m.at(-1) as { expression?: string }).expression;
      return expression ?? `${String(m[0])}/${String(m[1])}`;
    });
    const drawn = widgets.flatMap(metricsOf);
    // Every StsVolumeGitops metric drawn is one a pass publishes (publish-metrics.ts: Passes, the counts, PassDuration).
    const emitted = new Set<string>(['Passes', 'PassDuration', ...passCountNames]);
    const ours = drawn.filter((m) => m.startsWith('StsVolumeGitops/')).map((m) => m.slice('StsVolumeGitops/'.length));
    for (const name of ours) assert.ok(emitted.has(name), `${name} is not emitted`);
    for (const name of emitted) assert.ok(ours.includes(name), `${name} is emitted and not drawn`);
    for (const name of ['Passes', 'TargetsFailed', 'ResizesPlanned', 'ResizesApplied', 'PvcPatches', 'ProposalPullRequestsOpened', 'ProposalPullRequestsClosed', 'KubernetesApiCalls', 'GitHubApiCalls', 'DeferredSteps', 'VolumesNearFull', 'UsageReadFailures']) {
      assert.ok(ours.includes(name), `${name} is on the dashboard`);
    }
    // Pull requests opened and closed per proposal kind: one line per kind published, whichever kinds there are.
    for (const name of ['ProposalPullRequestsOpened', 'ProposalPullRequestsClosed']) {
      assert.ok(drawn.includes(`SEARCH('{"StsVolumeGitops",kind,service} MetricName="${name}"', 'Sum', 300)`), name);
    }
    // Volumes near full: the most any one pass saw (a count per pass, which a sum over passes would multiply).
    const nearFull = widgets.find((w) => w.type === 'metric' && w.properties.title.startsWith('Volumes near full')) ?? assert.fail('a volumes near full graph');
    assert.ok(JSON.stringify(nearFull.properties.metrics).includes('"stat":"Maximum"'), JSON.stringify(nearFull.properties.metrics));
    assert.equal(ours.filter((m) => m === 'Passes').length, 5, 'ok, busy, incomplete, blocked, failed');
    // The failed and blocked sets per reason: the series published with the reason dimension, one line each.
    for (const name of ['StatefulSetsFailed', 'StatefulSetsBlocked']) {
      assert.ok(drawn.includes(`SEARCH('{"StsVolumeGitops",reason,service} MetricName="${name}"', 'Sum', 300)`), name);
    }
    assert.equal(drawn.filter((m) => m === 'AWS/Lambda/Throttles').length, 3);
    assert.ok(drawn.includes(`SEARCH('Namespace="StsVolumeGitops" MetricName="WebhookDeliveriesQueued"', 'Sum', 300)`));
    for (const name of Object.values(webhookMetricNames)) assert.ok(drawn.includes(`SEARCH('Namespace="StsVolumeGitops" MetricName="${name}"', 'Sum', 300)`), `the dashboard draws ${name}`);
    assert.ok(drawn.includes('AWS/SQS/ApproximateAgeOfOldestMessage'));
    assert.equal(drawn.filter((m) => m === 'AWS/SQS/ApproximateNumberOfMessagesVisible').length, 2, 'both dead-letter queues');
    // Per target: the worker's pass summaries and its line per problem (the metrics have no target dimension).
    const logWidget = (title: string): Widget => widgets.find((w) => w.type === 'log' && w.properties.title.startsWith(title)) ?? assert.fail(`a Logs Insights widget ${title}`);
    assert.match(logWidget('Passes per target').properties.query ?? '', /SOURCE 'TOKEN'.*message = "pass finished" or message like \/\^target failed\/.*by target/s);
    assert.match(logWidget('Needs action, per target').properties.query ?? '', /SOURCE 'TOKEN'.*filter message = "needs action".*by target, severity, kind, subject, reason/s);
    assert.match(logWidget('Volumes near full, per target').properties.query ?? '', /SOURCE 'TOKEN'.*filter message = "pass finished" and ispresent\(volumesNearFull\).*latest\(volumesNearFull\).*by target/s);
    // The runbook: a line per alarm, by its name, saying what it means and what to do first.
    const runbook = widgets.find((w) => w.type === 'text')?.properties.markdown ?? assert.fail('a runbook');
    const rows = runbook.split('\n').filter((line) => line.startsWith('| Test-'));
    assert.deepEqual(rows.map((row) => row.split(' | ')[0]?.slice(2)).sort(), alarmsOf(template).map((a) => a.Properties.AlarmName).sort());
    for (const row of rows) assert.equal(row.split(' | ').length, 3, `three cells: ${row}`);
    assert.match(runbook, /\| Test-failed-resizes \| a pass found a StatefulSet whose volume expansion or class modification failed for good .* \| the dashboard's "Needs action" table names the target/);
    const alarmWidget = widgets.find((w) => w.type === 'alarm') ?? assert.fail('an alarm status widget');
    assert.equal(alarmWidget.properties.alarms?.length, Object.keys(resources(template, 'AWS::CloudWatch::Alarm')).length);
    template.hasOutput('DashboardUrl', { Value: 'https://console.aws.amazon.com/cloudwatch/home?region=eu-west-1#dashboards/dashboard/Test-eu-west-1' });
  });
});

describe('StsVolumeGitopsStack options', () => {
  it('takes a flexible window, scheduler retries, retention, a metrics namespace and a VPC, still without a cdk-nag finding', async () => {
    const { template, stack } = await synthStack((app) => ({
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
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Metrics: [Match.objectLike({ Expression: 'SELECT SUM(WebhookDeliveriesRefused) FROM SCHEMA("Platform/Volumes", reason, service)' })] });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { AlarmName: 'Test-failed-resizes', Namespace: 'Platform/Volumes', MetricName: 'StatefulSetsFailed' });
    const [dashboard] = Object.values(resources(template, 'AWS::CloudWatch::Dashboard'));
    assert.ok(joined(dashboard?.Properties.DashboardBody).includes(`SEARCH('{\\"Platform/Volumes\\",reason,service} MetricName=\\"StatefulSetsFailed\\"', 'Sum', 300)`), 'the namespace quoted in the SEARCH schema');
    // In a VPC, Lambda manages the function's network interfaces with its role (no managed policy, whose logs:* would come back).
    assert.ok(statements(template).some((s) => JSON.stringify(s.Action).includes('ec2:CreateNetworkInterface') && s.Resource === '*'));
    for (const role of Object.values(resources(template, 'AWS::IAM::Role'))) assert.equal(role.Properties.ManagedPolicyArns, undefined);
    assert.deepEqual(nagFindings(stack), []);
  });

  it('uses an existing secret and topic instead of creating them', async () => {
    const arn = 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github/sts-volume-gitops-AbCdEf';
    const topicArn = 'arn:aws:sns:eu-west-1:123456789012:on-call';
    const { template, stack } = await synthStack({
      githubSecretArn: arn, webhookSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:github/webhook-AbCdEf', alarmEmail: undefined, alarmTopicArn: topicArn,
    });
    template.resourceCountIs('AWS::SecretsManager::Secret', 0);
    template.resourceCountIs('AWS::SNS::Topic', 0);
    template.resourceCountIs('AWS::SNS::Subscription', 0);
    for (const alarm of Object.values(resources(template, 'AWS::CloudWatch::Alarm'))) {
      assert.deepEqual(alarm.Properties.AlarmActions, [topicArn]);
      assert.deepEqual(alarm.Properties.OKActions, [topicArn]);
    }
    assert.deepEqual(nagFindings(stack), []);
    const read = statements(template).find((s) => Array.isArray(s.Action) && s.Action.includes('secretsmanager:GetSecretValue'));
    assert.equal(read?.Resource, arn);
  });

  it('takes the worker concurrency, the receives before dead-lettering, the oldest-message age, and can leave out the webhook', async () => {
    const { template, stack } = await synthStack({ workerConcurrency: 20, maxReceiveCount: 5, oldestMessageAlarmAge: Duration.minutes(30), webhook: false });
    assert.deepEqual(nagFindings(stack), []);
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 300, ReservedConcurrentExecutions: 20 });
    template.hasResourceProperties('AWS::Lambda::EventSourceMapping', { ScalingConfig: { MaximumConcurrency: 20 } });
    template.hasResourceProperties('AWS::SQS::Queue', { FifoQueue: true, RedrivePolicy: Match.objectLike({ maxReceiveCount: 5 }), MessageRetentionPeriod: 5 * 1800 + 3600 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { MetricName: 'ApproximateAgeOfOldestMessage', Threshold: 1800 });
    template.resourceCountIs('AWS::Lambda::Url', 0);
    template.resourceCountIs('AWS::Lambda::Function', 2);
    template.resourceCountIs('AWS::SecretsManager::Secret', 1); // the App key only
    assert.ok(!JSON.stringify(template.toJSON()).includes('WebhookDeliveries'), 'no webhook alarm or graph without a webhook');
    assert.deepEqual(alarmsOf(template).map((a) => a.Properties.AlarmName).filter((n) => n.includes('webhook')), []);
  });

  it('takes the webhook\'s concurrency and the refused deliveries that raise its alarm', async () => {
    const template = await synth({ webhookConcurrency: 2, webhookRefusedAlarmThreshold: 20 });
    template.hasResourceProperties('AWS::Lambda::Function', { Timeout: 10, ReservedConcurrentExecutions: 2 });
    template.hasResourceProperties('AWS::CloudWatch::Alarm', { Threshold: 20, Metrics: [Match.objectLike({ Expression: Match.stringLikeRegexp('WebhookDeliveriesRefused') })] });
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
    ['a worker concurrency of one (the event source\'s maximum concurrency is at least 2)', { workerConcurrency: 1 }, eksConfig, /workerConcurrency must be a whole number from 2 to 1000/],
    ['a webhook concurrency of zero', { webhookConcurrency: 0 }, eksConfig, /webhookConcurrency must be a whole number >= 1/],
    ['alarms nobody receives', { alarmEmail: undefined }, eksConfig, /the alarms notify nobody: set alarmEmail \(STS_ALARM_EMAIL/],
    ['receives that outlast SQS\'s retention before the dead-letter queue', { maxReceiveCount: 1000 }, eksConfig, /maxReceiveCount 1000 receives of 30 minutes each .* outlast SQS's 14-day retention/],
    ['a metrics namespace of AWS\'s own', { metricsNamespace: 'AWS/Lambda' }, eksConfig, /metricsNamespace must be .* not starting with AWS\//],
    ['a metrics namespace that would break the queries', { metricsNamespace: 'Ops"Volumes' }, eksConfig, /metricsNamespace must be/],
    ['a maxReceiveCount of zero', { maxReceiveCount: 0 }, eksConfig, /maxReceiveCount must be a whole number from 1 to 1000/],
    ['a schedule of zero minutes', { everyMinutes: 0 }, eksConfig, /everyMinutes must be a whole number/],
    ['a fractional schedule', { everyMinutes: 2.5 }, eksConfig, /everyMinutes must be a whole number/],
    ['a timeout no EKS token outlives', { timeout: Duration.minutes(15) }, eksConfig, /timeout must be at most 14 minutes/],
    ['a config that fails the schema, with the schema\'s message', {}, 'targets:\n  - name: x\n', /invalid configuration .*config\.yaml: target "x": source is required/],
    ['a cluster in another region', {}, eksConfig.replaceAll('eu-west-1', 'us-east-1'), /EKS cluster prod-eu is in us-east-1, but this stack deploys to eu-west-1 .*Deploy with AWS_REGION=us-east-1; clusters in several regions take one stack per region/],
    ['an existing secret the config does not name', { githubSecretArn: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:other-AbCdEf' }, eksConfig, /the config names secret github\/sts-volume-gitops, but githubSecretArn is/],
    ['a flexible window of zero', { flexibleWindowMinutes: 0 }, eksConfig, /flexibleWindowMinutes must be a whole number from 1 to 1440/],
    ['SigV4 to a URL that is no workspace\'s', {}, eksConfig.replace('    namespaces: { default: analytics, allow: [analytics] }\n', '    namespaces: { default: analytics, allow: [analytics] }\n    usage: { prometheus: { url: "https://prometheus.example.com", auth: { sigv4: { region: eu-west-1 } } } }\n'),
      /target prod-eu-analytics: usage\.prometheus\.auth\.sigv4 is granted aps:QueryMetrics on its workspace, but https:\/\/prometheus\.example\.com is not a workspace's query URL/],
  ];
  for (const [name, props, config, message] of badOptions) {
    it(`refuses ${name} with a clear error`, async () => {
      await assert.rejects(synth(props, config), message);
    });
  }
});

describe('StsVolumeGitopsStack: reading usage', () => {
  it('grants aps:QueryMetrics on each workspace a target signs for, and read of each bearer token\'s secret, nothing wider', async () => {
    const config = eksConfig
      .replace('    namespaces: { default: platform, allow: [db, cache] }\n', '    namespaces: { default: platform, allow: [db, cache] }\n    usage: { prometheus: { url: "https://aps-workspaces.eu-west-1.amazonaws.com/workspaces/ws-0123abcd-4567", auth: { sigv4: { region: eu-west-1 } } } }\n')
      .replace('    namespaces: { default: analytics, allow: [analytics] }\n', '    namespaces: { default: analytics, allow: [analytics] }\n    usage: { prometheus: { url: "http://prometheus.monitoring:9090", auth: { bearer: { secret: prometheus/token } } } }\n');
    const template = await synth({}, config);
    const query = statements(template).filter((s) => JSON.stringify(s.Action).includes('aps:'));
    assert.equal(query.length, 1);
    assert.equal(query[0]?.Action, 'aps:QueryMetrics');
    assert.equal(joined(query[0]?.Resource), 'arn:TOKEN:aps:eu-west-1:123456789012:workspace/ws-0123abcd-4567');
    const secretReads = statements(template).filter((s) => JSON.stringify(s.Action).includes('secretsmanager:GetSecretValue')).map((s) => JSON.stringify(s.Resource));
    assert.ok(secretReads.some((r) => r.includes(':secret:prometheus/token-??????')), secretReads.join('\n'));
    // The nag packs find nothing new: the grants are named, never `*`.
    const stack = (await synthStack({}, config)).stack;
    assert.deepEqual(nagFindings(stack), []);
  });
});
