// Lambda entry behind the Function URL (auth NONE: GitHub cannot sign AWS requests, so the signature is checked in
// code): a GitHub delivery becomes target messages on the queue, and GitHub gets its answer within its 10 s.
// Unsigned or badly signed requests get 401 and are logged without their body.
import type { Context, LambdaFunctionURLEvent, LambdaFunctionURLResult } from 'aws-lambda';
import { loadConfig, type Config } from '../domain/config.ts';
import { receiveWebhook, type WebhookDeps } from '../app/receive-webhook.ts';
import { targetQueueFromEnvironment, type TargetQueue } from '../adapters/aws/target-queue.ts';
import { webhookSecretFromSecret } from '../adapters/github/secrets.ts';
import { logger } from './lambda-logger.ts';
import { secrets } from './lambda-secrets.ts';

/** The Secrets Manager secret holding the webhook secret, set by the stack. */
export const webhookSecretVariable = 'STS_VOLUME_GITOPS_WEBHOOK_SECRET';

export function createWebhook(deps: Pick<WebhookDeps, 'secret' | 'enqueue'> & { env?: NodeJS.ProcessEnv }) {
  let config: Promise<Config> | undefined;
  return async (event: LambdaFunctionURLEvent, context: Context): Promise<LambdaFunctionURLResult> => {
    logger.addContext(context);
    if (event.requestContext.http.method !== 'POST') return { statusCode: 405, headers: { allow: 'POST' }, body: '' };
    const body = event.body === undefined ? '' : event.isBase64Encoded ? Buffer.from(event.body, 'base64').toString('utf8') : event.body;
    // Function URLs hand header names in lower case already; lower-casing again costs nothing and guards other callers.
    const headers = Object.fromEntries(Object.entries(event.headers).map(([name, value]) => [name.toLowerCase(), value]));
    const answer = await receiveWebhook({ headers, body }, {
      ...deps,
      // Read once per cold start; a failed read is tried again on the next delivery.
      config: () => (config ??= loadConfig(undefined, deps.env).catch((error: unknown) => { config = undefined; throw error; })),
      log: (level, message, fields) => logger[level](message, fields),
    });
    return { statusCode: answer.statusCode, headers: { 'content-type': 'application/json' }, body: answer.body };
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
