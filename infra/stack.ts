// The AWS side: the schedule invokes a dispatcher that queues one message per target on an SQS FIFO queue (grouped by
// cluster); a worker Lambda runs one pass per message; a webhook Lambda behind a Function URL queues validations for
// pull requests and passes for pushes. Secrets, EKS access (own account or an assumed role), logs, metrics, alarms. The tool's configuration is the one source of truth: it is checked against the schema at synth,
// bundled with the function, and names the clusters and secrets the stack grants. Synthesizes offline: bundling uses
// the locally installed esbuild (infra/lambda-bundle.ts), no Docker and no credentials.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CfnOutput, Duration, SecretValue, Stack, Token, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { parseConfig, type Config } from '../functions/domain/config.ts';
import { defaultMetricsNamespace } from '../functions/lambda/publish-metrics.ts';
import { targetQueueUrlVariable } from '../functions/adapters/aws/target-queue.ts';
import { scheduleMinutesVariable } from '../functions/lambda/dispatcher.ts';
import { webhookSecretVariable } from '../functions/lambda/webhook.ts';
import { lambdaEntries, type LambdaEntryName } from './lambda-bundle.ts';
import { shippedFunction } from './shipped-function.ts';

/** The Kubernetes group the access entry maps the function's role to; infra/k8s/rbac.yaml binds it. */
export const kubernetesGroup = 'sts-volume-gitops';

export interface StsVolumeGitopsStackProps extends StackProps {
  /** The tool's configuration file (YAML): validated at synth, shipped inside the function bundle. */
  configFile: string;
  /** Minutes between passes (EventBridge Scheduler rate); 5 by default. */
  everyMinutes?: number;
  /** Lets the scheduler start a pass up to this many minutes late (spreads load); off by default. */
  flexibleWindowMinutes?: number;
  /** Scheduler retries when it cannot hand the event to Lambda (0 by default: the next pass comes soon). */
  scheduleRetryAttempts?: number;
  /** How long the scheduler keeps trying to deliver an event; 5 minutes by default. */
  scheduleMaximumEventAgeSeconds?: number;
  /** How long an asynchronous invocation may wait in Lambda's queue before it is dropped to the dead-letter queue. */
  maximumEventAge?: Duration;
  /**
   * An existing Secrets Manager secret holding `{"privateKey": "<PEM>"}` (complete ARN). When given, every
   * `privateKey.secret` in the config must name it (by name or ARN); otherwise the stack creates one secret per name.
   */
  githubSecretArn?: string;
  /** Alarms notify this topic; a new one is created when absent. */
  alarmTopic?: sns.ITopic;
  /** Subscribes this address to the alarm topic (the subscription must be confirmed from the email). */
  alarmEmail?: string;
  /** CloudWatch metrics namespace of the EMF metrics; `StsVolumeGitops` by default. */
  metricsNamespace?: string;
  logRetention?: logs.RetentionDays;
  /** Runs the function in this VPC (clusters with private endpoints); needs a route to EKS, STS, Secrets Manager, GitHub. */
  vpc?: ec2.IVpc;
  vpcSubnets?: ec2.SubnetSelection;
  securityGroups?: ec2.ISecurityGroup[];
  /** One Lambda entry for all three functions (tests pass a small fixture); the project's entries by default. */
  entry?: string;
  /** The worker's memory. */
  memorySize?: number;
  /** The worker's timeout: 5 minutes by default; at most 14 (an EKS token must outlive the invocation). */
  timeout?: Duration;
  /** Worker invocations at once (reserved concurrency): passes on different clusters run side by side; 5 by default. */
  workerConcurrency?: number;
  /** Receives of one message before it moves to the dead-letter queue; 3 by default. */
  maxReceiveCount?: number;
  /** The oldest queued message alarms past this age; twice the schedule's interval by default. */
  oldestMessageAlarmAge?: Duration;
  /** The Function URL for GitHub webhooks; on by default. */
  webhook?: boolean;
  /** An existing secret holding the webhook secret (complete ARN); otherwise one is created with a generated value. */
  webhookSecretArn?: string;
}

export class StsVolumeGitopsStack extends Stack {
  /** The worker: runs the passes, holds the GitHub and EKS grants. */
  readonly function: nodejs.NodejsFunction;
  readonly dispatcher: nodejs.NodejsFunction;
  readonly webhook: nodejs.NodejsFunction | undefined;
  readonly webhookUrl: lambda.FunctionUrl | undefined;
  readonly webhookSecret: secretsmanager.ISecret | undefined;
  /** The target queue (FIFO) and where its messages go after `maxReceiveCount` failed passes. */
  readonly queue: sqs.Queue;
  readonly failedMessages: sqs.Queue;
  readonly config: Config;
  readonly alarmTopic: sns.ITopic;
  /** Failed dispatcher invocations (the schedule invokes it asynchronously). */
  readonly deadLetters: sqs.Queue;
  readonly githubSecrets: secretsmanager.ISecret[];
  /** The secrets holding the key that signs recreation records (`recordKey.secret`); read by the worker only. */
  readonly recordKeySecrets: secretsmanager.ISecret[];

