// The webhook for local development (`sts-volume-gitops webhook --port N`): GitHub deliveries over plain HTTP, checked
// and matched exactly as the Lambda does (receiveWebhook), their validations and passes run in this process one at a
// time, in order, each target message once per five minutes (as the FIFO queue deduplicates).
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../domain/config.ts';
import { receiveWebhook, type WebhookDeps } from './receive-webhook.ts';
import type { QueuedTargetMessage, TargetMessage } from './target-messages.ts';

export interface LocalWebhookServer {
  url: string;
  /** Resolves when every queued message has run. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const dedupWindowMs = 5 * 60_000;

export async function startLocalWebhookServer(options: {
  port: number; host?: string; config: Config; secret: string;
  run: (message: TargetMessage) => Promise<void>;
  log: WebhookDeps['log'];
  now?: () => number;
}): Promise<LocalWebhookServer> {
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (messages: readonly QueuedTargetMessage[]): Promise<void> => {
    for (const message of messages) {
      const at = seen.get(message.deduplicationId);
      if (at !== undefined && now() - at < dedupWindowMs) continue;
      seen.set(message.deduplicationId, now());
      // One at a time, in order; a failed run is logged by `run` and does not stop the next.
      chain = chain.then(() => options.run(message.body)).catch((error: unknown) => {
        options.log('warn', 'run failed', { target: message.body.target, error: error instanceof Error ? error.message : String(error) });
      });
    }
    return Promise.resolve();
  };
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      if (request.method !== 'POST') {
        response.writeHead(405, { allow: 'POST' }).end();
        return;
      }
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]));
      receiveWebhook({ headers, body: Buffer.concat(chunks).toString('utf8') }, {
        secret: () => Promise.resolve(options.secret), config: () => Promise.resolve(options.config), enqueue, log: options.log,
      }).then((answer) => {
        response.writeHead(answer.statusCode, { 'content-type': 'application/json' }).end(answer.body);
      }, (error: unknown) => {
        options.log('warn', 'webhook failed', { error: error instanceof Error ? error.message : String(error) });
        response.writeHead(500, { 'content-type': 'application/json' }).end('{"error":"internal"}');
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host ?? '127.0.0.1', resolve);
  });
  const address = server.address() as AddressInfo;
  return {
    url: `http://${address.address}:${address.port}/`,
    idle: async () => {
      let current: Promise<void>;
      do {
        current = chain;
        await current;
      } while (current !== chain);
    },
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await chain;
    },
  };
}
