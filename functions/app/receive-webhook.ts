// One GitHub webhook delivery, whatever carries it (a Lambda Function URL, the CLI's local server): the size is
// bounded first (GitHub caps payloads at 25 MB), the signature is checked over the raw body (X-Hub-Signature-256,
// HMAC-SHA256 with the webhook secret), and only a signed delivery is parsed, then read as the event its
// X-GitHub-Event header names (webhook-payloads.ts: the header is not signed). Every signed body gets a 2xx or a
// reasoned 4xx. The answer comes right after the messages are queued: the passes run elsewhere.
import { createHmac, timingSafeEqual } from 'node:crypto';
import { verify } from '@octokit/webhooks-methods';
import type { Config } from '../domain/config.ts';
import type { DeliveryMemory } from './delivery-memory.ts';
import { decideWebhook } from './webhook-targets.ts';
import { isReadEvent, payloadReaders } from './webhook-payloads.ts';
import type { QueuedTargetMessage } from './target-messages.ts';

/** GitHub does not deliver payloads over 25 MB; a larger body is not GitHub's and is refused unread. */
export const maxWebhookBodyBytes = 25 * 1024 * 1024;

export interface WebhookRequest {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body, exactly as signed. */
  body: string;
}

/** Why a delivery was refused: the `reason` dimension of the `WebhookDeliveriesRefused` metric. */
export type WebhookRefusal = 'method' | 'too-large' | 'bad-signature' | 'empty-body' | 'no-event' | 'not-json' | 'payload-mismatch'
  /** The local webhook only: what the delivery asks for is not run in that process (an apply on an EKS target). */
  | 'not-run-here';

export type WebhookOutcome =
  | { kind: 'refused'; reason: WebhookRefusal }
  | { kind: 'ignored' }
  /** `repeated`: its delivery id was queued before (delivery-memory.ts): a redelivery, or a captured one sent again. */
  | { kind: 'queued'; messages: number; repeated: boolean };

export interface WebhookAnswer {
  statusCode: number;
  body: string;
  /** What became of the delivery, for metrics; not sent. */
  outcome: WebhookOutcome;
}

export interface WebhookDeps {
  secret: () => Promise<string>;
  config: () => Promise<Config>;
  enqueue: (messages: readonly QueuedTargetMessage[]) => Promise<void>;
  /** Never given the body. */
  log: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
  /** The delivery ids this instance queued lately; without it, no delivery is told to be a repeat. */
  deliveries?: DeliveryMemory;
}

export function refusal(statusCode: number, reason: WebhookRefusal, error: string): WebhookAnswer {
  return { statusCode, body: JSON.stringify({ error }), outcome: { kind: 'refused', reason } };
}

/** The answer to a body over `maxWebhookBodyBytes`, given before (or instead of) reading it. */
export function tooLarge(): WebhookAnswer {
  return refusal(413, 'too-large', `the body is over ${maxWebhookBodyBytes} bytes, which GitHub never delivers`);
}

export async function receiveWebhook(request: WebhookRequest, deps: WebhookDeps): Promise<WebhookAnswer> {
  const event = request.headers['x-github-event'] ?? '';
  const delivery = request.headers['x-github-delivery'] ?? '';
  const refuse = (answer: WebhookAnswer, message: string, fields: Record<string, unknown> = {}): WebhookAnswer => {
    deps.log('warn', `webhook refused: ${message}`, { event, delivery, status: answer.statusCode, ...fields });
    return answer;
  };
  const bytes = Buffer.byteLength(request.body);
  if (bytes > maxWebhookBodyBytes) return refuse(tooLarge(), 'body too large', { bytes });
  const signature = request.headers['x-hub-signature-256'];
  if (signature === undefined || !signature.startsWith('sha256=') || !await verifySignature(await deps.secret(), request.body, signature)) {
    return refuse(refusal(401, 'bad-signature', 'bad signature'), 'missing or bad signature', { signed: signature !== undefined, bytes });
  }
  if (request.body === '') return refuse(refusal(400, 'empty-body', 'the body is empty: GitHub always sends a JSON payload'), 'empty body');
  if (event === '') return refuse(refusal(400, 'no-event', 'no X-GitHub-Event header: which event this is cannot be told'), 'no event header');
  if (event === 'ping') return { statusCode: 200, body: JSON.stringify({ ok: true }), outcome: { kind: 'ignored' } };
  let payload: unknown;
  try {
    payload = JSON.parse(request.body);
  } catch {
    return refuse(refusal(400, 'not-json', 'the body is not JSON: set the webhook content type to application/json'), 'the body is not JSON (content type must be application/json)');
  }
  const ignore = (reason: string): WebhookAnswer => {
    deps.log('info', 'webhook ignored', { event, delivery, reason });
    return { statusCode: 202, body: JSON.stringify({ ignored: reason }), outcome: { kind: 'ignored' } };
  };
  if (!isReadEvent(event)) return ignore(`event ${event} is not used`);
  const reading = payloadReaders[event](payload);
  if (!reading.ok) {
    return refuse(refusal(400, 'payload-mismatch', `${reading.problem} (X-GitHub-Event says ${event})`), 'the body does not match its event', { problem: reading.problem });
  }
  const decision = decideWebhook(await deps.config(), reading.delivery, delivery);
  if (decision.kind === 'ignore') return ignore(decision.reason);
  await deps.enqueue(decision.messages);
  const queued = decision.messages.map((m) => ({ target: m.body.target, action: m.body.action }));
  deps.log('info', 'webhook queued', { event, delivery, queued });
  // Queued all the same: the passes are idempotent, and GitHub's "Redeliver" sends the id again.
  const repeated = delivery !== '' && deps.deliveries?.queuedBefore(delivery) === true;
  if (repeated) deps.log('warn', 'webhook delivery repeated', { event, delivery, queued });
  return { statusCode: 202, body: JSON.stringify({ queued }), outcome: { kind: 'queued', messages: decision.messages.length, repeated } };
}

async function verifySignature(secret: string, body: string, signature: string): Promise<boolean> {
  // webhooks-methods refuses an empty payload with a TypeError; a signed empty body must still be told from an
  // unsigned one (400, not 401), so that one case is computed here, as GitHub signs: HMAC-SHA256 of the bytes.
  if (body === '') {
    const expected = Buffer.from(`sha256=${createHmac('sha256', secret).update('').digest('hex')}`);
    const given = Buffer.from(signature);
    return given.length === expected.length && timingSafeEqual(given, expected);
  }
  try {
    return await verify(secret, body, signature);
  } catch {
    // A malformed signature (wrong length, not hex) is a bad signature, not a server error.
    return false;
  }
}