  constructor(scope: Construct, id: string, props: StsVolumeGitopsStackProps) {
    super(scope, id, props);
    const configFile = resolve(props.configFile);
    // A config that fails the schema fails synth with the schema's message (ConfigError).
    this.config = parseConfig(readFileSync(configFile, 'utf8'), configFile, dirname(configFile));

    const everyMinutes = props.everyMinutes ?? 5;
    if (!Number.isInteger(everyMinutes) || everyMinutes < 1) throw new Error(`everyMinutes must be a whole number of minutes >= 1, got ${everyMinutes}`);
    const timeout = props.timeout ?? Duration.minutes(5);
    if (timeout.toSeconds() > 14 * 60) throw new Error(`timeout must be at most 14 minutes (an EKS token lives 15), got ${timeout.toHumanString()}`);

    const workerConcurrency = props.workerConcurrency ?? 5;
    if (!Number.isInteger(workerConcurrency) || workerConcurrency < 1) throw new Error(`workerConcurrency must be a whole number >= 1, got ${workerConcurrency}`);
    const maxReceiveCount = props.maxReceiveCount ?? 3;
    if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1000) throw new Error(`maxReceiveCount must be a whole number from 1 to 1000, got ${maxReceiveCount}`);

    this.deadLetters = new sqs.Queue(this, 'FailedInvocations', { retentionPeriod: Duration.days(14), enforceSSL: true });
    this.failedMessages = new sqs.Queue(this, 'FailedTargetMessages', { fifo: true, retentionPeriod: Duration.days(14), enforceSSL: true });
    this.queue = new sqs.Queue(this, 'Targets', {
      fifo: true, enforceSSL: true, retentionPeriod: Duration.hours(1),
      // A pass that crashed or timed out is received again one minute after the worker's timeout, not later: its
      // cluster's group waits meanwhile (FIFO). Throttled receives are retried by the event source.
      visibilityTimeout: timeout.plus(Duration.minutes(1)),
      deadLetterQueue: { queue: this.failedMessages, maxReceiveCount },
    });
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH });
    const entry = (name: LambdaEntryName): string => props.entry ?? lambdaEntries[name];
    const network = { ...(props.vpc ? { vpc: props.vpc } : {}), ...(props.vpcSubnets ? { vpcSubnets: props.vpcSubnets } : {}), ...(props.securityGroups ? { securityGroups: props.securityGroups } : {}) };
    const metricsNamespace = props.metricsNamespace ?? defaultMetricsNamespace;

    this.function = shippedFunction(this, 'Worker', {
      entry: entry('worker'), configFile, timeout, memorySize: props.memorySize ?? 512, logGroup, network,
      // Passes on one cluster never overlap (the FIFO group); this bounds how many clusters are worked at once.
      reservedConcurrentExecutions: workerConcurrency,
      environment: { POWERTOOLS_METRICS_NAMESPACE: metricsNamespace },
    });
    this.function.addEventSource(new lambdaEvents.SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true }));

    this.dispatcher = shippedFunction(this, 'Dispatcher', {
      entry: entry('dispatcher'), configFile, timeout: Duration.minutes(1), memorySize: 256, logGroup,
      environment: { [targetQueueUrlVariable]: this.queue.queueUrl, [scheduleMinutesVariable]: String(everyMinutes) },
      extra: { deadLetterQueue: this.deadLetters, retryAttempts: 0, maxEventAge: props.maximumEventAge ?? Duration.minutes(10) },
    });
    this.allowSend(this.dispatcher);

    if (props.webhook ?? true) {
      this.webhookSecret = props.webhookSecretArn
        ? secretsmanager.Secret.fromSecretCompleteArn(this, 'WebhookSecret', props.webhookSecretArn)
        : new secretsmanager.Secret(this, 'WebhookSecret', {
          description: 'GitHub webhook secret for sts-volume-gitops: {"webhookSecret": "..."}; paste the value into the webhook settings (see infra/README.md)',
          generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'webhookSecret', excludePunctuation: true, passwordLength: 40 },
        });
      this.webhook = shippedFunction(this, 'Webhook', {
        // GitHub waits 10 s for an answer; queueing takes milliseconds.
        entry: entry('webhook'), configFile, timeout: Duration.seconds(10), memorySize: 256, logGroup,
        environment: { [targetQueueUrlVariable]: this.queue.queueUrl, [webhookSecretVariable]: this.webhookSecret.secretArn },
      });
      this.allowSend(this.webhook);
      this.webhook.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [this.webhookSecret.secretArn] }));
      // Auth NONE: GitHub cannot sign AWS requests; the handler checks X-Hub-Signature-256 before anything else.
      this.webhookUrl = this.webhook.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
      new CfnOutput(this, 'WebhookUrl', { value: this.webhookUrl.url, description: 'Payload URL for the GitHub webhook (content type application/json)' });
      new CfnOutput(this, 'WebhookSecretArn', { value: this.webhookSecret.secretArn, description: 'The secret to paste into the GitHub webhook: its webhookSecret field' });
    }

    this.githubSecrets = this.grantSecrets(props.githubSecretArn);
    this.recordKeySecrets = this.grantRecordKeys();
    this.grantClusters();
    this.schedule(props, everyMinutes);
    this.alarmTopic = props.alarmTopic ?? new sns.Topic(this, 'Alarms', { displayName: 'sts-volume-gitops alarms' });
    if (props.alarmEmail) this.alarmTopic.addSubscription(new snsSubscriptions.EmailSubscription(props.alarmEmail));
    this.alarms(timeout, props.oldestMessageAlarmAge ?? Duration.minutes(2 * everyMinutes));
  }

  /** sqs:SendMessage on the target queue and nothing else (SendMessageBatch is authorised as SendMessage). */
  private allowSend(fn: nodejs.NodejsFunction): void {
    fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [this.queue.queueArn] }));
  }

  /** The secrets the config names (`privateKey.secret`): the existing one, or one created under that very name. */
  private grantSecrets(existingArn: string | undefined): secretsmanager.ISecret[] {
    const names = [...new Set(this.config.targets.flatMap((t) => {
      const key = 'github' in t.source ? t.source.github.app?.privateKey : undefined;
      return key?.secret !== undefined ? [key.secret] : [];
    }))];
    const existing = existingArn ? secretsmanager.Secret.fromSecretCompleteArn(this, 'GitHubAppKey', existingArn) : undefined;
    return names.map((name, index) => {
      if (existing) {
        const existingName = /:secret:(.+)-[A-Za-z0-9]{6}$/.exec(existingArn ?? '')?.[1];
        if (name !== existingArn && name !== existingName) {
          throw new Error(`the config names secret ${name}, but githubSecretArn is ${existingArn}; name that secret (or its ARN) in privateKey.secret`);
        }
        existing.grantRead(this.function);
        return existing;
      }
      if (name.startsWith('arn:')) {
        const imported = secretsmanager.Secret.fromSecretCompleteArn(this, `GitHubAppKey${index}`, name);
        imported.grantRead(this.function);
        return imported;
      }
      const created = new secretsmanager.Secret(this, index === 0 ? 'GitHubAppKey' : `GitHubAppKey${index}`, {
        secretName: name,
        description: 'GitHub App private key for sts-volume-gitops: {"privateKey": "<PEM>"} (see infra/README.md)',
        // A placeholder the function refuses with a clear message until the real key is stored.
        secretStringValue: SecretValue.unsafePlainText(JSON.stringify({ privateKey: 'replace with the GitHub App private key (PEM)' })),
      });
      created.grantRead(this.function);
      return created;
    });
  }

  /**
   * The record key secrets the config names: one created under that very name with a generated key (nobody needs to
   * know it; it only has to stay the same), or the existing one an ARN names. Only the worker, which writes and checks
   * the records, may read it.
   */
  private grantRecordKeys(): secretsmanager.ISecret[] {
    const names = [...new Set(this.config.targets.flatMap((t) => (t.recordKey?.secret !== undefined ? [t.recordKey.secret] : [])))];
    return names.map((name, index) => {
      const secret = name.startsWith('arn:')
        ? secretsmanager.Secret.fromSecretCompleteArn(this, `RecordKey${index}`, name)
        : new secretsmanager.Secret(this, index === 0 ? 'RecordKey' : `RecordKey${index}`, {
          secretName: name,
          description: 'Key that signs sts-volume-gitops recreation records (HMAC-SHA256): {"recordKey": "..."}; generated, keep it unchanged while records are outstanding',
          generateSecretString: { secretStringTemplate: '{}', generateStringKey: 'recordKey', excludePunctuation: true, passwordLength: 64 },
        });
      secret.grantRead(this.function);
      return secret;
    });
  }

  /** Per EKS cluster in the config: DescribeCluster on it and an access entry mapping the role to the Kubernetes group. */
  private grantClusters(): void {
    const clusters = new Map<string, { name: string; region: string }>();
    const assumedRoles = new Set<string>();
    for (const target of this.config.targets) {
      if (!('eks' in target.cluster)) continue;
      // A cluster reached through an assumed role: that role (in the cluster's account) has the access entry and may
      // describe the cluster; this stack's worker may only assume it.
      if (target.cluster.eks.roleArn !== undefined) assumedRoles.add(target.cluster.eks.roleArn);
      else clusters.set(`${target.cluster.eks.region}/${target.cluster.eks.name}`, target.cluster.eks);
    }
    if (assumedRoles.size > 0) this.function.addToRolePolicy(new iam.PolicyStatement({ actions: ['sts:AssumeRole'], resources: [...assumedRoles].sort() }));
    for (const cluster of clusters.values()) {
      if (!Token.isUnresolved(this.region) && cluster.region !== this.region) {
        throw new Error(`EKS cluster ${cluster.name} is in ${cluster.region}, but this stack deploys to ${this.region}; its access entry must be created in the cluster's region (deploy the stack there)`);
      }
      const clusterArn = this.formatArn({ service: 'eks', region: cluster.region, resource: 'cluster', resourceName: cluster.name });
      this.function.addToRolePolicy(new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [clusterArn] }));
      new eks.CfnAccessEntry(this, `Access-${cluster.name}`, {
        clusterName: cluster.name,
        principalArn: this.function.role?.roleArn ?? '',
        type: 'STANDARD',
        kubernetesGroups: [kubernetesGroup],
      });
    }
  }

  private schedule(props: StsVolumeGitopsStackProps, everyMinutes: number): void {
    const schedulerRole = new iam.Role(this, 'SchedulerRole', { assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com') });
    // Exactly the dispatcher, not its versions (grantInvoke would add `arn:*`).
    schedulerRole.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.dispatcher.functionArn] }));
    const window = props.flexibleWindowMinutes;
    if (window !== undefined && (!Number.isInteger(window) || window < 1 || window > 1440)) throw new Error(`flexibleWindowMinutes must be a whole number from 1 to 1440, got ${window}`);
    new scheduler.CfnSchedule(this, 'Schedule', {
      scheduleExpression: everyMinutes === 1 ? 'rate(1 minute)' : `rate(${everyMinutes} minutes)`,
      flexibleTimeWindow: window === undefined ? { mode: 'OFF' } : { mode: 'FLEXIBLE', maximumWindowInMinutes: window },
      description: 'Queues one sts-volume-gitops pass per configured target',
      target: {
        arn: this.dispatcher.functionArn,
        roleArn: schedulerRole.roleArn,
        input: JSON.stringify({ source: 'schedule' }),
        retryPolicy: { maximumRetryAttempts: props.scheduleRetryAttempts ?? 0, maximumEventAgeInSeconds: props.scheduleMaximumEventAgeSeconds ?? 300 },
      },
    });
  }

  private alarms(timeout: Duration, oldestMessageAge: Duration): void {
    const action = new cloudwatchActions.SnsAction(this.alarmTopic);
    const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold: number): void => {
      const created = new cloudwatch.Alarm(this, id, {
        metric, threshold, evaluationPeriods: 1, alarmDescription: description,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      created.addAlarmAction(action);
    };
    const period = Duration.minutes(15);
    alarm('Errors', 'sts-volume-gitops: a worker invocation failed (crashed or timed out; a failed pass is a batch item failure, see FailedTargetMessages)',
      this.function.metricErrors({ period }), 1);
    alarm('DispatcherErrors', 'sts-volume-gitops: the dispatcher failed to queue the targets (unreadable config or SQS refused)',
      this.dispatcher.metricErrors({ period }), 1);
    if (this.webhook) {
      alarm('WebhookErrors', 'sts-volume-gitops: the webhook answered GitHub with an error (secret unreadable or SQS refused)', this.webhook.metricErrors({ period }), 1);
    }
    alarm('DurationNearTimeout', 'sts-volume-gitops: a pass ran past 80% of the worker timeout',
      this.function.metricDuration({ period, statistic: 'Maximum' }), Math.floor(timeout.toMilliseconds() * 0.8));
    alarm('DeadLetters', 'sts-volume-gitops: failed dispatcher invocations are waiting in the dead-letter queue',
      this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), 1);
    alarm('FailedTargets', 'sts-volume-gitops: a target failed its pass on every try; its message is in the dead-letter queue (see the worker logs)',
      this.failedMessages.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), 1);
    alarm('OldestMessage', `sts-volume-gitops: a target has waited in the queue for ${oldestMessageAge.toHumanString()} (workers too few or too slow, or a cluster's group is stuck)`,
      this.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }), oldestMessageAge.toSeconds());
  }
}
