// One GitHub webhook delivery, whatever carries it (a Lambda Function URL, the CLI's local server): the signature is
// checked over the raw body first (X-Hub-Signature-256, HMAC-SHA256 with the webhook secret), and only a signed
// delivery is parsed. The answer comes right after the messages are queued: the passes run elsewhere.
import { verify } from '@octokit/webhooks-methods';
import type { Config } from '../domain/config.ts';
import { decideWebhook } from './webhook-targets.ts';
import type { QueuedTargetMessage } from './target-messages.ts';

export interface WebhookRequest {
  /** Header names in lower case. */
  headers: Readonly<Record<string, string | undefined>>;
  /** The raw body, exactly as signed. */
  body: string;
}

export interface WebhookAnswer {
  statusCode: number;
  body: string;
}

export interface WebhookDeps {
  secret: () => Promise<string>;
  config: () => Promise<Config>;
  enqueue: (messages: readonly QueuedTargetMessage[]) => Promise<void>;
  /** Never given the body. */
  log: (level: 'info' | 'warn', message: string, fields: Record<string, unknown>) => void;
}

const answer = (statusCode: number, body: Record<string, unknown>): WebhookAnswer => ({ statusCode, body: JSON.stringify(body) });

export async function receiveWebhook(request: WebhookRequest, deps: WebhookDeps): Promise<WebhookAnswer> {
  const event = request.headers['x-github-event'] ?? '';
  const delivery = request.headers['x-github-delivery'] ?? '';
  const signature = request.headers['x-hub-signature-256'];
  if (signature === undefined || !signature.startsWith('sha256=') || !await verifySignature(await deps.secret(), request.body, signature)) {
    deps.log('warn', 'webhook refused: missing or bad signature', { event, delivery, signed: signature !== undefined, bytes: Buffer.byteLength(request.body) });
    return answer(401, { error: 'bad signature' });
  }
  if (event === 'ping') return answer(200, { ok: true });
  let payload: unknown;
  try {
    payload = JSON.parse(request.body);
  } catch {
    deps.log('warn', 'webhook refused: the body is not JSON (content type must be application/json)', { event, delivery });
    return answer(400, { error: 'the body is not JSON: set the webhook content type to application/json' });
  }
  const decision = decideWebhook(await deps.config(), event, payload);
  if (decision.kind === 'ignore') {
    deps.log('info', 'webhook ignored', { event, delivery, reason: decision.reason });
    return answer(202, { ignored: decision.reason });
  }
  await deps.enqueue(decision.messages);
  const queued = decision.messages.map((m) => ({ target: m.body.target, action: m.body.action }));
  deps.log('info', 'webhook queued', { event, delivery, queued });
  return answer(202, { queued });
}

async function verifySignature(secret: string, body: string, signature: string): Promise<boolean> {
  try {
    return await verify(secret, body, signature);
  } catch {
    // A malformed signature (wrong length, not hex) is a bad signature, not a server error.
    return false;
  }
}
