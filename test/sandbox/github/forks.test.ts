// Pull requests from forks: the head repository differs from the base one (`fork: true`, its own owner), the fork's
// branches are not the base repository's, and its commits are readable through the base repository by SHA.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import { assertMatchesOpenApi } from './openapi.ts';
import { refusal } from './refusal.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';

describe('GitHub sandbox: pull requests from forks', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;
  const repo = exampleRepo;
  useExampleGitHub(async (suite) => {
    ({ gh, octokit } = suite);
  });

  it('serves a seeded fork\'s pull request with head.repo the fork and base.repo the repository', async () => {
    await gh.forkRepository('mallory');
    const pg = (await gh.readFile('main', 'k8s/db/pg.yaml')) ?? '';
    const headSha = await gh.commitFiles({ fork: 'mallory', branch: 'grow-pg', message: 'Grow pg', files: { 'k8s/db/pg.yaml': pg.replace('storage: 20Gi', 'storage: 900Gi') } });
    const number = await gh.openPullRequest({ head: 'mallory:grow-pg', title: 'Grow pg (from a fork)' });

    const pr = await octokit.rest.pulls.get({ ...repo, pull_number: number });
    assertMatchesOpenApi('pulls/get', 200, pr.data);
    assert.equal(pr.data.head.repo?.full_name, 'mallory/platform-gitops');
    assert.equal(pr.data.head.repo?.fork, true);
    assert.equal(pr.data.head.label, 'mallory:grow-pg');
    assert.equal(pr.data.head.user?.login, 'mallory');
    assert.equal(pr.data.head.sha, headSha);
    assert.equal(pr.data.base.repo.full_name, 'acme/platform-gitops');
    assert.equal(pr.data.base.repo.fork, false);
    assert.notEqual(pr.data.head.repo?.id, pr.data.base.repo.id);

    // The fork's branch is not a branch of the base repository: reading by branch name finds nothing there...
    assert.equal((await refusal(octokit.rest.git.getRef({ ...repo, ref: 'heads/grow-pg' }))).status, 404);
    assert.equal((await refusal(octokit.rest.repos.getContent({ ...repo, path: 'k8s/db/pg.yaml', ref: 'grow-pg' }))).status, 404);
    // ...while the head SHA reads the fork's content through the base repository, as on GitHub.
    const content = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/db/pg.yaml', ref: pr.data.head.sha });
    assert.ok(!Array.isArray(content.data) && content.data.type === 'file');
    assert.match(Buffer.from(content.data.content, 'base64').toString('utf8'), /storage: 900Gi/);
    const files = await octokit.rest.pulls.listFiles({ ...repo, pull_number: number });
    assert.deepEqual(files.data.map((f) => f.filename), ['k8s/db/pg.yaml']);
    const listed = await octokit.rest.pulls.list({ ...repo, head: 'mallory:grow-pg' });
    assertMatchesOpenApi('pulls/list', 200, listed.data);
    assert.deepEqual(listed.data.map((p) => p.number), [number]);
    assert.deepEqual((await octokit.rest.pulls.list({ ...repo, head: 'acme:grow-pg' })).data, []);
    // A push to the fork moves the pull request's head.
    const pushed = await gh.commitFiles({ fork: 'mallory', branch: 'grow-pg', message: 'More', files: { 'k8s/db/extra.yaml': 'x: 1\n' } });
    assert.equal((await octokit.rest.pulls.get({ ...repo, pull_number: number })).data.head.sha, pushed);
  });

  it('forks through the API and opens a pull request from owner:branch', async () => {
    const dana = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.addPerson('dana') }, spaceWrites: false });
    const fork = await dana.rest.repos.createFork(repo);
    assertMatchesOpenApi('repos/create-fork', 202, fork.data);
    assert.equal(fork.data.full_name, 'dana/platform-gitops');
    assert.equal(fork.data.fork, true);
    assert.equal(fork.data.parent?.full_name, 'acme/platform-gitops');
    const got = await dana.rest.repos.get({ owner: 'dana', repo: 'platform-gitops' });
    assertMatchesOpenApi('repos/get', 200, got.data);
    assert.equal(got.data.source?.full_name, 'acme/platform-gitops');
    assert.equal((await octokit.rest.repos.get(repo)).data.forks_count, 2);

    await gh.commitFiles({ fork: 'dana', branch: 'tune', message: 'Tune', files: { 'k8s/db/configmap.yaml': 'tuned: true\n' } });
    const created = await dana.rest.pulls.create({ ...repo, head: 'dana:tune', base: 'main', title: 'Tune from my fork' });
    assertMatchesOpenApi('pulls/create', 201, created.data);
    assert.equal(created.data.head.repo?.full_name, 'dana/platform-gitops');
    assert.equal(created.data.user?.login, 'dana');
    const again = await refusal(dana.rest.pulls.create({ ...repo, head: 'dana:tune', base: 'main', title: 'again' }));
    assert.equal(again.status, 422);
    assert.equal((again.data as { errors?: Array<{ message?: string }> }).errors?.[0]?.message, 'A pull request already exists for dana:tune.');
    // A branch that exists only in the fork is not a head of the base repository.
    assert.equal((await refusal(dana.rest.pulls.create({ ...repo, head: 'tune', base: 'main', title: 'wrong head' }))).status, 422);
    // Nobody's fork: no such head.
    assert.equal((await refusal(dana.rest.pulls.create({ ...repo, head: 'eve:tune', base: 'main', title: 'no fork' }))).status, 422);

    const merged = await octokit.rest.pulls.merge({ ...repo, pull_number: created.data.number });
    assert.equal(merged.data.merged, true);
    assert.equal(await gh.readFile('main', 'k8s/db/configmap.yaml'), 'tuned: true\n');
    const mergeCommit = await octokit.rest.git.getCommit({ ...repo, commit_sha: merged.data.sha });
    assert.match(mergeCommit.data.message, /^Merge pull request #\d+ from dana\/tune/);
  });
});
