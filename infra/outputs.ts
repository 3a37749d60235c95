// The stack's outputs for infra/README.md's runbook (step 7, "Alarms and dead-letter queues"): what its commands take
// (`aws lambda invoke --function-name`, `aws sqs send-message --queue-url`, `aws logs tail`, a dead-letter queue's
// purge or redrive), so nobody looks them up in the console. `aws cloudformation describe-stacks --stack-name
// StsVolumeGitops --query 'Stacks[0].Outputs'` lists them. Made by stack.ts.
import { CfnOutput, type Stack } from 'aws-cdk-lib';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sqs from 'aws-cdk-lib/aws-sqs';

export interface RunbookResources {
  dispatcher: lambda.Function;
  worker: lambda.Function;
  webhook: lambda.Function | undefined;
  queue: sqs.IQueue;
  failedMessages: sqs.IQueue;
  deadLetters: sqs.IQueue;
}

/** Output names, as infra/README.md and its docs test name them. */
export const runbookOutputNames = [
  'DispatcherFunctionName', 'TargetsQueueUrl', 'FailedTargetMessagesUrl', 'FailedTargetMessagesArn', 'FailedInvocationsUrl',
  'WorkerLogGroup', 'DispatcherLogGroup', 'WebhookLogGroup',
] as const;

export function runbookOutputs(stack: Stack, resources: RunbookResources): void {
  const output = (name: (typeof runbookOutputNames)[number], value: string, description: string): void => {
    new CfnOutput(stack, name, { value, description });
  };
  output('DispatcherFunctionName', resources.dispatcher.functionName, 'Invoke it to queue a pass per target now: aws lambda invoke --function-name <this> out.json');
  output('TargetsQueueUrl', resources.queue.queueUrl, 'The target queue (FIFO): aws sqs send-message --queue-url <this> for one target\'s pass');
  output('FailedTargetMessagesUrl', resources.failedMessages.queueUrl, 'Dead-letter queue of target messages whose pass failed on every receive: purge it once the cause is fixed');
  output('FailedTargetMessagesArn', resources.failedMessages.queueArn, 'The same queue, for a redrive: aws sqs start-message-move-task --source-arn <this>');
  output('FailedInvocationsUrl', resources.deadLetters.queueUrl, 'Dead-letter queue of dispatcher invocations that failed: read the error attributes, then purge');
  output('WorkerLogGroup', logGroupName(resources.worker), 'The passes\' logs: aws logs tail <this> --follow');
  output('DispatcherLogGroup', logGroupName(resources.dispatcher), 'The dispatcher\'s logs');
  if (resources.webhook) output('WebhookLogGroup', logGroupName(resources.webhook), 'The webhook\'s logs (queued, ignored and refused deliveries)');
}

function logGroupName(fn: lambda.Function): string {
  return fn.logGroup.logGroupName;
}
