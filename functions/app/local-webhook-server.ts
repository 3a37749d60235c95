// The webhook for local development (`sts-volume-gitops webhook --port N`): GitHub deliveries over plain HTTP, checked
// and matched exactly as the Lambda does (receiveWebhook), their validations and passes run in this process one at a
// time, in order, each target message once per five minutes (as the FIFO queue deduplicates). A body over GitHub's
// 25 MB cap is refused with 413 as soon as it is declared or seen, and not read further. A message this process will
// not run (`refuse` says why) is not queued, and the answer says so: 202 only for what runs, else 422 with the reason.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Config } from '../domain/config.ts';
import { maxWebhookBodyBytes, receiveWebhook, refusal, tooLarge, type WebhookAnswer, type WebhookDeps } from './receive-webhook.ts';
import type { QueuedTargetMessage, TargetMessage } from './target-messages.ts';

export interface LocalWebhookServer {
  url: string;
  /** Resolves when every queued message has run. */
  idle(): Promise<void>;
  close(): Promise<void>;
}

const dedupWindowMs = 5 * 60_000;
/** How long a refused sender has to read its answer before the connection is closed under it. */
const unreadLingerMs = 2_000;

export async function startLocalWebhookServer(options: {
  port: number; host?: string; config: Config; secret: string;
  run: (message: TargetMessage) => Promise<void>;
  /** Why a message will not be run here (undefined: it will). */
  refuse?: (message: TargetMessage) => string | undefined;
  log: WebhookDeps['log'];
  now?: () => number;
}): Promise<LocalWebhookServer> {
  const now = options.now ?? Date.now;
  const seen = new Map<string, number>();
  let chain: Promise<void> = Promise.resolve();
  const enqueue = (messages: readonly QueuedTargetMessage[], refused: Array<{ target: string; action: string; reason: string }>): Promise<void> => {
    for (const message of messages) {
      const reason = options.refuse?.(message.body);
      if (reason !== undefined) {
        refused.push({ target: message.body.target, action: message.body.action, reason });
        continue;
      }
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
  const send = (response: ServerResponse, answer: WebhookAnswer, headers: Record<string, string> = {}): void => {
    response.writeHead(answer.statusCode, { 'content-type': 'application/json', ...headers }).end(answer.body);
  };
  // A refusal before the body is read. The request is paused with a listener (Node reads and throws away the body of
  // a request nobody listens to, all of it), so no more is read: the sender is held back by TCP flow control. Node
  // closes a `Connection: close` socket as soon as the answer is out (destroySoon), and a socket closed with a body
  // still arriving is reset by the kernel, which can lose the answer on the way; so it is half-closed instead (the
  // answer and then end of stream reach the sender), and closed for good a moment later.
  const refuseUnread = (request: IncomingMessage, response: ServerResponse, answer: WebhookAnswer, headers: Record<string, string> = {}): void => {
    const socket = request.socket;
    request.removeAllListeners('data').removeAllListeners('end').on('data', () => undefined).pause();
    socket.destroySoon = () => {
      socket.end();
      setTimeout(() => socket.destroy(), unreadLingerMs).unref();
    };
    send(response, answer, { connection: 'close', ...headers });
  };
  const server: Server = createServer((request, response) => {
    if (request.method !== 'POST') {
      refuseUnread(request, response, refusal(405, 'method', 'only POST is served'), { allow: 'POST' });
      return;
    }
    const declared = Number(request.headers['content-length'] ?? 0);
    if (declared > maxWebhookBodyBytes) {
      options.log('warn', 'webhook refused: body too large', { declaredBytes: declared });
      refuseUnread(request, response, tooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let received = 0;
    request.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > maxWebhookBodyBytes) {
        // A chunked body (its length never declared) past the cap: what came so far is dropped and no more is read.
        chunks.length = 0;
        options.log('warn', 'webhook refused: body too large', { receivedBytes: received });
        refuseUnread(request, response, tooLarge());
        return;
      }
      chunks.push(chunk);
    });
    request.on('end', () => {
      const headers = Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value[0] : value]));
      const refused: Array<{ target: string; action: string; reason: string }> = [];
      receiveWebhook({ headers, body: Buffer.concat(chunks).toString('utf8') }, {
        secret: () => Promise.resolve(options.secret), config: () => Promise.resolve(options.config),
        enqueue: (messages) => enqueue(messages, refused), log: options.log,
      }).then((answer) => send(response, refused.length === 0 ? answer : withRefusals(answer, refused, options.log)), (error: unknown) => {
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

/** A queued answer less the messages refused here: 202 with both lists, or 422 when nothing is left to run. */
function withRefusals(answer: WebhookAnswer, refused: ReadonlyArray<{ target: string; action: string; reason: string }>, log: WebhookDeps['log']): WebhookAnswer {
  const queued = (JSON.parse(answer.body) as { queued?: Array<{ target: string; action: string }> }).queued ?? [];
  const running = queued.filter((q) => !refused.some((r) => r.target === q.target && r.action === q.action));
  for (const r of refused) log('warn', 'webhook refused here', { target: r.target, action: r.action, reason: r.reason });
  if (running.length === 0) return refusal(422, 'not-run-here', refused.map((r) => r.reason).join('; '));
  const repeated = answer.outcome.kind === 'queued' && answer.outcome.repeated;
  return { statusCode: 202, body: JSON.stringify({ queued: running, refused }), outcome: { kind: 'queued', messages: running.length, repeated } };
}
