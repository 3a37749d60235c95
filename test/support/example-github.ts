// The GitHub sandbox over the example repository for one suite, with an Octokit client of the repository's token
// (its writes not spaced: the sandbox has no secondary limits): started before the suite's tests (then `setUp`, if
// given), closed after them.
import { fileURLToPath } from 'node:url';
import { after, before } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../functions/adapters/github/octokit.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';

export const exampleRepoDir = fileURLToPath(new URL('../../examples/gitops-repo', import.meta.url));
export const exampleRepo = { owner: 'acme', repo: 'platform-gitops' } as const;

export interface GitHubSuite {
  gh: GitHubSandbox;
  octokit: GitHubClient;
}

export function useExampleGitHub(setUp?: (suite: GitHubSuite) => Promise<void>): GitHubSuite {
  const suite = {} as GitHubSuite;
  before(async () => {
    suite.gh = await startGitHubSandbox({ seedDir: exampleRepoDir });
    suite.octokit = createGitHubClient({ baseUrl: suite.gh.url, auth: { kind: 'token', token: suite.gh.token }, spaceWrites: false });
    await setUp?.(suite);
  });
  after(() => suite.gh.close());
  return suite;
}
