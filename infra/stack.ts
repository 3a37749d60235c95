// The AWS side: the schedule invokes a dispatcher that queues one message per target on an SQS FIFO queue (grouped by
// cluster); a worker Lambda runs one pass per message; a webhook Lambda behind a Function URL queues validations for
// pull requests and passes for pushes. Secrets, EKS access (own account or an assumed role), logs, metrics, alarms and
// a dashboard (infra/queue.ts, infra/secrets.ts, infra/eks-access.ts, infra/schedule.ts, infra/alarms.ts, infra/dashboard.ts); every cdk-nag finding is fixed
// or acknowledged with its reason where the resource is made. The tool's configuration is the one source of truth: it is checked against the schema at synth,
// bundled with the function, and names the clusters and secrets the stack grants. Synthesizes offline: bundling uses
// the locally installed esbuild (infra/lambda-bundle.ts), no Docker and no credentials.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { CfnOutput, Duration, Stack, Validations, type StackProps } from 'aws-cdk-lib';
import type * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as lambdaEvents from 'aws-cdk-lib/aws-lambda-event-sources';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { parseConfig, type Config } from '../functions/domain/config.ts';
import { defaultMetricsNamespace } from '../functions/lambda/metrics-namespace.ts';
import { targetQueueUrlVariable } from '../functions/adapters/aws/target-queue.ts';
import { scheduleMinutesVariable } from '../functions/lambda/dispatcher.ts';
import { alarmTopic, requireAlarmSubscriber } from './alarm-topic.ts';
import { stackAlarms } from './alarms.ts';
import { dashboardName, dashboardUrl, operationsDashboard } from './dashboard.ts';
import { grantClusterAccess } from './eks-access.ts';
import { grantUsageAccess } from './usage-access.ts';
import { lambdaEntries, type LambdaEntryName } from './lambda-bundle.ts';
import { EmittedMetrics } from './metrics.ts';
import { targetQueues, type TargetQueues } from './queue.ts';
import { dispatchSchedule } from './schedule.ts';
import { retainedSecret } from './secrets.ts';
import { shippedFunction } from './shipped-function.ts';
import { webhookEndpoint } from './webhook-endpoint.ts';

