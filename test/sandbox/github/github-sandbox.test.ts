// The GitHub sandbox through the real Octokit (rest + throttling + retry + App auth); every response checked against
// GitHub's OpenAPI description.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { createAppAuth } from '@octokit/auth-app';
import { request } from '@octokit/request';
import { createGitHubClient, type GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { assertMatchesOpenApi } from './openapi.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';

const seedDir = fileURLToPath(new URL('../../../examples/gitops-repo', import.meta.url));

describe('GitHub sandbox through Octokit', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;
  const repo = exampleRepo;
  useExampleGitHub(async (suite) => {
    ({ gh, octokit } = suite);
  });

  it('requires a valid token, answering 401 with GitHub\'s body', async () => {
    const anonymous = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: 'wrong' } });
    await assert.rejects(anonymous.rest.repos.get(repo), (error: { status?: number; message?: string }) => error.status === 401 && /Bad credentials/.test(error.message ?? ''));
  });

  it('serves the repository, refs, a recursive tree and blobs of real git objects', async () => {
    const repository = await octokit.rest.repos.get(repo);
    assertMatchesOpenApi('repos/get', 200, repository.data);
    assert.equal(repository.data.default_branch, 'main');
    const ref = await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' });
    assertMatchesOpenApi('git/get-ref', 200, ref.data);
    const tree = await octokit.rest.git.getTree({ ...repo, tree_sha: ref.data.object.sha, recursive: 'true' });
    assertMatchesOpenApi('git/get-tree', 200, tree.data);
    const pg = tree.data.tree.find((e) => e.path === 'k8s/db/pg.yaml');
    assert.ok(pg?.sha);
    const blob = await octokit.rest.git.getBlob({ ...repo, file_sha: pg.sha });
    assertMatchesOpenApi('git/get-blob', 200, blob.data);
    assert.match(Buffer.from(blob.data.content, 'base64').toString('utf8'), /storage: 20Gi/);
    const commit = await octokit.rest.git.getCommit({ ...repo, commit_sha: ref.data.object.sha });
    assertMatchesOpenApi('git/get-commit', 200, commit.data);
  });

  it('lists a path with control characters as Git holds it, as GitHub does (git would quote it)', async () => {
    const path = 'k8s/odd\x1b[31m\r\nname "quoted".yaml';
    const sha = await gh.commitFiles({ branch: 'odd-path', baseBranch: 'main', message: 'odd path', files: { [path]: 'a: 1\n' } });
    const tree = await octokit.rest.git.getTree({ ...repo, tree_sha: sha, recursive: 'true' });
    assert.ok(tree.data.tree.some((e) => e.path === path), tree.data.tree.map((e) => e.path).join(', '));
    const again = await gh.commitFiles({ branch: 'odd-path', message: 'another', files: { 'k8s/other.yaml': 'b: 2\n' } });
    const kept = await octokit.rest.git.getTree({ ...repo, tree_sha: again, recursive: 'true' });
    assert.ok(kept.data.tree.some((e) => e.path === path), 'a later commit keeps the path');
  });

  it('decodes percent-encoded path parameters and serves contents as JSON and raw', async () => {
    const content = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/db/pg.yaml' });
    assertMatchesOpenApi('repos/get-content', 200, content.data);
    assert.ok(!Array.isArray(content.data) && content.data.type === 'file');
    assert.match(Buffer.from(content.data.content, 'base64').toString('utf8'), /name: pg/);
    const raw = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/db/pg.yaml', mediaType: { format: 'raw' } });
    assert.equal(typeof raw.data, 'string');
    assert.match(raw.data as unknown as string, /^# PostgreSQL primary/);
  });

  it('creates a commit with the git data API and moves a branch, refusing a non-fast-forward without force', async () => {
    const main = await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' });
    const base = await octokit.rest.git.getCommit({ ...repo, commit_sha: main.data.object.sha });
    const blob = await octokit.rest.git.createBlob({ ...repo, content: 'hello\n', encoding: 'utf-8' });
    assertMatchesOpenApi('git/create-blob', 201, blob.data);
    const tree = await octokit.rest.git.createTree({ ...repo, base_tree: base.data.tree.sha, tree: [{ path: 'docs/hello.txt', mode: '100644', type: 'blob', sha: blob.data.sha }] });
    assertMatchesOpenApi('git/create-tree', 201, tree.data);
    const commit = await octokit.rest.git.createCommit({ ...repo, message: 'Add hello', tree: tree.data.sha, parents: [base.data.sha] });
    assertMatchesOpenApi('git/create-commit', 201, commit.data);
    const branch = await octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/hello', sha: commit.data.sha });
    assertMatchesOpenApi('git/create-ref', 201, branch.data);
    await assert.rejects(octokit.rest.git.createRef({ ...repo, ref: 'refs/heads/hello', sha: commit.data.sha }), (e: { status?: number; message?: string }) => e.status === 422 && /Reference already exists/.test(e.message ?? ''));
    await assert.rejects(octokit.rest.git.updateRef({ ...repo, ref: 'heads/hello', sha: base.data.sha }), (e: { status?: number; message?: string }) => e.status === 422 && /not a fast forward/.test(e.message ?? ''));
    const forced = await octokit.rest.git.updateRef({ ...repo, ref: 'heads/hello', sha: base.data.sha, force: true });
    assert.equal(forced.data.object.sha, base.data.sha);
    await octokit.rest.git.deleteRef({ ...repo, ref: 'heads/hello' });
    await assert.rejects(octokit.rest.git.getRef({ ...repo, ref: 'heads/hello' }), (e: { status?: number }) => e.status === 404);
  });

  it('updates contents only with the current blob sha (409 otherwise)', async () => {
    const current = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/db/configmap.yaml' });
    assert.ok(!Array.isArray(current.data));
    await assert.rejects(octokit.rest.repos.createOrUpdateFileContents({ ...repo, path: 'k8s/db/configmap.yaml', message: 'x', content: Buffer.from('a: 1\n').toString('base64'), sha: '0'.repeat(40) }), (e: { status?: number }) => e.status === 409);
    const updated = await octokit.rest.repos.createOrUpdateFileContents({ ...repo, path: 'k8s/db/configmap.yaml', message: 'Raise max_connections', content: Buffer.from(`${Buffer.from(current.data.type === 'file' ? current.data.content : '', 'base64').toString('utf8')}# reviewed\n`).toString('base64'), sha: current.data.sha });
    assert.equal(updated.status, 200);
    assertMatchesOpenApi('repos/create-or-update-file-contents', 200, updated.data);
  });

  it('lists commits with sha and path filters, gets one with files, and compares', async () => {
    const commits = await octokit.rest.repos.listCommits({ ...repo, sha: 'main', path: 'k8s/db/configmap.yaml' });
    assertMatchesOpenApi('repos/list-commits', 200, commits.data);
    assert.equal(commits.data.length, 2);
    const one = await octokit.rest.repos.getCommit({ ...repo, ref: commits.data[0]?.sha ?? '' });
    assertMatchesOpenApi('repos/get-commit', 200, one.data);
    assert.deepEqual(one.data.files?.map((f) => [f.filename, f.status]), [['k8s/db/configmap.yaml', 'modified']]);
    const compare = await octokit.rest.repos.compareCommitsWithBasehead({ ...repo, basehead: `${commits.data[1]?.sha ?? ''}...main` });
    assertMatchesOpenApi('repos/compare-commits', 200, compare.data);
    assert.equal(compare.data.ahead_by, 1);
  });

  it('runs a pull request through create, duplicate refusal, files, update, comments, labels and merge', async () => {
    await gh.commitFiles({ branch: 'grow-pg', message: 'Grow pg to 30Gi', files: { 'k8s/db/pg.yaml': (await gh.readFile('main', 'k8s/db/pg.yaml'))?.replace('storage: 20Gi', 'storage: 30Gi') ?? '' } });
    const created = await octokit.rest.pulls.create({ ...repo, head: 'grow-pg', base: 'main', title: 'Grow pg', body: 'more disk' });
    assertMatchesOpenApi('pulls/create', 201, created.data);
    await assert.rejects(octokit.rest.pulls.create({ ...repo, head: 'grow-pg', base: 'main', title: 'again' }), (e: { status?: number; response?: { data?: { errors?: Array<{ message?: string }> } } }) =>
      e.status === 422 && e.response?.data?.errors?.[0]?.message === 'A pull request already exists for acme:grow-pg.');
    const listed = await octokit.rest.pulls.list({ ...repo, state: 'open', head: 'acme:grow-pg', base: 'main' });
    assertMatchesOpenApi('pulls/list', 200, listed.data);
    assert.deepEqual(listed.data.map((p) => p.number), [created.data.number]);
    const files = await octokit.rest.pulls.listFiles({ ...repo, pull_number: created.data.number });
    assertMatchesOpenApi('pulls/list-files', 200, files.data);
    assert.deepEqual(files.data.map((f) => f.filename), ['k8s/db/pg.yaml']);
    const pullCommits = await octokit.rest.pulls.listCommits({ ...repo, pull_number: created.data.number });
    assertMatchesOpenApi('pulls/list-commits', 200, pullCommits.data);
    const updated = await octokit.rest.pulls.update({ ...repo, pull_number: created.data.number, title: 'Grow pg to 30Gi' });
    assertMatchesOpenApi('pulls/update', 200, updated.data);

    const comment = await octokit.rest.issues.createComment({ ...repo, issue_number: created.data.number, body: 'plan: grow' });
    assertMatchesOpenApi('issues/create-comment', 201, comment.data);
    const edited = await octokit.rest.issues.updateComment({ ...repo, comment_id: comment.data.id, body: 'plan: grow (edited)' });
    assertMatchesOpenApi('issues/update-comment', 200, edited.data);
    const comments = await octokit.rest.issues.listComments({ ...repo, issue_number: created.data.number });
    assertMatchesOpenApi('issues/list-comments', 200, comments.data);
    assert.deepEqual(comments.data.map((c) => c.body), ['plan: grow (edited)']);
    await octokit.rest.issues.deleteComment({ ...repo, comment_id: comment.data.id });
    const labels = await octokit.rest.issues.addLabels({ ...repo, issue_number: created.data.number, labels: ['storage'] });
    assertMatchesOpenApi('issues/add-labels', 200, labels.data);

    const merged = await octokit.rest.pulls.merge({ ...repo, pull_number: created.data.number, merge_method: 'squash' });
    assertMatchesOpenApi('pulls/merge', 200, merged.data);
    assert.match((await gh.readFile('main', 'k8s/db/pg.yaml')) ?? '', /storage: 30Gi/);
    const associated = await octokit.rest.repos.listPullRequestsAssociatedWithCommit({ ...repo, commit_sha: merged.data.sha });
    assertMatchesOpenApi('repos/list-pull-requests-associated-with-commit', 200, associated.data);
    assert.deepEqual(associated.data.map((p) => p.number), [created.data.number]);
    const got = await octokit.rest.pulls.get({ ...repo, pull_number: created.data.number });
    assertMatchesOpenApi('pulls/get', 200, got.data);
    assert.equal(got.data.merged, true);
  });

  it('keeps commit statuses: 140-character limit, latest per context in the combined status', async () => {
    const sha = (await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    const status = await octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'pending', context: 'ci/a', description: 'running' });
    assertMatchesOpenApi('repos/create-commit-status', 201, status.data);
    await octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'success', context: 'ci/a', description: 'done' });
    await octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'failure', context: 'ci/b', description: 'broken', target_url: 'https://example.com/b' });
    await assert.rejects(octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'success', context: 'ci/a', description: 'x'.repeat(141) }), (e: { status?: number; response?: { data?: { errors?: Array<{ message?: string }> } } }) =>
      e.status === 422 && e.response?.data?.errors?.[0]?.message === 'description is too long (maximum is 140 characters)');
    const combined = await octokit.rest.repos.getCombinedStatusForRef({ ...repo, ref: sha });
    assertMatchesOpenApi('repos/get-combined-status-for-ref', 200, combined.data);
    assert.equal(combined.data.state, 'failure');
    assert.deepEqual(combined.data.statuses.map((s) => [s.context, s.state]).sort(), [['ci/a', 'success'], ['ci/b', 'failure']]);
    const list = await octokit.rest.repos.listCommitStatusesForRef({ ...repo, ref: sha });
    assertMatchesOpenApi('repos/list-commit-statuses-for-ref', 200, list.data);
    assert.equal(list.data.length, 3);
  });

  it('paginates with Link headers across several pages', async () => {
    const sha = (await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    for (let i = 0; i < 7; i++) await octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'success', context: `page/${i}` });
    const first = await octokit.rest.repos.listCommitStatusesForRef({ ...repo, ref: sha, per_page: 3 });
    assert.match(first.headers.link ?? '', /rel="next"/);
    const all = await octokit.paginate(octokit.rest.repos.listCommitStatusesForRef, { ...repo, ref: sha, per_page: 3 });
    assert.equal(all.length, 10);
    for (const name of ['page-a', 'page-b']) await octokit.rest.git.createRef({ ...repo, ref: `refs/heads/${name}`, sha });
    const branches = (await octokit.rest.git.listMatchingRefs({ ...repo, ref: 'heads/' })).data.map((r) => r.ref);
    assert.ok(branches.length >= 3);
    const paged = await octokit.paginate(octokit.rest.git.listMatchingRefs, { ...repo, ref: 'heads/', per_page: 1 });
    assert.deepEqual(paged.map((r) => r.ref), branches);
  });

  it('answers 304 to a matching If-None-Match', async () => {
    const first = await octokit.rest.repos.get(repo);
    const etag = first.headers.etag;
    assert.ok(etag);
    await assert.rejects(octokit.rest.repos.get({ ...repo, headers: { 'if-none-match': etag } }), (e: { status?: number }) => e.status === 304);
  });

  it('sends rate-limit headers and is retried by plugin-retry after an injected 503', async () => {
    gh.faults.failNext('GET', 'repos.get', 1, 503);
    gh.requestLog.reset();
    const response = await octokit.rest.repos.get(repo);
    assert.equal(response.status, 200);
    assert.equal(response.headers['x-ratelimit-limit'], '5000');
    assert.equal(gh.requestLog.countsByOperation()['repos.get'], 2);
  });

  it('is retried by plugin-throttling after a secondary rate limit with Retry-After', async () => {
    gh.faults.failNext('POST', 'issues.createComment', 1, 403);
    const pr = gh.state.pulls[0];
    assert.ok(pr);
    gh.requestLog.reset();
    const comment = await octokit.rest.issues.createComment({ ...repo, issue_number: pr.number, body: 'after the limit' });
    assert.equal(comment.status, 201);
    assert.equal(gh.requestLog.countsByOperation()['issues.createComment'], 2);
  });

  it('issues installation tokens to a GitHub App whose RS256 JWT verifies, and refuses a forged one', async () => {
    const app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
    const repository = await app.rest.repos.get(repo);
    assert.equal(repository.status, 200);
    const { privateKey } = await import('node:crypto').then((c) => c.generateKeyPairSync('rsa', { modulusLength: 2048 }));
    const forged = createAppAuth({ appId: gh.app.appId, privateKey: privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(), installationId: gh.app.installationId, request: request.defaults({ baseUrl: gh.url }) });
    await assert.rejects(forged({ type: 'installation' }), (e: { status?: number }) => e.status === 401);
  });
});

