// Every real delivery GitHub documents (@octokit/webhooks-examples: api.github.com and GitHub Enterprise Server), signed
// and posted over HTTP to the local webhook server, which reads them exactly as the Lambda does: each answers 2xx or a
// reasoned 4xx, never 5xx; each body resent under another event's name is refused (the header is not signed); hostile
// bodies get a 4xx; a body over GitHub's 25 MB cap gets 413 and is not read on.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { connect } from 'node:net';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import { parseConfig } from '../../functions/domain/config.ts';
import { startLocalWebhookServer, type LocalWebhookServer } from '../../functions/app/local-webhook-server.ts';
import { maxWebhookBodyBytes } from '../../functions/app/receive-webhook.ts';
import { payloadReaders } from '../../functions/app/webhook-payloads.ts';
import type { TargetMessage } from '../../functions/app/target-messages.ts';

const require = createRequire(import.meta.url);
const examplesRoot = dirname(require.resolve('@octokit/webhooks-examples/package.json'));
const secret = 'examples-webhook-secret-value';

interface Example { source: string; event: string; index: number; payload: unknown }

function allExamples(): Example[] {
  const sources = readdirSync(examplesRoot).filter((d) => d === 'api.github.com' || d.startsWith('ghes-'));
  return sources.flatMap((source) => (require(join(examplesRoot, source, 'index.json')) as Array<{ name: string; examples: unknown[] }>)
    .flatMap((e) => e.examples.map((payload, index) => ({ source, event: e.name, index, payload }))));
}

// The examples' repository, followed on its default branch as the examples' GitHub App (29310, whose check suites
// they re-run); forks are not validated (the default).
const config = parseConfig(`
targets:
  - name: hello
    source: { github: { owner: Codertocat, repo: Hello-World, branch: master, paths: ["k8s/**/*.yaml"], app: { appId: 29310, installationId: 1, privateKey: { env: HELLO_KEY } } } }
    cluster: { kubeconfig: { path: ./kubeconfig } }
    namespaces: { default: db, allow: [db] }
`, 'examples.yaml', '/tmp');

