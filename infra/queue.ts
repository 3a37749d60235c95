// The queues: the target queue (SQS FIFO, one message group per cluster) the worker consumes, its dead-letter queue,
// and the dead-letter queue of the dispatcher's failed asynchronous invocations.
import { Duration, Validations } from 'aws-cdk-lib';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';

export interface TargetQueues {
  /** The target queue (FIFO). */
  queue: sqs.Queue;
  /** Where a target message goes after `maxReceiveCount` failed passes (FIFO). */
  failedMessages: sqs.Queue;
  /** Failed dispatcher invocations (the schedule invokes it asynchronously). */
  deadLetters: sqs.Queue;
  /** The target queue's: how long after its receive a failed pass's message comes back. */
  visibilityTimeout: Duration;
}

/** AWS's advice for an SQS event source: a visibility timeout of six times the function's timeout. */
export const visibilityTimeoutFactor = 6;
const maximumRetention = Duration.days(14);

export function targetQueues(scope: Construct, options: { workerTimeout: Duration; maxReceiveCount: number }): TargetQueues {
  // Six times the worker's timeout: the event source retries an invocation Lambda throttled within the message's
  // visibility timeout, so a shorter one lets a message come back while its retry is still pending. The cost: a pass
  // that crashed or timed out is received again only after it, and its cluster's group waits meanwhile (FIFO).
  const visibilityTimeout = Duration.seconds(options.workerTimeout.toSeconds() * visibilityTimeoutFactor);
  // A message must live through every receive before the dead-letter queue; expiring first would drop it unseen.
  const retentionPeriod = Duration.seconds(visibilityTimeout.toSeconds() * options.maxReceiveCount + Duration.hours(1).toSeconds());
  if (retentionPeriod.toSeconds() > maximumRetention.toSeconds()) {
    throw new Error(`maxReceiveCount ${options.maxReceiveCount} receives of ${visibilityTimeout.toHumanString()} each (${visibilityTimeoutFactor} x the worker timeout) outlast SQS's 14-day retention: a failing target's message would expire before its dead-letter queue; lower maxReceiveCount or the timeout`);
  }
  const encryption = sqs.QueueEncryption.SQS_MANAGED;
  const deadLetters = new sqs.Queue(scope, 'FailedInvocations', { retentionPeriod: maximumRetention, enforceSSL: true, encryption });
  const failedMessages = new sqs.Queue(scope, 'FailedTargetMessages', { fifo: true, retentionPeriod: maximumRetention, enforceSSL: true, encryption });
  for (const queue of [deadLetters, failedMessages]) {
    Validations.of(queue).acknowledge({
      id: 'Serverless-SQSRedrivePolicy',
      reason: 'This queue is a dead-letter queue (alarmed when it holds a message); a dead-letter queue of its own would only move the messages nobody read.',
    });
  }
  const queue = new sqs.Queue(scope, 'Targets', {
    fifo: true, enforceSSL: true, encryption, retentionPeriod, visibilityTimeout,
    deadLetterQueue: { queue: failedMessages, maxReceiveCount: options.maxReceiveCount },
  });
  return { queue, failedMessages, deadLetters, visibilityTimeout };
}