describe('GitHub sandbox limits and faults', () => {
  it('refuses the 1001st status for one sha and context, and survives added latency and error rates', async () => {
    const gh = await startGitHubSandbox({ seedDir });
    try {
      const octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
      const repo = { owner: gh.owner, repo: gh.repo };
      const sha = (await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
      for (let i = 0; i < 1000; i++) gh.state.statuses.push({ id: gh.state.nextId++, sha, state: 'pending', description: null, context: 'busy', targetUrl: null, createdAt: '2026-01-01T00:00:00Z', creator: 'x' });
      await assert.rejects(octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'success', context: 'busy' }), (e: { status?: number; response?: { data?: { errors?: Array<{ message?: string }> } } }) =>
        e.status === 422 && e.response?.data?.errors?.[0]?.message === 'This SHA and context has reached the maximum number of statuses.');
      gh.faults.add({ method: 'GET', resource: 'repos.get', latencyMs: 5 });
      assert.equal((await octokit.rest.repos.get(repo)).status, 200);
      gh.faults.clear();
      gh.faults.add({ method: 'GET', resource: 'git.getRef', errorRate: 1, errorCode: 500 });
      const noRetry = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
      await assert.rejects(noRetry.rest.git.getRef({ ...repo, ref: 'heads/main', request: { retries: 0 } }), (e: { status?: number }) => e.status === 500);
      assert.ok((gh.requestLog.countsByOperation()['git.getRef'] ?? 0) >= 2);
    } finally {
      await gh.close();
    }
  });
});
