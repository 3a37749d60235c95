// The sandbox's Checks API through the real Octokit with App auth: created and updated only by an installation with
// `checks: write`, 50 annotations a request (more appended by updates), every answer checked against GitHub's OpenAPI.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';
import { assertMatchesComponent, assertMatchesOpenApi } from './openapi.ts';
import { refusal } from './refusal.ts';

const repo = exampleRepo;

function annotation(line: number): { path: string; start_line: number; end_line: number; annotation_level: 'failure'; message: string; title: string } {
  return { path: 'k8s/db/pg.yaml', start_line: line, end_line: line, annotation_level: 'failure', message: `line ${line}`, title: 'blocked' };
}

describe('GitHub sandbox: check runs', () => {
  let gh: GitHubSandbox;
  let person: GitHubClient;
  let app: GitHubClient;
  let head = '';
  useExampleGitHub(async (suite) => {
    ({ gh, octokit: person } = suite);
    app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem }, spaceWrites: false });
    head = (await person.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
  });

  it('creates a check run with annotations, lists it for the commit and reads its annotations back', async () => {
    const created = await app.rest.checks.create({
      ...repo, name: 'sts-volume-gitops/validate (demo)', head_sha: head, external_id: 'abc', conclusion: 'failure',
      output: { title: 'blocked', summary: '| a | b |', annotations: [annotation(29)] },
    });
    assert.equal(created.status, 201);
    assertMatchesOpenApi('checks/create', 201, created.data);
    assert.equal(created.headers.location, created.data.url);
    assert.ok(created.headers.etag);
    assert.equal(created.data.status, 'completed');
    assert.equal(created.data.app?.slug, gh.app.slug);
    const listed = await app.rest.checks.listForRef({ ...repo, ref: head, check_name: 'sts-volume-gitops/validate (demo)' });
    assertMatchesOpenApi('checks/list-for-ref', 200, listed.data);
    assert.deepEqual(listed.data.check_runs.map((r) => r.id), [created.data.id]);
    const annotations = await app.rest.checks.listAnnotations({ ...repo, check_run_id: created.data.id });
    assertMatchesOpenApi('checks/list-annotations', 200, annotations.data);
    assert.deepEqual(annotations.data.map((a) => [a.path, a.start_line, a.annotation_level, a.message]), [['k8s/db/pg.yaml', 29, 'failure', 'line 29']]);
  });

  it('refuses 51 annotations in one request with GitHub\'s words, and appends them when sent in batches', async () => {
    const tooMany = await refusal(app.rest.checks.create({
      ...repo, name: 'many', head_sha: head, status: 'in_progress', output: { title: 't', summary: 's', annotations: Array.from({ length: 51 }, (_, i) => annotation(i + 1)) },
    }));
    assert.equal(tooMany.status, 422);
    assert.match(tooMany.message, /No more than 50 items are allowed; 51 were supplied\./);
    const run = await app.rest.checks.create({ ...repo, name: 'many', head_sha: head, status: 'in_progress', output: { title: 't', summary: 's', annotations: Array.from({ length: 50 }, (_, i) => annotation(i + 1)) } });
    const updated = await app.rest.checks.update({ ...repo, check_run_id: run.data.id, conclusion: 'success', output: { title: 't2', summary: 's2', annotations: [annotation(51)] } });
    assertMatchesOpenApi('checks/update', 200, updated.data);
    assert.equal(updated.data.output.annotations_count, 51, 'appended, not replaced');
    assert.equal(updated.data.output.title, 't2');
    assert.ok(updated.headers.etag, 'a write answers an ETag');
  });

  it('refuses a summary over 65,535 characters and a completed run without a conclusion', async () => {
    const long = await refusal(app.rest.checks.create({ ...repo, name: 'long', head_sha: head, output: { title: 't', summary: 'x'.repeat(65_536) } }));
    assert.equal(long.status, 422);
    const noConclusion = await refusal(app.rest.checks.create({ ...repo, name: 'done', head_sha: head, status: 'completed' }));
    assert.equal(noConclusion.status, 422);
    assert.match(noConclusion.message, /"conclusion" wasn't supplied/);
  });

  it('refuses a person\'s token and an installation without checks: write, naming the permission', async () => {
    const byToken = await refusal(person.rest.checks.create({ ...repo, name: 'x', head_sha: head, status: 'queued' }));
    assert.equal(byToken.status, 403);
    assert.match(byToken.message, /You must authenticate via a GitHub App/);
    assertMatchesComponent('basic-error', byToken.data);
    gh.state.installationPermissions.checks = 'read';
    try {
      const noPermission = await refusal(app.rest.checks.create({ ...repo, name: 'x', head_sha: head, status: 'queued' }));
      assert.equal(noPermission.status, 403);
      assert.match(noPermission.message, /Resource not accessible by integration/);
      assert.equal(noPermission.headers['x-accepted-github-permissions'], 'checks=write');
    } finally {
      gh.state.installationPermissions.checks = 'write';
    }
  });

  it('shows only the latest run of a name unless filter=all', async () => {
    await app.rest.checks.create({ ...repo, name: 'twice', head_sha: head, conclusion: 'failure' });
    const second = await app.rest.checks.create({ ...repo, name: 'twice', head_sha: head, conclusion: 'success' });
    const latest = await app.rest.checks.listForRef({ ...repo, ref: head, check_name: 'twice' });
    assert.deepEqual(latest.data.check_runs.map((r) => r.id), [second.data.id]);
    const all = await app.rest.checks.listForRef({ ...repo, ref: head, check_name: 'twice', filter: 'all' });
    assert.equal(all.data.total_count, 2);
  });
});
