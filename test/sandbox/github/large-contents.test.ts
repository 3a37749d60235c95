// Files over 1 MB through the contents API, as GitHub answers them: the JSON form describes the file with
// `content: ""` and `encoding: "none"`; the raw media type and the git blobs API still return the bytes.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { assertMatchesOpenApi } from './openapi.ts';

const seedDir = fileURLToPath(new URL('../../../examples/gitops-repo', import.meta.url));

describe('GitHub sandbox: contents over 1 MB', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;
  const repo = { owner: 'acme', repo: 'platform-gitops' };
  const exactlyOneMb = Buffer.alloc(1024 * 1024, 'a');
  const large = Buffer.concat([Buffer.from('# generated\n'), Buffer.alloc(1024 * 1024, 'b')]);

  before(async () => {
    gh = await startGitHubSandbox({ seedDir });
    octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
    await gh.commitFiles({ branch: 'main', message: 'Add big files', files: { 'k8s/big.yaml': large, 'k8s/one-mb.yaml': exactlyOneMb } });
  });
  after(() => gh.close());

  it('answers a file over 1 MB as JSON without its content, with encoding "none" and the real size', async () => {
    const described = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/big.yaml' });
    assertMatchesOpenApi('repos/get-content', 200, described.data);
    assert.ok(!Array.isArray(described.data) && described.data.type === 'file');
    assert.equal(described.data.encoding, 'none');
    assert.equal(described.data.content, '');
    assert.equal(described.data.size, large.length);
    // Up to 1 MB the bytes are there.
    const oneMb = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/one-mb.yaml' });
    assert.ok(!Array.isArray(oneMb.data) && oneMb.data.type === 'file');
    assert.equal(oneMb.data.encoding, 'base64');
    assert.ok(Buffer.from(oneMb.data.content, 'base64').equals(exactlyOneMb));
  });

  it('still serves the bytes through the raw media type and the git blobs API', async () => {
    const raw = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/big.yaml', mediaType: { format: 'raw' } });
    assert.equal((raw.data as unknown as string).length, large.length);
    assert.ok((raw.data as unknown as string).startsWith('# generated\n'));
    const described = await octokit.rest.repos.getContent({ ...repo, path: 'k8s/big.yaml' });
    assert.ok(!Array.isArray(described.data));
    const blob = await octokit.rest.git.getBlob({ ...repo, file_sha: described.data.sha });
    assert.ok(Buffer.from(blob.data.content, 'base64').equals(large));
  });
});
