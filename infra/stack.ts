// The AWS side: the scheduled Lambda (nodejs22.x) running one pass per target, its secret, EKS access and alarms.
// Synthesizes offline: bundling uses the locally installed esbuild, no Docker and no credentials.
import { fileURLToPath } from 'node:url';
import { Duration, Stack, type StackProps } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as eks from 'aws-cdk-lib/aws-eks';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface EksTarget {
  /** EKS cluster name, as in the tool's config (`cluster.eks.name`). */
  name: string;
  /** Namespaces the tool may touch; the access entry is scoped to them. */
  namespaces: string[];
  /** EKS access policy for the function's role; AmazonEKSEditPolicy scoped to `namespaces` by default. */
  accessPolicy?: { policyArn: string; scope: 'namespace' | 'cluster' };
}

export interface StsVolumeGitopsStackProps extends StackProps {
  /** The tool's configuration file (YAML), shipped inside the function bundle. */
  configFile: string;
  eksClusters: EksTarget[];
  /** Minutes between passes (EventBridge Scheduler rate); 5 by default. */
  everyMinutes?: number;
  /** The Lambda entry; the project's handler by default (tests may pass a small fixture). */
  entry?: string;
  /** ARN of the AWS Parameters and Secrets Lambda Extension layer for the region (arm64). */
  secretsExtensionLayerArn?: string;
  memorySize?: number;
  timeout?: Duration;
}

const defaultEntry = fileURLToPath(new URL('../functions/lambda/handler.ts', import.meta.url));
const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export class StsVolumeGitopsStack extends Stack {
  readonly function: nodejs.NodejsFunction;
  readonly githubSecret: secretsmanager.Secret;

  constructor(scope: Construct, id: string, props: StsVolumeGitopsStackProps) {
    super(scope, id, props);

    this.githubSecret = new secretsmanager.Secret(this, 'GitHubAppKey', {
      description: 'GitHub App private key (PEM) or token for sts-volume-gitops; referenced as privateKey.secret in the config',
    });
    const deadLetters = new sqs.Queue(this, 'FailedInvocations', { retentionPeriod: Duration.days(14), enforceSSL: true });

    const everyMinutes = props.everyMinutes ?? 5;
    if (!Number.isInteger(everyMinutes) || everyMinutes < 1) throw new Error(`everyMinutes must be a whole number of minutes >= 1, got ${everyMinutes}`);
    const configFile = props.configFile;
    this.function = new nodejs.NodejsFunction(this, 'Reconciler', {
      entry: props.entry ?? defaultEntry,
      handler: 'handler',
      projectRoot,
      depsLockFilePath: `${projectRoot}package-lock.json`,
      runtime: lambda.Runtime.NODEJS_22_X,
      architecture: lambda.Architecture.ARM_64,
      memorySize: props.memorySize ?? 512,
      timeout: props.timeout ?? Duration.minutes(5),
      // Passes of one target must never overlap; the Lease guards the cluster, this guards the bill.
      reservedConcurrentExecutions: 1,
      deadLetterQueue: deadLetters,
      retryAttempts: 0,
      environment: {
        STS_VOLUME_GITOPS_CONFIG: '/var/task/config.yaml',
        POWERTOOLS_SERVICE_NAME: 'sts-volume-gitops',
        POWERTOOLS_LOG_LEVEL: 'INFO',
        GITHUB_SECRET_ID: this.githubSecret.secretName,
      },
      layers: props.secretsExtensionLayerArn
        ? [lambda.LayerVersion.fromLayerVersionArn(this, 'SecretsExtension', props.secretsExtensionLayerArn)]
        : [],
      bundling: {
        format: nodejs.OutputFormat.ESM,
        target: 'node22',
        mainFields: ['module', 'main'],
        // ESM bundles still meet CommonJS dependencies that call require().
        banner: "import { createRequire } from 'module'; const require = createRequire(import.meta.url);",
        commandHooks: {
          beforeBundling: () => [],
          beforeInstall: () => [],
          afterBundling: (_input: string, output: string) => [`cp ${JSON.stringify(configFile)} ${JSON.stringify(`${output}/config.yaml`)}`],
        },
      },
    });
    this.githubSecret.grantRead(this.function);

    for (const cluster of props.eksClusters) {
      const clusterArn = Stack.of(this).formatArn({ service: 'eks', resource: 'cluster', resourceName: cluster.name });
      this.function.addToRolePolicy(new iam.PolicyStatement({ actions: ['eks:DescribeCluster'], resources: [clusterArn] }));
      // The function's role becomes a cluster principal with edit rights in the allowed namespaces only.
      new eks.CfnAccessEntry(this, `Access-${cluster.name}`, {
        clusterName: cluster.name,
        principalArn: this.function.role?.roleArn ?? '',
        type: 'STANDARD',
        accessPolicies: [accessPolicyFor(cluster)],
      });
    }

    const schedulerRole = new iam.Role(this, 'SchedulerRole', { assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com') });
    this.function.grantInvoke(schedulerRole);
    new scheduler.CfnSchedule(this, 'Schedule', {
      scheduleExpression: everyMinutes === 1 ? 'rate(1 minute)' : `rate(${everyMinutes} minutes)`,
      flexibleTimeWindow: { mode: 'OFF' },
      description: 'One sts-volume-gitops pass per configured target',
      target: {
        arn: this.function.functionArn,
        roleArn: schedulerRole.roleArn,
        input: JSON.stringify({ source: 'schedule' }),
        retryPolicy: { maximumRetryAttempts: 0 },
        deadLetterConfig: { arn: deadLetters.queueArn },
      },
    });
    deadLetters.grantSendMessages(schedulerRole);

    new cloudwatch.Alarm(this, 'Errors', {
      metric: this.function.metricErrors({ period: Duration.minutes(15) }),
      threshold: 1,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      alarmDescription: 'sts-volume-gitops passes are failing (see the function logs)',
    });
  }
}

function accessPolicyFor(cluster: EksTarget): eks.CfnAccessEntry.AccessPolicyProperty {
  const policy = cluster.accessPolicy ?? { policyArn: 'arn:aws:eks::aws:cluster-access-policy/AmazonEKSEditPolicy', scope: 'namespace' };
  if (policy.scope === 'cluster') return { policyArn: policy.policyArn, accessScope: { type: 'cluster' } };
  if (cluster.namespaces.length === 0) throw new Error(`EKS cluster ${cluster.name}: a namespace-scoped access policy needs at least one namespace`);
  return { policyArn: policy.policyArn, accessScope: { type: 'namespace', namespaces: cluster.namespaces } };
}
