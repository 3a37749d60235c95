// GitHub App installation tokens outlive one client: warm Lambda invocations build a new Octokit each time and must
// not mint a new token each time. Real Octokit + @octokit/auth-app against the GitHub sandbox's App endpoints.
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, installationTokenCache } from '../../functions/adapters/github/octokit.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../sandbox/github/index.ts';

const seedDir = join(fileURLToPath(new URL('../../examples/', import.meta.url)), 'gitops-repo');

describe('GitHub App installation tokens across clients', () => {
  let first: GitHubSandbox;
  let second: GitHubSandbox;
  before(async () => {
    first = await startGitHubSandbox({ seedDir });
    second = await startGitHubSandbox({ seedDir });
  });
  after(async () => {
    await first.close();
    await second.close();
  });

  function appClient(gh: GitHubSandbox): ReturnType<typeof createGitHubClient> {
    return createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
  }

  it('mints one token for successive clients of the same App and host, and another for another host', async () => {
    first.requestLog.reset();
    for (let invocation = 0; invocation < 3; invocation++) {
      const response = await appClient(first).rest.repos.get({ owner: first.owner, repo: first.repo });
      assert.equal(response.status, 200);
    }
    assert.equal(first.requestLog.countsByOperation()['apps.createInstallationAccessToken'], 1);
    assert.equal(first.requestLog.countsByOperation()['repos.get'], 3);
    // Same App id and installation id on another host: its own token, not the first host's.
    second.requestLog.reset();
    assert.equal((await appClient(second).rest.repos.get({ owner: second.owner, repo: second.repo })).status, 200);
    assert.equal(second.requestLog.countsByOperation()['apps.createInstallationAccessToken'], 1);
  });

  it('stops reusing a token when less than 15 minutes of its hour remain', () => {
    let clock = Date.parse('2026-11-23T10:00:00Z');
    const cache = installationTokenCache('https://ghe.example/api/v3|1', () => clock);
    cache.set('777', 'ghs_a|2026-11-23T10:00:00Z|2026-11-23T11:00:00Z|all|contents');
    clock = Date.parse('2026-11-23T10:44:59Z');
    assert.equal(cache.get('777'), 'ghs_a|2026-11-23T10:00:00Z|2026-11-23T11:00:00Z|all|contents');
    assert.equal(installationTokenCache('https://ghe.example/api/v3|1', () => clock).get('777') !== undefined, true, 'shared at module level');
    clock = Date.parse('2026-11-23T10:45:01Z');
    assert.equal(cache.get('777'), undefined);
    assert.equal(installationTokenCache('https://ghe.example/api/v3|2', () => clock).get('777'), undefined, 'another App does not see it');
  });
});