describe('every GitHub-documented delivery, signed, through the webhook', () => {
  let server: LocalWebhookServer;
  const ran: TargetMessage[] = [];
  const logged: Array<{ message: string; fields: Record<string, unknown> }> = [];
  const examples = allExamples();

  before(async () => {
    server = await startLocalWebhookServer({
      port: 0, config, secret, log: (_level, message, fields) => logged.push({ message, fields }),
      run: (message) => { ran.push(message); return Promise.resolve(); },
    });
  });
  after(() => server.close());

  async function post(event: string, body: string, headers: Record<string, string> = {}): Promise<{ status: number; body: Record<string, unknown> }> {
    const signature = body === '' ? `sha256=${(await import('node:crypto')).createHmac('sha256', secret).update('').digest('hex')}` : await sign(secret, body);
    const response = await fetch(server.url, {
      method: 'POST', body,
      headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': signature, ...headers },
    });
    return { status: response.status, body: await response.json() as Record<string, unknown> };
  }

  it('has the recordings it is meant to replay', () => {
    assert.ok(examples.length >= 329, `${examples.length} examples`);
    for (const event of ['push', 'pull_request', 'ping', 'workflow_dispatch', 'merge_group']) assert.ok(examples.some((e) => e.event === event), event);
  });

  it('answers each one 2xx, or 4xx with a reason; never 5xx', async () => {
    const answers = new Map<string, number>();
    for (const example of examples) {
      const { status, body } = await post(example.event, JSON.stringify(example.payload));
      const where = `${example.source} ${example.event} #${example.index}`;
      assert.ok(status < 500, `${where} answered ${status}`);
      if (status >= 400) assert.equal(typeof body.error, 'string', `${where}: a refusal says why`);
      answers.set(`${example.event}:${status}`, (answers.get(`${example.event}:${status}`) ?? 0) + 1);
    }
    await server.idle();
    // What the documented deliveries ask for: a pass for the branch push, a validate for the pull requests that change
    // a head into master and for the App's check suite re-run on one; nothing for tags, other actions or other events,
    // and no refusal of a real delivery.
    assert.deepEqual([...answers.keys()].filter((k) => !/:(200|202)$/.test(k)), [], 'no real delivery refused');
    assert.deepEqual([...new Set(ran.map((m) => `${m.action}:${m.trigger}`))].sort(), ['pass:push', 'validate:check_suite', 'validate:pull_request']);
  });

  it('refuses each body resent under another event\'s name with 400, and queues nothing', async () => {
    const before = ran.length;
    // Every example through the readers; one of each event over HTTP.
    const sentOver = new Set<string>();
    for (const example of examples) {
      for (const event of (Object.keys(payloadReaders) as Array<keyof typeof payloadReaders>).filter((e) => e !== example.event)) {
        const reading = payloadReaders[event](example.payload);
        assert.ok(!reading.ok, `${example.source} ${example.event} #${example.index} reads as ${event}`);
        if (sentOver.has(`${example.event}>${event}`)) continue;
        sentOver.add(`${example.event}>${event}`);
        const { status, body } = await post(event, JSON.stringify(example.payload));
        assert.equal(status, 400, `${example.source} ${example.event} #${example.index} sent as ${event}`);
        assert.equal(body.error, `${reading.problem} (X-GitHub-Event says ${event})`);
      }
    }
    await server.idle();
    assert.equal(ran.length, before);
  });

  it('answers hostile signed bodies 4xx with a reason, never 5xx', async () => {
    const pushExample = examples.find((e) => e.event === 'push' && (e.payload as { ref: string }).ref === 'refs/heads/master');
    assert.ok(pushExample);
    const push = pushExample.payload as Record<string, unknown>;
    const cases: Array<[event: string, body: string, status: number, error: RegExp]> = [
      ['push', 'null', 400, /the body is not a push delivery: the body must be an object/],
      ['pull_request', '[]', 400, /the body must be an object/],
      ['push', '{"repository":{"full_name":42}}', 400, /body\.ref must be a non-empty string/],
      ['push', JSON.stringify({ ...push, repository: { full_name: 42 } }), 400, /body\.repository\.full_name must be a non-empty string/],
      ['push', JSON.stringify({ ...push, repository: null }), 400, /body\.repository must be an object/],
      ['push', JSON.stringify({ ...push, after: 'HEAD' }), 400, /body\.after must be a commit SHA/],
      ['push', JSON.stringify({ ...push, ref: 'master' }), 400, /body\.ref must be a full ref name/],
      ['push', '', 400, /the body is empty/],
      ['push', '{"ref": ', 400, /the body is not JSON/],
      ['', JSON.stringify(push), 400, /no X-GitHub-Event header/],
    ];
    for (const [event, body, status, error] of cases) {
      const answer = await post(event, body, event === '' ? { 'x-github-event': '' } : {});
      assert.equal(answer.status, status, `${event} ${body.slice(0, 60)}`);
      assert.match(String(answer.body.error), error);
    }
    assert.ok(logged.every((l) => !JSON.stringify(l).includes('Codertocat/Hello-World/compare')), 'no body in the logs');
  });

  /**
   * Sends `total` bytes of body (declared, or chunked) over a raw socket that goes on writing after the answer, as a
   * sender that ignores it would, and reports the answer and how much the server let it send before closing. A server
   * that stops reading holds the sender back (TCP flow control): what is sent stops at the kernel's buffers.
   */
  function postLarge(options: { declare: boolean; total: number; method?: string }): Promise<{ status: number; body: string; sent: number }> {
    return new Promise((resolve, reject) => {
      const url = new URL(server.url);
      const socket = connect({ host: url.hostname, port: Number(url.port), allowHalfOpen: true });
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      const frame = (data: Buffer): Buffer => (options.declare ? data : Buffer.concat([Buffer.from(`${data.length.toString(16)}\r\n`), data, Buffer.from('\r\n')]));
      let sent = 0;
      const received: Buffer[] = [];
      socket.on('data', (data: Buffer) => received.push(data));
      socket.on('error', () => undefined); // the reset that ends it
      socket.on('close', () => {
        const text = Buffer.concat(received).toString('utf8');
        const status = /^HTTP\/1\.1 (\d{3}) /.exec(text)?.[1];
        if (status === undefined) reject(new Error(`no answer after ${sent} bytes`));
        else resolve({ status: Number(status), body: text.slice(text.indexOf('\r\n\r\n') + 4), sent });
      });
      const head = `${options.method ?? 'POST'} / HTTP/1.1\r\nhost: ${url.host}\r\ncontent-type: application/json\r\nx-github-event: push\r\n`
        + (options.declare ? `content-length: ${options.total}\r\n\r\n` : 'transfer-encoding: chunked\r\n\r\n');
      socket.write(head);
      const write = (): void => {
        while (sent < options.total && !socket.destroyed) {
          sent += chunk.length;
          if (!socket.write(frame(chunk))) { socket.once('drain', write); return; }
        }
      };
      write();
    });
  }

  it('refuses bodies over 25 MB (declared or chunked) with 413, and other methods with 405, and stops reading them', async () => {
    const response = await fetch(server.url, { method: 'PUT', body: 'x'.repeat(1000) });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    // Side by side: each waits for the server to close the connection under a sender that will not stop.
    const total = 300 * 1024 * 1024;
    const [declared, chunked, put] = await Promise.all([
      postLarge({ declare: true, total }), postLarge({ declare: false, total }), postLarge({ declare: false, total, method: 'PUT' }),
    ]);
    assert.deepEqual([declared.status, chunked.status, put.status], [413, 413, 405]);
    assert.match(declared.body, /over 26214400 bytes/);
    const kernelBuffers = 64 * 1024 * 1024;
    assert.ok(declared.sent < kernelBuffers, `a declared body: the sender could send ${declared.sent} bytes`);
    assert.ok(put.sent < kernelBuffers, `a PUT: the sender could send ${put.sent} bytes`);
    assert.ok(chunked.sent > maxWebhookBodyBytes && chunked.sent < maxWebhookBodyBytes + kernelBuffers, `a chunked body: the sender could send ${chunked.sent} bytes`);
  });
});
