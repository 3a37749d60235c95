// The GitHub webhook: a Lambda behind a Function URL (auth NONE: GitHub cannot sign AWS requests, so the handler checks
// X-Hub-Signature-256 before anything else), the secret GitHub signs with, and the outputs to paste into GitHub.
import { CfnOutput, Duration, Validations } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import type * as logs from 'aws-cdk-lib/aws-logs';
import * as secretsmanager from 'aws-cdk-lib/aws-secretsmanager';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { targetQueueUrlVariable } from '../functions/adapters/aws/target-queue.ts';
import { webhookSecretVariable } from '../functions/lambda/webhook.ts';
import { retainedSecret } from './secrets.ts';
import { shippedFunction } from './shipped-function.ts';

export interface WebhookEndpointOptions {
  entry: string;
  configFile: string;
  logRetention: logs.RetentionDays;
  /** Reserved concurrency: requests beyond get 429 instead of taking the account's shared pool from the others. */
  concurrency: number;
  queue: sqs.IQueue;
  metricsNamespace: string;
  /** An existing secret (complete ARN) holding `{"webhookSecret": "..."}` or the bare secret; else one is generated. */
  existingSecretArn?: string;
}

export interface WebhookEndpoint {
  fn: nodejs.NodejsFunction;
  url: lambda.FunctionUrl;
  secret: secretsmanager.ISecret;
}

export function webhookEndpoint(scope: Construct, options: WebhookEndpointOptions): WebhookEndpoint {
  const secret = options.existingSecretArn
    ? secretsmanager.Secret.fromSecretCompleteArn(scope, 'WebhookSecret', options.existingSecretArn)
    : retainedSecret(scope, 'WebhookSecret', {
      description: 'GitHub webhook secret for sts-volume-gitops: {"webhookSecret": "..."}; paste the value into the webhook settings (see infra/README.md)',
      value: { kind: 'generated', generateStringKey: 'webhookSecret', passwordLength: 40 },
      notRotatedBecause: 'GitHub holds the same value (the webhook settings) and signs every delivery with it: a rotation by Secrets Manager would make every delivery fail its signature until someone pastes the new value into GitHub. Rotate by hand: new value in GitHub and here together.',
    });
  const fn = shippedFunction(scope, 'Webhook', {
    // GitHub waits 10 s for an answer; queueing takes milliseconds.
    entry: options.entry, configFile: options.configFile, timeout: Duration.seconds(10), memorySize: 256, logRetention: options.logRetention,
    // The URL is public: a flood of unsigned requests gets 429 beyond this, and cannot starve the worker.
    reservedConcurrentExecutions: options.concurrency,
    environment: { [targetQueueUrlVariable]: options.queue.queueUrl, [webhookSecretVariable]: secret.secretArn, POWERTOOLS_METRICS_NAMESPACE: options.metricsNamespace },
  });
  // sqs:SendMessage on the target queue and reading its secret, nothing else.
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['sqs:SendMessage'], resources: [options.queue.queueArn] }));
  fn.addToRolePolicy(new iam.PolicyStatement({ actions: ['secretsmanager:GetSecretValue'], resources: [secret.secretArn] }));
  const answered = 'The Function URL invokes the webhook synchronously: GitHub gets the error answer, shows the delivery as failed and can redeliver it, and the next scheduled pass does what it would have queued. A dead-letter queue applies to asynchronous invocations only.';
  for (const id of ['Serverless-LambdaDLQ', 'NIST.800.53.R5-LambdaDLQ']) Validations.of(fn).acknowledge({ id, reason: answered });
  // Auth NONE: GitHub cannot sign AWS requests; the handler checks X-Hub-Signature-256 before anything else.
  const url = fn.addFunctionUrl({ authType: lambda.FunctionUrlAuthType.NONE });
  Validations.of(fn).acknowledge({
    id: 'NIST.800.53.R5-LambdaFunctionPublicAccessProhibited',
    reason: 'GitHub delivers webhooks to a public URL and cannot sign AWS requests. The handler checks X-Hub-Signature-256 before anything else; reserved concurrency bounds what a flood costs, and the WebhookRefused alarm reports refused deliveries.',
  });
  new CfnOutput(scope, 'WebhookUrl', { value: url.url, description: 'Payload URL for the GitHub webhook (content type application/json)' });
  new CfnOutput(scope, 'WebhookSecretArn', { value: secret.secretArn, description: 'The secret to paste into the GitHub webhook: its webhookSecret field' });
  return { fn, url, secret };
}
