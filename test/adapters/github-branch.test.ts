// A target whose branch is not in the repository (`mian` for `main`): the pass and check say so, naming the setting
// and the branch it probably meant, rather than GitHub's bare "Not Found". Against the GitHub sandbox, real Octokit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GitHubSource } from '../../functions/adapters/github/github-source.ts';
import { exampleRepo, useExampleGitHub } from '../support/example-github.ts';

describe('a branch the repository does not have', () => {
  const suite = useExampleGitHub();

  it('is named, with the setting to fix and the branch it probably meant', async () => {
    await assert.rejects(new GitHubSource(suite.octokit, exampleRepo, 'mian', ['k8s/**/*.yaml']).readBranchHead(),
      { message: 'branch mian is not in acme/platform-gitops (source.github.branch); did you mean main?' });
    await assert.rejects(new GitHubSource(suite.octokit, exampleRepo, 'release-2031', ['k8s/**/*.yaml']).readBranchHead(),
      { message: 'branch release-2031 is not in acme/platform-gitops (source.github.branch)' });
  });

  it('leaves a repository the credential cannot see as GitHub says it', async () => {
    await assert.rejects(new GitHubSource(suite.octokit, { owner: 'acme', repo: 'nope' }, 'main', ['k8s/**/*.yaml']).readBranchHead(),
      (error: { status?: number; message?: string }) => error.status === 404 && !/branch/.test(error.message ?? ''));
  });
});
