// What real api.github.com answers that the sandbox once did not (see @octokit/fixtures): a directory's contents as a
// 200 listing, an ETag on writes, a Location on 201s, and a text/html tarball redirect.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';
import { assertMatchesOpenApi } from './openapi.ts';

const repo = exampleRepo;

describe('GitHub sandbox: answers as api.github.com gives them', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;
  useExampleGitHub(async (suite) => {
    ({ gh, octokit } = suite);
  });

  it('lists a directory\'s files and folders with 200', async () => {
    const listing = await octokit.rest.repos.getContent({ ...repo, path: 'k8s' });
    assert.equal(listing.status, 200);
    assertMatchesOpenApi('repos/get-content', 200, listing.data);
    assert.ok(Array.isArray(listing.data));
    const entries = listing.data.map((e) => `${e.type} ${e.path}`);
    assert.ok(entries.includes('dir k8s/db'), entries.join(', '));
    assert.ok(entries.every((e) => !e.slice(e.indexOf(' ') + 1).slice('k8s/'.length).includes('/')), 'only direct children');
    const files = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/db' });
    assert.ok(Array.isArray(files.data) && files.data.some((e) => e.type === 'file' && e.name === 'pg.yaml' && e.size > 0 && e.download_url !== null));
  });

  it('answers writes with an ETag, and a 201 with the Location of what it created', async () => {
    const head = (await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' })).data.object.sha;
    const status = await octokit.rest.repos.createCommitStatus({ ...repo, sha: head, state: 'success', context: 'headers' });
    assert.equal(status.status, 201);
    assert.match(status.headers.etag ?? '', /^"[0-9a-f]{40}"$/);
    assert.equal(status.headers.location, status.data.url);
    const blob = await octokit.rest.git.createBlob({ ...repo, content: 'x', encoding: 'utf-8' });
    assert.equal(blob.headers.location, blob.data.url);
    const pulls = (await octokit.rest.pulls.list({ ...repo, state: 'all' })).data;
    assert.equal(pulls.length, 0);
  });

  it('redirects a tarball request with text/html, as GitHub does', async () => {
    const response = await fetch(`${gh.url}/repos/${repo.owner}/${repo.repo}/tarball/main`, { redirect: 'manual', headers: { authorization: `token ${gh.token}` } });
    assert.equal(response.status, 302);
    assert.match(response.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(response.headers.get('location') ?? '', /\/legacy\.tar\.gz\/main$/);
  });
});
