// Lambda entry behind the Function URL (auth NONE: GitHub cannot sign AWS requests, so the signature is checked in
// code): a GitHub delivery becomes target messages on the queue, and GitHub gets its answer within its 10 s.
// Unsigned or badly signed requests get 401 and are logged without their body; every refusal and every queued
// delivery is counted (webhook-metrics.ts). Lambda's 6 MB invocation payload limit refuses larger requests before the
// function runs, so the 25 MB bound of receiveWebhook is a second line here; it is checked before the body is decoded.
import type { Context, LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import type { Config } from '../domain/config.ts';
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { DeliveryMemory } from '../app/delivery-memory.ts';
import { maxWebhookBodyBytes, receiveWebhook, refusal, tooLarge, type WebhookAnswer, type WebhookDeps, type WebhookOutcome } from '../app/receive-webhook.ts';
import { targetQueueFromEnvironment, type TargetQueue } from '../adapters/aws/target-queue.ts';
import { webhookSecretFromSecret } from '../adapters/github/secrets.ts';
import { logger, serviceName } from './lambda-logger.ts';
import { secrets } from './lambda-secrets.ts';
import { createWebhookMetricsPublisher } from './webhook-metrics.ts';
import { ownAccount } from './own-account.ts';

/** The Secrets Manager secret holding the webhook secret, set by the stack. */
export const webhookSecretVariable = 'STS_VOLUME_GITOPS_WEBHOOK_SECRET';

export function createWebhook(deps: Pick<WebhookDeps, 'secret' | 'enqueue'> & { env?: NodeJS.ProcessEnv; countOutcome?: (outcome: WebhookOutcome) => void; ownAccount?: () => Promise<string> }) {
  let config: Promise<Config> | undefined;
  // Per warm instance: a delivery id queued again is counted (WebhookDeliveriesRepeated), never refused.
  const deliveries = new DeliveryMemory();
  const countOutcome = deps.countOutcome ?? createWebhookMetricsPublisher({ serviceName });
  const reply = (answer: WebhookAnswer, headers: Record<string, string> = {}): LambdaFunctionURLResult => {
    countOutcome(answer.outcome);
    return { statusCode: answer.statusCode, headers: { 'content-type': 'application/json', ...headers }, body: answer.body };
  };
  return async (event: LambdaFunctionURLEvent, context: Context): Promise<LambdaFunctionURLResult> => {
    logger.addContext(context);
    if (event.requestContext.http.method !== 'POST') return reply(refusal(405, 'method', 'only POST is served'), { allow: 'POST' });
    // Base64 takes 4 characters for 3 bytes, and a UTF-8 text at least a byte per character: either bound shows a
    // body too large without decoding it.
    const encoded = event.body?.length ?? 0;
    if ((event.isBase64Encoded ? Math.floor(encoded / 4) * 3 - 2 : encoded) > maxWebhookBodyBytes) {
      logger.warn('webhook refused: body too large', { characters: encoded });
      return reply(tooLarge());
    }
    const body = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    // Function URLs hand header names in lower case already; lower-casing again costs nothing and guards other callers.
    const headers = Object.fromEntries(Object.entries(event.headers).map(([name, value]) => [name.toLowerCase(), value]));
    return reply(await receiveWebhook({ headers, body }, {
      ...deps,
      deliveries,
      // Read once per cold start; a failed read is tried again on the next delivery.
      config: () => (config ??= loadResolvedConfig(undefined, deps.env ?? process.env, deps.ownAccount ?? ownAccount).catch((error: unknown) => { config = undefined; throw error; })),
      log: (level, message, fields) => logger[level](message, fields),
    }));
  };
}

let queue: TargetQueue | undefined;
export const handler = createWebhook({
  secret: async () => {
    const id = process.env[webhookSecretVariable];
    if (!id) throw new Error(`${webhookSecretVariable} is not set: the webhook needs the secret GitHub signs with`);
    return webhookSecretFromSecret(id, await secrets.readString(id));
  },
  enqueue: (messages) => (queue ??= targetQueueFromEnvironment()).send(messages),
});
