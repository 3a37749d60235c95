// Every real delivery GitHub documents (@octokit/webhooks-examples: api.github.com and GitHub Enterprise Server), signed
// and posted over HTTP to the local webhook server, which reads them exactly as the Lambda does: each answers 2xx or a
// reasoned 4xx, never 5xx; each body resent under another event's name is refused (the header is not signed); hostile
// bodies get a 4xx; a body over GitHub's 25 MB cap gets 413 and is not read on.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import { parseConfig } from '../../functions/domain/config.ts';
import { startLocalWebhookServer, type LocalWebhookServer } from '../../functions/app/local-webhook-server.ts';
import { maxWebhookBodyBytes } from '../../functions/app/receive-webhook.ts';
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

// The examples' repository, followed on its default branch; forks are not validated (the default).
const config = parseConfig(`
targets:
  - name: hello
    source: { github: { owner: Codertocat, repo: Hello-World, branch: master, paths: ["k8s/**/*.yaml"], token: { env: HELLO_TOKEN } } }
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
    // a head into master; nothing for tags, other actions or other events, and no refusal of a real delivery.
    assert.deepEqual([...answers.keys()].filter((k) => !/:(200|202)$/.test(k)), [], 'no real delivery refused');
    assert.deepEqual([...new Set(ran.map((m) => `${m.action}:${m.trigger}`))].sort(), ['pass:push', 'validate:pull_request']);
  });

  it('refuses each body resent under another event\'s name with 400, and queues nothing', async () => {
    const before = ran.length;
    for (const example of examples) {
      for (const event of ['push', 'pull_request'].filter((e) => e !== example.event)) {
        const { status, body } = await post(event, JSON.stringify(example.payload));
        assert.equal(status, 400, `${example.source} ${example.event} #${example.index} sent as ${event}`);
        assert.match(String(body.error), new RegExp(`the body is not a ${event} delivery: .* \\(X-GitHub-Event says ${event}\\)`));
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

  /** Streams `total` bytes (declared, or chunked) and reports the answer and how much the server took before closing. */
  function postLarge(options: { declare: boolean; total: number; method?: string }): Promise<{ status: number; body: string; sent: number }> {
    return new Promise((resolve, reject) => {
      const chunk = Buffer.alloc(1024 * 1024, 0x20);
      let sent = 0;
      let answer: { status: number; body: string } | undefined;
      const url = new URL(server.url);
      const outgoing = request({
        host: url.hostname, port: url.port, method: options.method ?? 'POST', path: '/',
        headers: { 'content-type': 'application/json', 'x-github-event': 'push', ...(options.declare ? { 'content-length': String(options.total) } : {}) },
      }, (response) => {
        const parts: Buffer[] = [];
        response.on('data', (part: Buffer) => parts.push(part));
        response.on('end', () => { answer = { status: response.statusCode ?? 0, body: Buffer.concat(parts).toString('utf8') }; });
      });
      const finish = (): void => { if (answer) resolve({ ...answer, sent }); else reject(new Error(`no answer after ${sent} bytes`)); };
      outgoing.on('error', () => setTimeout(finish, 50));
      outgoing.on('close', () => setTimeout(finish, 50));
      const write = (): void => {
        while (sent < options.total && !outgoing.destroyed) {
          sent += chunk.length;
          if (!outgoing.write(chunk)) { outgoing.once('drain', write); return; }
        }
        if (!outgoing.destroyed) outgoing.end();
      };
      write();
    });
  }

  it('refuses a body declared over 25 MB with 413 before reading it', async () => {
    const { status, body, sent } = await postLarge({ declare: true, total: 300 * 1024 * 1024 });
    assert.equal(status, 413);
    assert.match(body, /over 26214400 bytes/);
    assert.ok(sent < 64 * 1024 * 1024, `the client could send ${sent} bytes before the connection closed`);
  });

  it('refuses a chunked body once it passes 25 MB with 413, and stops reading', async () => {
    const { status, sent } = await postLarge({ declare: false, total: 300 * 1024 * 1024 });
    assert.equal(status, 413);
    assert.ok(sent > maxWebhookBodyBytes && sent < maxWebhookBodyBytes + 64 * 1024 * 1024, `the client could send ${sent} bytes before the connection closed`);
  });

  it('answers other methods 405 without reading their bodies', async () => {
    const response = await fetch(server.url, { method: 'PUT', body: 'x'.repeat(1000) });
    assert.equal(response.status, 405);
    assert.equal(response.headers.get('allow'), 'POST');
    const { status, sent } = await postLarge({ declare: false, total: 300 * 1024 * 1024, method: 'PUT' });
    assert.equal(status, 405);
    assert.ok(sent < 64 * 1024 * 1024, `the client could send ${sent} bytes before the connection closed`);
  });
});
