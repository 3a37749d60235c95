// Recovery writes whose reply was lost (the write happened, the connection dropped, the retry plugin sent it again):
// the branch and the pull request are taken as made, not reported as failures or made twice.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { RecoveryHost } from '../../functions/adapters/github/recovery-host.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';

const seedDir = fileURLToPath(new URL('../../examples/gitops-repo', import.meta.url));

describe('RecoveryHost when a create\'s reply is lost', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;

  before(async () => {
    gh = await startGitHubSandbox({ seedDir });
    octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
  });
  after(() => gh.close());

  it('creates the branch and the pull request once, and returns the pull request that exists', async () => {
    const host = new RecoveryHost(octokit, { owner: gh.owner, repo: gh.repo });
    const base = await gh.state.git.resolve('main');
    assert.ok(base);
    const branch = 'sts-volume-gitops/recover/demo/db/pg/data';
    gh.faults.failNext('POST', 'git.createRef', 1, 'drop-reply');
    const sha = await host.commitFile(branch, base, 'k8s/db/pg.yaml', 'recovered\n', 'Recover');
    assert.equal(await gh.state.git.resolve(`refs/heads/${branch}`), sha);

    gh.faults.failNext('POST', 'pulls.create', 1, 'drop-reply');
    const created = await host.createPullRequest(branch, 'main', 'Recover pg', 'body');
    const open = gh.state.pulls.filter((p) => p.head === branch && p.state === 'open');
    assert.deepEqual(open.map((p) => p.number), [created.number]);
    assert.deepEqual(open[0]?.labels, ['sts-volume-gitops', 'volume-recovery']);
  });
});
