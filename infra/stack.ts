// The AWS side: the scheduled Lambda (nodejs22.x, arm64) running one pass per target, its secrets, EKS access, logs,
// metrics and alarms. The tool's configuration is the one source of truth: it is checked against the schema at synth,
// bundled with the function, and names the clusters and secrets the stack grants. Synthesizes offline: bundling uses
// the locally installed esbuild (infra/lambda-bundle.ts), no Docker and no credentials.
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Duration, SecretValue, Stack, Token, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sns from 'aws-cdk-lib/aws-sns';
import * as snsSubscriptions from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { configEnvironmentVariable, parseConfig, type Config } from '../functions/domain/config.ts';
import { defaultMetricsNamespace } from '../functions/lambda/publish-metrics.ts';
import { lambdaBundle } from './lambda-bundle.ts';

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
  /** The Lambda entry; the project's handler by default (tests may pass a small fixture). */
  entry?: string;
  memorySize?: number;
  /** 5 minutes by default; at most 14 (an EKS token must outlive the invocation). */
  timeout?: Duration;
}

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export class StsVolumeGitopsStack extends Stack {
  readonly function: nodejs.NodejsFunction;
  readonly config: Config;
  readonly alarmTopic: sns.ITopic;
  readonly deadLetters: sqs.Queue;
  readonly githubSecrets: secretsmanager.ISecret[];

  constructor(scope: Construct, id: string, props: StsVolumeGitopsStackProps) {
    super(scope, id, props);
    const configFile = resolve(props.configFile);
    // A config that fails the schema fails synth with the schema's message (ConfigError).
    this.config = parseConfig(readFileSync(configFile, 'utf8'), configFile, dirname(configFile));

    const everyMinutes = props.everyMinutes ?? 5;
    if (!Number.isInteger(everyMinutes) || everyMinutes < 1) throw new Error(`everyMinutes must be a whole number of minutes >= 1, got ${everyMinutes}`);
    const timeout = props.timeout ?? Duration.minutes(5);
    if (timeout.toSeconds() > 14 * 60) throw new Error(`timeout must be at most 14 minutes (an EKS token lives 15), got ${timeout.toHumanString()}`);

    this.deadLetters = new sqs.Queue(this, 'FailedInvocations', { retentionPeriod: Duration.days(14), enforceSSL: true });
    const logGroup = new logs.LogGroup(this, 'Logs', { retention: props.logRetention ?? logs.RetentionDays.ONE_MONTH });

    this.function = new nodejs.NodejsFunction(this, 'Reconciler', {
      entry: props.entry ?? lambdaBundle.entry,
      handler: lambdaBundle.handler,
      projectRoot,
      depsLockFilePath: `${projectRoot}package-lock.json`,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout,
      // Passes of one target must never overlap; the Lease guards the cluster, this guards the bill.
      reservedConcurrentExecutions: 1,
      deadLetterQueue: this.deadLetters,
      retryAttempts: 0,
      maxEventAge: props.maximumEventAge ?? Duration.minutes(10),
      logGroup,
      ...(props.vpc ? { vpc: props.vpc } : {}),
      ...(props.vpcSubnets ? { vpcSubnets: props.vpcSubnets } : {}),
      ...(props.securityGroups ? { securityGroups: props.securityGroups } : {}),
      environment: {
        [configEnvironmentVariable]: `${lambdaBundle.taskRoot}/${lambdaBundle.configFileName}`,
        POWERTOOLS_SERVICE_NAME: 'sts-volume-gitops',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        POWERTOOLS_METRICS_NAMESPACE: props.metricsNamespace ?? defaultMetricsNamespace,
      },
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: lambdaBundle.target,
        mainFields: [...lambdaBundle.mainFields],
        banner: lambdaBundle.banner,
        externalModules: [...lambdaBundle.externalModules],
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_input: string, output: string) => [`cp ${JSON.stringify(configFile)} ${JSON.stringify(`${output}/${lambdaBundle.configFileName}`)}`],
        },
      },
    });

    this.githubSecrets = this.grantSecrets(props.githubSecretArn);
    this.grantClusters();
    this.schedule(props, everyMinutes);
    this.alarmTopic = props.alarmTopic ?? new sns.Topic(this, 'Alarms', { displayName: 'sts-volume-gitops alarms' });
    if (props.alarmEmail) this.alarmTopic.addSubscription(new snsSubscriptions.EmailSubscription(props.alarmEmail));
    this.alarms(timeout);
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

  /** Per EKS cluster in the config: DescribeCluster on it and an access entry mapping the role to the Kubernetes group. */
  private grantClusters(): void {
    const clusters = new Map<string, { name: string; region: string }>();
    for (const target of this.config.targets) {
      if ('eks' in target.cluster) clusters.set(`${target.cluster.eks.region}/${target.cluster.eks.name}`, target.cluster.eks);
    }
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
    // Exactly the function, not its versions (grantInvoke would add `arn:*`).
    schedulerRole.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [this.function.functionArn] }));
    const window = props.flexibleWindowMinutes;
    if (window !== undefined && (!Number.isInteger(window) || window < 1 || window > 1440)) throw new Error(`flexibleWindowMinutes must be a whole number from 1 to 1440, got ${window}`);
    new scheduler.CfnSchedule(this, 'Schedule', {
      scheduleExpression: everyMinutes === 1 ? 'rate(1 minute)' : `rate(${everyMinutes} minutes)`,
      flexibleTimeWindow: window === undefined ? { mode: 'OFF' } : { mode: 'FLEXIBLE', maximumWindowInMinutes: window },
      description: 'One sts-volume-gitops pass per configured target',
      target: {
        arn: this.function.functionArn,
        roleArn: schedulerRole.roleArn,
        input: JSON.stringify({ source: 'schedule' }),
        retryPolicy: { maximumRetryAttempts: props.scheduleRetryAttempts ?? 0, maximumEventAgeInSeconds: props.scheduleMaximumEventAgeSeconds ?? 300 },
      },
    });
  }

  private alarms(timeout: Duration): void {
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
    alarm('Errors', 'sts-volume-gitops: an invocation failed (a target failed or the config is unreadable; see the function logs)',
      this.function.metricErrors({ period }), 1);
    alarm('Throttles', 'sts-volume-gitops: invocations are throttled (passes overlap or the account is at its concurrency limit)',
      this.function.metricThrottles({ period }), 1);
    alarm('DurationNearTimeout', 'sts-volume-gitops: a pass ran past 80% of the function timeout',
      this.function.metricDuration({ period, statistic: 'Maximum' }), Math.floor(timeout.toMilliseconds() * 0.8));
    alarm('DeadLetters', 'sts-volume-gitops: failed invocations are waiting in the dead-letter queue',
      this.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), 1);
  }
}
