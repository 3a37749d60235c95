// The check-run adapter against the GitHub sandbox through Octokit (App auth): 120 annotations go out as 50 + 50 + 20,
// a verdict sent again costs no write, a changed summary is an update in place, changed annotations a new run (GitHub
// only ever appends them), and texts past the API's limits are cut rather than refused.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CheckRuns, fitAnnotation, maxOutputCharacters } from '../../functions/adapters/github/check-runs.ts';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import type { CheckAnnotation, CommitCheck } from '../../functions/engine/ports.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import { exampleRepo, useExampleGitHub } from '../support/example-github.ts';

const annotations = (count: number, message = 'blocked'): CheckAnnotation[] =>
  Array.from({ length: count }, (_, i) => ({ path: 'k8s/db/pg.yaml', line: i + 1, level: 'failure', title: `template ${i}`, message }));

function check(overrides: Partial<CommitCheck> = {}): CommitCheck {
  return { context: 'sts-volume-gitops/validate (demo)', state: 'failure', description: 'db/pg data: blocked', title: 'db/pg data: blocked', summary: '| table |', annotations: annotations(120), ...overrides };
}

describe('check runs through Octokit (adapter)', () => {
  let gh: GitHubSandbox;
  let app: GitHubClient;
  let head = '';
  const writes: string[] = [];
  let checkRuns: CheckRuns;
  useExampleGitHub(async (suite) => {
    gh = suite.gh;
    app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
    checkRuns = new CheckRuns(app, exampleRepo, gh.app.appId, writes);
    head = (await suite.octokit.rest.git.getRef({ ...exampleRepo, ref: 'heads/main' })).data.object.sha;
  });

  const checkWrites = (): string[] => gh.requestLog.writes().filter((w) => w.operation.startsWith('checks.')).map((w) => w.operation);

  it('sends 120 annotations as one create and two updates of at most 50', async () => {
    gh.requestLog.reset();
    assert.equal(await checkRuns.ensure(head, check()), 'created');
    assert.deepEqual(checkWrites(), ['checks.create', 'checks.update', 'checks.update']);
    const [run] = gh.state.checkRuns;
    assert.equal(run?.annotations.length, 120);
    assert.equal(run?.conclusion, 'failure');
  });

  it('writes nothing for the same verdict, updates in place for a new summary', async () => {
    gh.requestLog.reset();
    assert.equal(await checkRuns.ensure(head, check()), 'unchanged');
    assert.deepEqual(checkWrites(), []);
    assert.equal(await checkRuns.ensure(head, check({ summary: '| another table |' })), 'updated');
    assert.deepEqual(checkWrites(), ['checks.update']);
    assert.equal(gh.state.checkRuns.length, 1);
    assert.equal(gh.state.checkRuns[0]?.output.summary, '| another table |');
    assert.equal(gh.state.checkRuns[0]?.annotations.length, 120, 'none appended twice');
  });

  it('makes a new run when the annotations change (they cannot be replaced), which becomes the latest', async () => {
    assert.equal(await checkRuns.ensure(head, check({ annotations: annotations(1, 'another reason') })), 'updated');
    assert.equal(gh.state.checkRuns.length, 2);
    const latest = await app.rest.checks.listForRef({ ...exampleRepo, ref: head, check_name: check().context });
    assert.equal(latest.data.check_runs[0]?.output.annotations_count, 1);
  });

  it('answers a run asked for again (a Re-run) with a new run of its name, once, though its verdict is unchanged', async () => {
    const before = gh.state.checkRuns.length;
    const latest = check({ annotations: annotations(1, 'another reason') });
    assert.equal(await checkRuns.ensure(head, latest), 'unchanged');
    const answering = new CheckRuns(app, exampleRepo, gh.app.appId, writes, { sha: head, check: latest.context });
    gh.requestLog.reset();
    assert.equal(await answering.ensure(head, latest), 'updated');
    assert.deepEqual(checkWrites(), ['checks.create']);
    assert.equal(gh.state.checkRuns.length, before + 1);
    assert.match(writes.at(-1) ?? '', / \(re-run\)$/);
    assert.equal(await answering.ensure(head, latest), 'unchanged', 'answered once');
    const otherName = new CheckRuns(app, exampleRepo, gh.app.appId, writes, { sha: head, check: 'another check' });
    assert.equal(await otherName.ensure(head, latest), 'unchanged', 'another run of the commit was not asked for');
  });

  it('cuts a summary and an annotation message past the API\'s limits instead of being refused', async () => {
    const long = 'x'.repeat(maxOutputCharacters + 10);
    assert.equal(await checkRuns.ensure(head, check({ context: 'long', summary: long, annotations: [{ path: 'k8s/db/pg.yaml', line: 3, level: 'notice', title: 't'.repeat(300), message: 'm'.repeat(70_000) }] })), 'created');
    const run = gh.state.checkRuns.find((r) => r.name === 'long');
    assert.ok(run?.output.summary && run.output.summary.length <= maxOutputCharacters);
    assert.match(run.output.summary, /cut to stay within GitHub's check run size limit/);
    assert.equal(run.annotations.length, 1, 'the annotation is cut, not dropped');
    assert.equal(run.annotations[0]?.title?.length, 255);
    const messageBytes = Buffer.byteLength(run.annotations[0]?.message ?? '');
    assert.ok(messageBytes <= 64 * 1024 && messageBytes > 64 * 1024 - 8, String(messageBytes));
  });

  it('cuts an annotation message by its UTF-8 bytes, never inside a character', () => {
    const euros = fitAnnotation({ path: 'a', line: 1, level: 'failure', title: 't', message: '€'.repeat(30_000) }).message;
    assert.ok(Buffer.byteLength(euros) <= 64 * 1024 && Buffer.byteLength(euros) > 64 * 1024 - 8, String(Buffer.byteLength(euros)));
    assert.match(euros, /^€+…$/);
  });
});
