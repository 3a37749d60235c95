// One Lambda function of the stack, bundled with the shared esbuild definition (infra/lambda-bundle.ts) and the
// tool's configuration copied beside the bundle; every function the stack ships is made here, the same way. Each has
// its own role and its own log group: the role may write to that log group and nothing else (no
// AWSLambdaBasicExecutionRole, which grants logs:* on every log group of the account).
import { fileURLToPath } from 'node:url';
import { Validations, type Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { configEnvironmentVariable } from '../functions/domain/config.ts';
import { lambdaBundle } from './lambda-bundle.ts';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/** POWERTOOLS_SERVICE_NAME of every function: the `service` dimension of the metrics they emit. */
export const powertoolsServiceName = 'sts-volume-gitops';

export interface ShippedFunctionOptions {
  entry: string;
  configFile: string;
  timeout: Duration;
  memorySize: number;
  logRetention: logs.RetentionDays;
  environment: Record<string, string>;
  /** Invocations at once; also keeps one function from taking the account's shared pool from the others. */
  reservedConcurrentExecutions: number;
  network?: { vpc?: ec2.IVpc; vpcSubnets?: ec2.SubnetSelection; securityGroups?: ec2.ISecurityGroup[] };
  extra?: Partial<nodejs.NodejsFunctionProps>;
}

/** The actions Lambda needs on the role to attach a function to a VPC (its ENIs). */
const vpcNetworkInterfaceActions = [
  'ec2:CreateNetworkInterface', 'ec2:DescribeNetworkInterfaces', 'ec2:DescribeSubnets', 'ec2:DeleteNetworkInterface',
  'ec2:AssignPrivateIpAddresses', 'ec2:UnassignPrivateIpAddresses',
];

export function shippedFunction(scope: Construct, id: string, options: ShippedFunctionOptions): nodejs.NodejsFunction {
  const { network } = options;
  const logGroup = new logs.LogGroup(scope, `${id}Logs`, { retention: options.logRetention });
  const role = new iam.Role(scope, `${id}Role`, {
    assumedBy: new iam.ServicePrincipal('lambda.amazonaws.com'),
    description: `sts-volume-gitops ${id}: writes its own log group; the stack adds exactly what the ${id} does`,
  });
  // The log group's ARN ends in `:*`, which covers its log streams (PutLogEvents is granted on a stream).
  role.addToPolicy(new iam.PolicyStatement({ actions: ['logs:CreateLogStream', 'logs:PutLogEvents'], resources: [logGroup.logGroupArn] }));
  if (network?.vpc) {
    role.addToPolicy(new iam.PolicyStatement({ actions: vpcNetworkInterfaceActions, resources: ['*'] }));
    Validations.of(role).acknowledge({
      id: 'AwsSolutions-IAM5[Resource::*]',
      reason: 'In a VPC, Lambda creates and deletes the function\'s network interfaces with the execution role; ec2:Describe* takes no resource, and the interfaces do not exist before Lambda creates them.',
    });
  }
  const fn = new nodejs.NodejsFunction(scope, id, {
    entry: options.entry,
    handler: lambdaBundle.handler,
    projectRoot,
    depsLockFilePath: `${projectRoot}package-lock.json`,
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    role,
    logGroup,
    reservedConcurrentExecutions: options.reservedConcurrentExecutions,
    ...(network?.vpc ? { vpc: network.vpc } : {}),
    ...(network?.vpcSubnets ? { vpcSubnets: network.vpcSubnets } : {}),
    ...(network?.securityGroups ? { securityGroups: network.securityGroups } : {}),
    environment: {
      [configEnvironmentVariable]: `${lambdaBundle.taskRoot}/${lambdaBundle.configFileName}`,
      POWERTOOLS_SERVICE_NAME: powertoolsServiceName,
      POWERTOOLS_LOG_LEVEL: 'INFO',
      ...options.environment,
    },
    bundling: {
      format: nodejs.OutputFormat.ESM,
      target: lambdaBundle.target,
      mainFields: [...lambdaBundle.mainFields],
      banner: lambdaBundle.banner,
      externalModules: [...lambdaBundle.externalModules],
      minify: lambdaBundle.minify,
      keepNames: lambdaBundle.keepNames,
      commandHooks: {
        beforeBundling: () => [],
        beforeInstall: () => [],
        afterBundling: (_input: string, output: string) => [`cp ${JSON.stringify(options.configFile)} ${JSON.stringify(`${output}/${lambdaBundle.configFileName}`)}`],
      },
    },
    ...options.extra,
  });
  acknowledgeFunctionFindings(fn, role, logGroup, network?.vpc !== undefined);
  return fn;
}

/** The cdk-nag findings every function of the stack has on purpose, each with its reason. */
function acknowledgeFunctionFindings(fn: lambda.IFunction, role: iam.IRole, logGroup: logs.ILogGroup, inVpc: boolean): void {
  const nodeVersion = 'The code is built for and tested on Node.js 22 (client-node needs >= 22.19; the tests run the built bundles on Node 22, see infra/lambda-bundle.ts); a newer runtime is a deliberate upgrade with its own test run, not a default.';
  Validations.of(fn).acknowledge({ id: 'AwsSolutions-L1', reason: nodeVersion }, { id: 'Serverless-LambdaLatestVersion', reason: nodeVersion });
  Validations.of(fn).acknowledge({
    id: 'Serverless-LambdaTracing',
    reason: 'Each pass logs its summary (API calls, outcome per StatefulSet) and EMF metrics; X-Ray would add xray:Put* on "*" to every role for traces of two HTTP clients the logs already count.',
  });
  Validations.of(role).acknowledge({
    id: 'NIST.800.53.R5-IAMNoInlinePolicy',
    reason: 'Each role has one policy of its own, made with the role and scoped to the resources of this stack; a customer managed policy would grant the same, only versioned apart from the role that needs it.',
  });
  Validations.of(logGroup).acknowledge({
    id: 'NIST.800.53.R5-CloudWatchLogGroupEncrypted',
    reason: 'CloudWatch Logs encrypts every log group at rest; the logs hold target names, commits, object names and API answers, never a secret (secrets are read into memory only), so a customer managed key adds a key policy and no protection.',
  });
  if (!inVpc) {
    Validations.of(fn).acknowledge({
      id: 'NIST.800.53.R5-LambdaInsideVPC',
      reason: 'The functions talk to GitHub and to EKS API endpoints over TLS and hold no data store to isolate; `vpc` runs them in a VPC for clusters with private endpoints.',
    });
  }
}
