// GitHubSource.fileAt reads a file whole whatever its size: GitHub's JSON contents answer leaves out the bytes of a
// file over 1 MB (`encoding: "none"`), which would read as an empty manifest.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { GitHubSource } from '../../functions/adapters/github/github-source.ts';
import { createGitHubClient } from '../../functions/adapters/github/octokit.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';

const seedDir = fileURLToPath(new URL('../../examples/gitops-repo', import.meta.url));

describe('GitHubSource.fileAt', () => {
  let gh: GitHubSandbox;
  let host: GitHubSource;
  // A generated bundle of many small documents, over 1 MB in all.
  const big = Array.from({ length: 30_000 }, (_, i) => `---\n# document ${i} of a generated bundle\nkind: ConfigMap\n`).join('');

  before(async () => {
    gh = await startGitHubSandbox({ seedDir });
    host = new GitHubSource(createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } }), { owner: gh.owner, repo: gh.repo }, 'main', ['k8s/**/*.yaml']);
    await gh.commitFiles({ branch: 'main', message: 'Add a generated bundle', files: { 'k8s/bundle.yaml': big } });
  });
  after(() => gh.close());

  it('returns a file over 1 MB whole', async () => {
    assert.ok(Buffer.byteLength(big) > 1024 * 1024);
    assert.equal(await host.fileAt('main', 'k8s/bundle.yaml'), big);
  });

  it('returns a small file as it is, and undefined for a path that is not there', async () => {
    assert.equal(await host.fileAt('main', 'k8s/db/pg.yaml'), await gh.readFile('main', 'k8s/db/pg.yaml'));
    assert.equal(await host.fileAt('main', 'k8s/nothing.yaml'), undefined);
  });
});
