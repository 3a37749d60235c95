// One Lambda function of the stack, bundled with the shared esbuild definition (infra/lambda-bundle.ts) and the
// tool's configuration copied beside the bundle; every function the stack ships is made here, the same way.
import { fileURLToPath } from 'node:url';
import type { Duration } from 'aws-cdk-lib';
import type * as ec2 from 'aws-cdk-lib/aws-ec2';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { configEnvironmentVariable } from '../functions/domain/config.ts';
import { lambdaBundle } from './lambda-bundle.ts';

const projectRoot = fileURLToPath(new URL('..', import.meta.url));

export interface ShippedFunctionOptions {
  entry: string;
  configFile: string;
  timeout: Duration;
  memorySize: number;
  logGroup: logs.ILogGroup;
  environment: Record<string, string>;
  reservedConcurrentExecutions?: number;
  network?: { vpc?: ec2.IVpc; vpcSubnets?: ec2.SubnetSelection; securityGroups?: ec2.ISecurityGroup[] };
  extra?: Partial<nodejs.NodejsFunctionProps>;
}

export function shippedFunction(scope: Construct, id: string, options: ShippedFunctionOptions): nodejs.NodejsFunction {
  const { network } = options;
  return new nodejs.NodejsFunction(scope, id, {
    entry: options.entry,
    handler: lambdaBundle.handler,
    projectRoot,
    depsLockFilePath: `${projectRoot}package-lock.json`,
    runtime: lambda.Runtime.NODEJS_22_X,
    architecture: lambda.Architecture.ARM_64,
    memorySize: options.memorySize,
    timeout: options.timeout,
    logGroup: options.logGroup,
    ...(options.reservedConcurrentExecutions !== undefined ? { reservedConcurrentExecutions: options.reservedConcurrentExecutions } : {}),
    ...(network?.vpc ? { vpc: network.vpc } : {}),
    ...(network?.vpcSubnets ? { vpcSubnets: network.vpcSubnets } : {}),
    ...(network?.securityGroups ? { securityGroups: network.securityGroups } : {}),
    environment: {
      [configEnvironmentVariable]: `${lambdaBundle.taskRoot}/${lambdaBundle.configFileName}`,
      POWERTOOLS_SERVICE_NAME: 'sts-volume-gitops',
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
}
