// A check's Re-run, read from GitHub's recorded deliveries (@octokit/webhooks-examples): `check_suite` `rerequested`
// on a pull request's head checks that pull request again; `check_run` `rerequested` on this tool's validate check does
// the same, on a progress check runs a pass; a merge queue commit's, another App's, another name's and other actions
// ask for nothing, each saying why. Pure: the decision over the read delivery.
import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { describe, it } from 'node:test';
import { readCheckRun, readCheckSuite } from '../../functions/app/webhook-payloads.ts';
import { decideWebhook, type WebhookDecision } from '../../functions/app/webhook-targets.ts';
import { parseConfig } from '../../functions/domain/config.ts';

const require = createRequire(import.meta.url);
const examplesRoot = dirname(require.resolve('@octokit/webhooks-examples/package.json'));
const recorded = require(join(examplesRoot, 'api.github.com', 'index.json')) as Array<{ name: string; examples: Array<Record<string, unknown>> }>;
type Json = Record<string, unknown>;

function example(event: string, action: string): Json {
  const found = recorded.find((e) => e.name === event)?.examples.find((p) => p.action === action);
  assert.ok(found, `${event} ${action}`);
  return structuredClone(found);
}

// The examples' repository, its default branch followed by a target that runs as the examples' App (29310).
const config = parseConfig(`
targets:
  - name: hello
    source: { github: { owner: Codertocat, repo: Hello-World, branch: master, paths: ["k8s/**/*.yaml"], app: { appId: 29310, installationId: 1, privateKey: { env: KEY } } } }
    cluster: { kubeconfig: { path: ./kubeconfig } }
    namespaces: { default: db, allow: [db] }
`, 'reruns.yaml', '/tmp');

function checkRun(changes: (run: Json) => void): Json {
  const body = example('check_run', 'rerequested');
  body.repository = structuredClone(example('check_suite', 'rerequested').repository);
  const run = body.check_run as Json;
  run.app = { ...(run.app as Json), id: 29310 };
  changes(run);
  return body;
}

function decide(event: 'check_run' | 'check_suite', body: Json, deliveryId = 'delivery-1'): WebhookDecision {
  const reading = event === 'check_run' ? readCheckRun(body) : readCheckSuite(body);
  assert.ok(reading.ok, reading.ok ? '' : reading.problem);
  return decideWebhook(config, reading.delivery, deliveryId);
}

function queued(decision: WebhookDecision): unknown[] {
  assert.equal(decision.kind, 'enqueue', decision.kind === 'ignore' ? decision.reason : '');
  return decision.kind === 'enqueue' ? decision.messages.map((m) => m.body) : [];
}

describe('a check\'s Re-run, from GitHub\'s recorded deliveries', () => {
  it('"Re-run all checks" on a pull request\'s head checks that pull request again, answering every run on the commit', () => {
    const body = example('check_suite', 'rerequested');
    const sha = (body.check_suite as Json).head_sha as string;
    assert.deepEqual(queued(decide('check_suite', body)), [{ target: 'hello', action: 'validate', trigger: 'check_suite', pullRequest: 2, rerun: { sha } }]);
  });

  it('Re-run on the validate check checks its pull request again, answering that run; on a progress check, runs a pass', () => {
    const validate = checkRun((run) => {
      run.name = 'sts-volume-gitops/validate (hello)';
      run.pull_requests = structuredClone((example('check_suite', 'rerequested').check_suite as Json).pull_requests);
    });
    const sha = (validate.check_run as Json).head_sha as string;
    assert.deepEqual(queued(decide('check_run', validate)), [{ target: 'hello', action: 'validate', trigger: 'check_run', pullRequest: 2, rerun: { sha, check: 'sts-volume-gitops/validate (hello)' } }]);
    const progress = checkRun((run) => { run.name = 'sts-volume-gitops/hello/db/pg'; });
    assert.deepEqual(queued(decide('check_run', progress)), [{ target: 'hello', action: 'pass', trigger: 'check_run', rerun: { sha, check: 'sts-volume-gitops/hello/db/pg' } }]);
  });

  it('a fork\'s pull request (GitHub lists none, no branch) checks every open pull request; a merge queue commit\'s, none', () => {
    const fork = checkRun((run) => {
      run.name = 'sts-volume-gitops/validate (hello)';
      (run.check_suite as Json).head_branch = null;
    });
    assert.deepEqual(queued(decide('check_run', fork)).map((m) => (m as { pullRequest?: number }).pullRequest), [undefined]);
    const queue = checkRun((run) => {
      run.name = 'sts-volume-gitops/validate (hello)';
      (run.check_suite as Json).head_branch = 'gh-readonly-queue/master/pr-2-ec26c3e57ca3a959ca5aad62de7213c562f8c821';
    });
    const ignored = decide('check_run', queue);
    assert.equal(ignored.kind, 'ignore');
    assert.match(ignored.kind === 'ignore' ? ignored.reason : '', /merge queue commit's check runs again when its pull request is queued again/);
  });

  it('each Re-run is its own request (a new delivery id), a redelivery of one is not', () => {
    const body = example('check_suite', 'rerequested');
    const first = decide('check_suite', body, 'delivery-1');
    const again = decide('check_suite', body, 'delivery-1');
    const second = decide('check_suite', body, 'delivery-2');
    const ids = [first, again, second].map((d) => (d.kind === 'enqueue' ? d.messages[0]?.deduplicationId : undefined));
    assert.equal(ids[0], ids[1]);
    assert.notEqual(ids[0], ids[2]);
  });

  it('asks for nothing, saying why: another App\'s run, another name, a requested action, a run created or completed', () => {
    const cases: Array<[event: 'check_run' | 'check_suite', body: Json, reason: RegExp]> = [
      ['check_run', checkRun((run) => { run.app = { ...(run.app as Json), id: 1 }; run.name = 'sts-volume-gitops/validate (hello)'; }), /GitHub App 1's, which no target of codertocat\/hello-world runs as/],
      ['check_run', checkRun((run) => { run.name = 'randscape'; }), /check run "randscape" is not one of this tool's checks/],
      ['check_run', { ...checkRun(() => undefined), action: 'requested_action' }, /this tool offers no actions on its check runs/],
      ['check_run', example('check_run', 'created'), /check_run created asks for no check/],
      ['check_suite', example('check_suite', 'completed'), /check_suite completed asks for no check/],
    ];
    for (const [event, body, reason] of cases) {
      const decision = decide(event, body);
      assert.equal(decision.kind, 'ignore');
      assert.match(decision.kind === 'ignore' ? decision.reason : '', reason);
    }
  });

  it('every recorded check_run and check_suite delivery reads as its event, and as no other', () => {
    for (const event of ['check_run', 'check_suite'] as const) {
      for (const body of recorded.find((e) => e.name === event)?.examples ?? []) {
        const own = event === 'check_run' ? readCheckRun(body) : readCheckSuite(body);
        const other = event === 'check_run' ? readCheckSuite(body) : readCheckRun(body);
        assert.ok(own.ok, own.ok ? '' : own.problem);
        assert.ok(!other.ok, `${event} ${String(body.action)} reads as the other`);
      }
    }
  });
});
