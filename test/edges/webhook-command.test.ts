// The local `webhook` command keeps check's rules and says what it did: a secret check refuses is refused (one rule,
// domain/webhook-secret.ts), the secret's flag is check's `--webhook-secret-env` (the old `--secret-env` still read,
// with a deprecation line), an apply on an EKS target is refused before the delivery is answered (422; a validation
// there is accepted), and each run is logged with its verdict, never `?`.
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { sign } from '@octokit/webhooks-methods';
import { startLocalWebhookServer, type LocalWebhookServer } from '../../functions/app/local-webhook-server.ts';
import type { TargetRun } from '../../functions/app/run-targets.ts';
import type { TargetMessage } from '../../functions/app/target-messages.ts';
import { eksNotes, notRunHere, runVerdictLine } from '../../functions/cli/local-webhook-runs.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { runCli, startWebhookCommand } from '../support/cli-children.ts';

const require = createRequire(import.meta.url);
const examplesRoot = dirname(require.resolve('@octokit/webhooks-examples/package.json'));
const recorded = require(join(examplesRoot, 'api.github.com', 'index.json')) as Array<{ name: string; examples: Array<Record<string, unknown>> }>;
const secret = 'webhook-command-secret-value';

describe('the webhook command', () => {
  let dir: string;
  let configPath: string;
  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-webhook-command-'));
    configPath = join(dir, 'config.yaml');
    await writeFile(configPath, `targets:
  - name: hello
    source: { github: { owner: Codertocat, repo: Hello-World, branch: master, paths: ["k8s/**/*.yaml"], token: { env: HELLO_TOKEN } } }
    cluster: { eks: { name: prod, region: eu-west-1 } }
    namespaces: { default: db, allow: [db] }
`);
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('refuses the 5-character secret check refuses, as check does, and starts with one check accepts', async () => {
    const short = { HOOK_SECRET: 'abcde' };
    const refused = await runCli(['webhook', '--port', '0', '--config', configPath, '--webhook-secret-env', 'HOOK_SECRET'], short);
    assert.equal(refused.code, 2);
    assert.equal(refused.stderr, '$HOOK_SECRET is shorter than 16 characters (it has 5): a short secret can be guessed from any signed delivery: export HOOK_SECRET=<the secret GitHub signs with, 16 characters or more>\n');
    const checked = await runCli(['check', '--config', configPath, '--webhook-secret-env', 'HOOK_SECRET', '--json'], short);
    const webhook = (JSON.parse(checked.stdout) as { webhook: Array<{ level: string; message: string }> }).webhook;
    assert.deepEqual(webhook.map((r) => [r.level, r.message]), [['error', 'is shorter than 16 characters (it has 5): a short secret can be guessed from any signed delivery']]);

    const started = await startWebhookCommand(['--port', '0', '--config', configPath, '--webhook-secret-env', 'HOOK_SECRET'], { HOOK_SECRET: secret });
    const { code, stderr } = await started.stop();
    assert.match(started.listening, /^listening on http:\/\/127\.0\.0\.1:\d+\/ \(secret from \$HOOK_SECRET\); Ctrl-C to stop$/);
    assert.equal(code, 0, stderr);
    assert.match(stderr, /^note: target hello is on EKS: its pull requests and merge queue commits are checked with this machine's AWS credentials \(as plan\); pushes to its branch are refused \(422\), not applied$/m);
  });

  it('reads the old --secret-env, saying it is deprecated, and shows only --webhook-secret-env in its usage', async () => {
    const started = await startWebhookCommand(['--port', '0', '--config', configPath, '--secret-env', 'OLD_SECRET'], { OLD_SECRET: secret });
    const { stderr } = await started.stop();
    assert.match(started.listening, /\(secret from \$OLD_SECRET\)/);
    assert.match(stderr, /^warning: --secret-env is deprecated: use --webhook-secret-env, the name check takes too$/m);
    const help = await runCli(['webhook', '--help'], {});
    assert.match(help.stdout, /^ {2}npx sts-volume-gitops webhook --port N \[--config FILE\] \[--webhook-secret-env VAR\]$/m);
    assert.match(help.stdout, /--secret-env VAR +deprecated: use --webhook-secret-env; still read,/);
  });
});

describe('the local webhook with an EKS target', () => {
  let server: LocalWebhookServer;
  const ran: TargetMessage[] = [];
  const config = parseConfig(`targets:
  - name: hello
    source: { github: { owner: Codertocat, repo: Hello-World, branch: master, paths: ["k8s/**/*.yaml"], token: { env: HELLO_TOKEN } } }
    cluster: { eks: { name: prod, region: eu-west-1 } }
    namespaces: { default: db, allow: [db] }
`, 'eks.yaml', '/tmp');
  before(async () => {
    server = await startLocalWebhookServer({
      port: 0, config, secret, log: () => undefined, refuse: (message) => notRunHere(config, message),
      run: (message) => { ran.push(message); return Promise.resolve(); },
    });
  });
  after(() => server.close());

  async function post(event: string, payload: unknown): Promise<{ status: number; body: Record<string, unknown> }> {
    const body = JSON.stringify(payload);
    const response = await fetch(server.url, {
      method: 'POST', body,
      headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': await sign(secret, body) },
    });
    return { status: response.status, body: await response.json() as Record<string, unknown> };
  }

  it('refuses a push to the target\'s branch with 422 and the reason, and accepts a pull request into it', async () => {
    const push = recorded.find((e) => e.name === 'push')?.examples.find((p) => p.ref === 'refs/heads/master');
    const opened = recorded.find((e) => e.name === 'pull_request')?.examples.find((p) => p.action === 'opened' && (p.pull_request as { base: { ref: string } }).base.ref === 'master');
    assert.ok(push && opened);
    const refused = await post('push', push);
    assert.equal(refused.status, 422);
    assert.match(String(refused.body.error), /^target hello is on EKS: a pass that applies there is the deployed function's/);
    const accepted = await post('pull_request', opened);
    assert.deepEqual([accepted.status, accepted.body], [202, { queued: [{ target: 'hello', action: 'validate' }] }]);
    await server.idle();
    assert.deepEqual(ran.map((m) => `${m.action}:${m.trigger}`), ['validate:pull_request']);
    assert.equal(eksNotes(config).length, 1);
  });
});

describe('the verdict line of a local run', () => {
  const base = { target: 'demo', recovery: undefined, deferred: [], durationMs: 1, apiCalls: { github: 0, kubernetes: 0, pvcPatches: 0 } };
  const check = { headSha: 'a'.repeat(40), markdown: '' as const, status: 'created' as const, comment: 'created' as const, foreign: [] };

  it('says the checks a validation wrote, and a pass\'s outcome with its problems', () => {
    const validated: TargetRun = { ...base, report: undefined, error: undefined, feedback: { checks: [{ ...check, number: 4, state: 'failure', description: 'db/pg data: blocked' }], progress: [], endings: [], failures: [], deferred: [], writes: [] } };
    assert.deepEqual(runVerdictLine({ target: 'demo', action: 'validate', trigger: 'pull_request', pullRequest: 4 }, validated),
      { level: 'error', text: 'validate demo: pull request #4 failure: db/pg data: blocked' });
    const nothing: TargetRun = { ...base, report: undefined, error: undefined, feedback: { checks: [], progress: [], endings: [], failures: [], deferred: [], writes: [] } };
    assert.deepEqual(runVerdictLine({ target: 'demo', action: 'validate', trigger: 'pull_request', pullRequest: 5 }, nothing),
      { level: 'info', text: 'validate demo: nothing to check (pull request #5 is closed or changes none of the target\'s files)' });
    const failed: TargetRun = { ...base, report: undefined, feedback: undefined, error: 'cannot reach the cluster' };
    assert.deepEqual(runVerdictLine({ target: 'demo', action: 'pass', trigger: 'push' }, failed), { level: 'error', text: 'pass demo: error: cannot reach the cluster' });
    const report = { target: 'demo', mode: 'apply', commitSha: 'b'.repeat(40), outcome: 'ok', statefulSets: [], manifestErrors: [{ path: 'k8s/pg.yaml', line: 3, column: 1, message: 'bad' }], notes: [] } as const;
    const blocked: TargetRun = { ...base, report: { ...report, manifestErrors: [...report.manifestErrors], statefulSets: [], notes: [] }, feedback: undefined, error: undefined };
    assert.deepEqual(runVerdictLine({ target: 'demo', action: 'pass', trigger: 'push' }, blocked), { level: 'error', text: 'pass demo: blocked; 1 problem: k8s/pg.yaml:3 manifest-error' });
    const ok: TargetRun = { ...base, report: { ...report, manifestErrors: [], statefulSets: [], notes: [] }, feedback: undefined, error: undefined };
    assert.deepEqual(runVerdictLine({ target: 'demo', action: 'pass', trigger: 'push' }, ok), { level: 'info', text: 'pass demo: ok' });
  });
});
