// A local FIFO queue speaking SQS's JSON protocol (AWS JSON 1.0) for SendMessageBatch, so that the real
// @aws-sdk/client-sqs sends over HTTP in tests. Keeps FIFO deduplication (same MessageDeduplicationId within five
// minutes: accepted, not queued again) and hands queued messages out as SQS event records for the worker.
import { createHash, randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { SQSRecord } from 'aws-lambda';

export interface QueuedMessage {
  messageId: string;
  body: string;
  groupId: string;
  deduplicationId: string;
  sentAt: number;
}

export interface LocalSqs {
  endpoint: string;
  queueUrl: string;
  queueArn: string;
  /** Every message queued (duplicates within the window are not). */
  messages: QueuedMessage[];
  /** Requests answered, by X-Amz-Target. */
  requests: string[];
  /** The region each request was signed for (its credential scope), in order. */
  signedRegions: string[];
  /** Takes the queued messages out, as the event source would hand them to the worker. */
  drain(): SQSRecord[];
  close(): Promise<void>;
}

const dedupWindowMs = 5 * 60_000;
const md5 = (text: string): string => createHash('md5').update(text, 'utf8').digest('hex');

interface BatchEntry { Id: string; MessageBody: string; MessageGroupId?: string; MessageDeduplicationId?: string }

/** `secrets`: also answers Secrets Manager's GetSecretValue (awsJson1.1) for these ids, for a function in another process. */
export async function startLocalSqs(options: { now?: () => number; secrets?: Record<string, string> } = {}): Promise<LocalSqs> {
  const now = options.now ?? Date.now;
  const queueName = 'targets.fifo';
  const queueArn = `arn:aws:sqs:eu-west-1:123456789012:${queueName}`;
  const messages: QueuedMessage[] = [];
  let pending: QueuedMessage[] = [];
  const requests: string[] = [];
  const signedRegions: string[] = [];
  const server: Server = createServer((request, response) => {
    signedRegions.push(/Credential=[^/]+\/\d{8}\/([^/]+)\//.exec(String(request.headers.authorization ?? ''))?.[1] ?? '');
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const target = String(request.headers['x-amz-target'] ?? '');
      requests.push(target);
      const reply = (status: number, body: unknown): void => {
        response.writeHead(status, { 'content-type': 'application/x-amz-json-1.0', 'x-amzn-requestid': randomUUID() });
        response.end(JSON.stringify(body));
      };
      const secret = options.secrets && target === 'secretsmanager.GetSecretValue' ? options.secrets[(JSON.parse(Buffer.concat(chunks).toString('utf8')) as { SecretId: string }).SecretId] : undefined;
      if (target === 'secretsmanager.GetSecretValue') {
        if (secret === undefined) return reply(400, { __type: 'ResourceNotFoundException', message: 'Secrets Manager can\'t find the specified secret.' });
        return reply(200, { ARN: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:webhook-AbCdEf', Name: 'webhook', SecretString: secret, VersionId: 'v1' });
      }
      if (target !== 'AmazonSQS.SendMessageBatch') return reply(400, { __type: 'com.amazonaws.sqs#InvalidAction', message: `not served here: ${target}` });
      const input = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { QueueUrl: string; Entries: BatchEntry[] };
      if (!input.QueueUrl.endsWith(`/${queueName}`)) return reply(400, { __type: 'com.amazonaws.sqs#QueueDoesNotExist', message: 'The specified queue does not exist.' });
      if (input.Entries.length > 10) return reply(400, { __type: 'com.amazonaws.sqs#TooManyEntriesInBatchRequest', message: `Maximum number of entries per request are 10. You have sent ${input.Entries.length}.` });
      const Successful: unknown[] = [];
      const Failed: unknown[] = [];
      for (const entry of input.Entries) {
        if (!entry.MessageGroupId || !entry.MessageDeduplicationId) {
          Failed.push({ Id: entry.Id, SenderFault: true, Code: 'MissingParameter', Message: 'The request must contain the parameter MessageGroupId and MessageDeduplicationId.' });
          continue;
        }
        const duplicate = messages.find((m) => m.deduplicationId === entry.MessageDeduplicationId && now() - m.sentAt < dedupWindowMs);
        const message = duplicate ?? { messageId: randomUUID(), body: entry.MessageBody, groupId: entry.MessageGroupId, deduplicationId: entry.MessageDeduplicationId, sentAt: now() };
        if (!duplicate) {
          messages.push(message);
          pending.push(message);
        }
        Successful.push({ Id: entry.Id, MessageId: message.messageId, MD5OfMessageBody: md5(entry.MessageBody), SequenceNumber: String(messages.indexOf(message) + 1).padStart(20, '0') });
      }
      reply(200, { Successful, Failed });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    endpoint, queueUrl: `${endpoint}/123456789012/${queueName}`, queueArn, messages, requests, signedRegions,
    drain: () => {
      const taken = pending;
      pending = [];
      return taken.map((m) => sqsRecord(m, queueArn));
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The record the SQS event source hands to Lambda for a FIFO message. */
export function sqsRecord(message: { messageId: string; body: string; groupId: string; deduplicationId: string; sentAt?: number }, queueArn: string): SQSRecord {
  const sent = String(message.sentAt ?? Date.now());
  return {
    messageId: message.messageId, receiptHandle: `handle-${message.messageId}`, body: message.body,
    attributes: {
      ApproximateReceiveCount: '1', SentTimestamp: sent, SenderId: 'AROAEXAMPLE:dispatcher', ApproximateFirstReceiveTimestamp: sent,
      MessageGroupId: message.groupId, MessageDeduplicationId: message.deduplicationId, SequenceNumber: '1',
    },
    messageAttributes: {}, md5OfBody: md5(message.body), eventSource: 'aws:sqs', eventSourceARN: queueArn, awsRegion: 'eu-west-1',
  };
}
