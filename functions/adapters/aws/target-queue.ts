// Sends target messages to the SQS FIFO queue the worker consumes, ten to a SendMessageBatch request (the API's
// limit). A message SQS refuses fails the send, naming it: the caller's invocation fails and is retried.
import { SendMessageBatchCommand, SQSClient, type SQSClientConfig } from '@aws-sdk/client-sqs';
import type { QueuedTargetMessage } from '../../app/target-messages.ts';
import { count } from '../../domain/spelling.ts';

export class QueueSendError extends Error {
  constructor(readonly failed: ReadonlyArray<{ target: string; code: string; message: string }>) {
    super(`SQS refused ${count(failed.length, 'message')}: ${failed.map((f) => `${f.target} (${f.code}: ${f.message})`).join('; ')}`);
    this.name = 'QueueSendError';
  }
}

export interface TargetQueue {
  send(messages: readonly QueuedTargetMessage[]): Promise<void>;
}

export function sqsTargetQueue(queueUrl: string, clientConfig: SQSClientConfig = {}): TargetQueue {
  const client = new SQSClient(clientConfig);
  return {
    async send(messages) {
      const failed: Array<{ target: string; code: string; message: string }> = [];
      for (let start = 0; start < messages.length; start += 10) {
        const chunk = messages.slice(start, start + 10);
        const answer = await client.send(new SendMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: chunk.map((m, index) => ({
            Id: String(index), MessageBody: JSON.stringify(m.body), MessageGroupId: m.groupId, MessageDeduplicationId: m.deduplicationId,
          })),
        }));
        for (const failure of answer.Failed ?? []) {
          failed.push({ target: chunk[Number(failure.Id)]?.body.target ?? `entry ${failure.Id}`, code: failure.Code ?? '?', message: failure.Message ?? '' });
        }
      }
      if (failed.length > 0) throw new QueueSendError(failed);
    },
  };
}

/** The queue the stack passes to the dispatcher and the webhook. */
export const targetQueueUrlVariable = 'STS_VOLUME_GITOPS_QUEUE_URL';

export function targetQueueFromEnvironment(env: NodeJS.ProcessEnv = process.env): TargetQueue {
  const url = env[targetQueueUrlVariable];
  if (!url) throw new Error(`${targetQueueUrlVariable} is not set: the dispatcher and the webhook need the target queue's URL`);
  // Local runs and tests point the client elsewhere with the SDK's own AWS_ENDPOINT_URL_SQS.
  return sqsTargetQueue(url);
}