export { kubernetesGroup } from './eks-access.ts';

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
  /**
   * Alarms notify this topic; a new one (SSL only) is created when absent. One of `alarmTopic`, `alarmTopicArn` and
   * `alarmEmail` is required: an alarm nobody receives protects nothing, so synth fails without one.
   */
  alarmTopic?: sns.ITopic;
  /** An existing topic (its ARN) instead of `alarmTopic`, for `infra/app.ts` (`STS_ALARM_TOPIC_ARN`). */
  alarmTopicArn?: string;
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
  /**
   * Worker invocations at once (reserved concurrency, and the event source's maximum concurrency, so the event source
   * never invokes more workers than may run: a throttled receive would count towards `maxReceiveCount`): passes on
   * different clusters run side by side; 5 by default, at least 2 (the event source's lowest maximum).
   */
  workerConcurrency?: number;
  /**
   * Webhook invocations at once (reserved concurrency): requests beyond get 429 instead of taking the account's shared
   * pool from the worker and the dispatcher; 5 by default.
   */
  webhookConcurrency?: number;
  /** Refused webhook deliveries within 15 minutes that raise the WebhookRefused alarm; 1 by default. */
  webhookRefusedAlarmThreshold?: number;
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
  readonly dashboard: cloudwatch.Dashboard;
  /** The dashboard's console URL, also in every alarm's description. */
  readonly dashboardUrl: string;
  readonly alarms: cloudwatch.Alarm[];
  private readonly queues: TargetQueues;

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
    if (!Number.isInteger(workerConcurrency) || workerConcurrency < 2 || workerConcurrency > 1000) throw new Error(`workerConcurrency must be a whole number from 2 to 1000 (it is also the SQS event source's maximum concurrency, at least 2), got ${workerConcurrency}`);
    const webhookConcurrency = props.webhookConcurrency ?? 5;
    if (!Number.isInteger(webhookConcurrency) || webhookConcurrency < 1) throw new Error(`webhookConcurrency must be a whole number >= 1, got ${webhookConcurrency}`);
    const refusedThreshold = props.webhookRefusedAlarmThreshold ?? 1;
    if (!Number.isInteger(refusedThreshold) || refusedThreshold < 1) throw new Error(`webhookRefusedAlarmThreshold must be a whole number >= 1, got ${refusedThreshold}`);
    const maxReceiveCount = props.maxReceiveCount ?? 3;
    if (!Number.isInteger(maxReceiveCount) || maxReceiveCount < 1 || maxReceiveCount > 1000) throw new Error(`maxReceiveCount must be a whole number from 1 to 1000, got ${maxReceiveCount}`);
    const metricsNamespace = props.metricsNamespace ?? defaultMetricsNamespace;
    // The namespace is quoted into the dashboard's SEARCH and the alarm's Metrics Insights query.
    if (!/^[A-Za-z0-9._\-/#: ]{1,255}$/.test(metricsNamespace) || metricsNamespace.startsWith('AWS/')) throw new Error(`metricsNamespace must be 1-255 letters, digits and . - _ / # : or spaces, not starting with AWS/, got ${JSON.stringify(metricsNamespace)}`);
    requireAlarmSubscriber(props); // before any bundling

    this.queues = targetQueues(this, { workerTimeout: timeout, maxReceiveCount });
    ({ queue: this.queue, failedMessages: this.failedMessages, deadLetters: this.deadLetters } = this.queues);
    const logRetention = props.logRetention ?? logs.RetentionDays.ONE_MONTH;
    const entry = (name: LambdaEntryName): string => props.entry ?? lambdaEntries[name];
    const network = { ...(props.vpc ? { vpc: props.vpc } : {}), ...(props.vpcSubnets ? { vpcSubnets: props.vpcSubnets } : {}), ...(props.securityGroups ? { securityGroups: props.securityGroups } : {}) };

    this.function = shippedFunction(this, 'Worker', {
      entry: entry('worker'), configFile, timeout, memorySize: props.memorySize ?? 512, logRetention, network,
      // Passes on one cluster never overlap (the FIFO group); this bounds how many clusters are worked at once.
      reservedConcurrentExecutions: workerConcurrency,
      environment: { POWERTOOLS_METRICS_NAMESPACE: metricsNamespace },
    });
    this.function.addEventSource(new lambdaEvents.SqsEventSource(this.queue, { batchSize: 1, reportBatchItemFailures: true, maxConcurrency: workerConcurrency }));
    const redriven = 'The worker is invoked synchronously by its SQS event source: a failed pass is a batch item failure, received again and moved to FailedTargetMessages (alarmed) after maxReceiveCount receives. A Lambda dead-letter queue or an on-failure destination applies to asynchronous invocations and to stream sources, not to SQS.';
    for (const id of ['Serverless-LambdaDLQ', 'NIST.800.53.R5-LambdaDLQ', 'Serverless-LambdaEventSourceMappingDestination']) Validations.of(this.function).acknowledge({ id, reason: redriven });

    this.dispatcher = shippedFunction(this, 'Dispatcher', {
      entry: entry('dispatcher'), configFile, timeout: Duration.minutes(1), memorySize: 256, logRetention,
      // One schedule slot at a time; a throttled asynchronous invocation waits in Lambda's queue (up to maximumEventAge).
      reservedConcurrentExecutions: 1,
      environment: { [targetQueueUrlVariable]: this.queue.queueUrl, [scheduleMinutesVariable]: String(everyMinutes) },
      extra: { deadLetterQueue: this.deadLetters, retryAttempts: 0, maxEventAge: props.maximumEventAge ?? Duration.minutes(10) },
    });
    this.allowSend(this.dispatcher);
    Validations.of(this.dispatcher).acknowledge({
      id: 'Serverless-LambdaAsyncFailureDestination',
      reason: 'Failed asynchronous invocations go to the FailedInvocations dead-letter queue (DeadLetterConfig, with the error code and message as attributes), which is alarmed; a failure destination would be a second copy.',
    });

    if (props.webhook ?? true) {
      ({ fn: this.webhook, url: this.webhookUrl, secret: this.webhookSecret } = webhookEndpoint(this, {
        entry: entry('webhook'), configFile, logRetention, concurrency: webhookConcurrency, queue: this.queue, metricsNamespace,
        ...(props.webhookSecretArn !== undefined ? { existingSecretArn: props.webhookSecretArn } : {}),
      }));
    }

    this.githubSecrets = this.grantSecrets(props.githubSecretArn);
    this.recordKeySecrets = this.grantRecordKeys();
    grantClusterAccess(this, this.config, this.function);
    grantUsageAccess(this, this.config, this.function);
    dispatchSchedule(this, this.dispatcher, { ...props, everyMinutes });
    this.alarmTopic = alarmTopic(this, props);

    const metrics = new EmittedMetrics(metricsNamespace);
    const name = dashboardName(this);
    this.dashboardUrl = dashboardUrl(this, name);
    const alarms = stackAlarms(this, {
      worker: this.function, dispatcher: this.dispatcher, webhook: this.webhook,
      queues: this.queues, metrics,
      workerTimeout: timeout, oldestMessageAge: props.oldestMessageAlarmAge ?? Duration.minutes(2 * everyMinutes),
      retryAfter: this.queues.visibilityTimeout,
      refusedDeliveries: refusedThreshold, topic: this.alarmTopic, dashboardUrl: this.dashboardUrl,
    });
    this.alarms = alarms.map((a) => a.alarm);
    this.dashboard = operationsDashboard(this, {
      name, metrics, worker: this.function, workerLogs: this.function.logGroup, dispatcher: this.dispatcher, webhook: this.webhook,
      queues: this.queues, alarms,
    });
    new CfnOutput(this, 'DashboardUrl', { value: this.dashboardUrl, description: 'The CloudWatch dashboard of passes, resizes, API calls, webhook deliveries and the queues' });
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
      // Empty until the key is stored (infra/README.md, step 5); a pass fails with "cannot read secret <name>" until then.
      const created = retainedSecret(this, index === 0 ? 'GitHubAppKey' : `GitHubAppKey${index}`, {
        secretName: name,
        description: 'GitHub App private key for sts-volume-gitops: {"privateKey": "<PEM>"} (see infra/README.md)',
        value: { kind: 'empty' },
        notRotatedBecause: 'GitHub makes an App\'s private keys (App settings, Private keys); Secrets Manager cannot create one. Rotate by hand: generate a new key, store it here, then delete the old one in GitHub.',
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
        : retainedSecret(this, index === 0 ? 'RecordKey' : `RecordKey${index}`, {
          secretName: name,
          description: 'Key that signs sts-volume-gitops recreation records (HMAC-SHA256): {"recordKey": "..."}; generated, keep it unchanged while records are outstanding',
          value: { kind: 'generated', generateStringKey: 'recordKey', passwordLength: 64 },
          notRotatedBecause: 'A recreation record signed with the old key would be refused after a rotation, leaving its StatefulSet absent; the key is changed by hand, only while no record is outstanding (README, "Recreation records").',
        });
      secret.grantRead(this.function);
      return secret;
    });
  }
}
