// GitHub's primary rate limit in the sandbox: the x-ratelimit-* headers count down per user (or installation) and
// hour window, a 304 is free, and a spent budget answers 403 with `x-ratelimit-remaining: 0` and GitHub's message.
// Also how the tool's Octokit (plugin-throttling's onRateLimit) reacts.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { createGitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { startGitHubSandbox } from '../../../sandbox/github/index.ts';
import { assertMatchesComponent } from './openapi.ts';
import { refusal } from './refusal.ts';

const seedDir = fileURLToPath(new URL('../../../examples/gitops-repo', import.meta.url));
const repo = { owner: 'acme', repo: 'platform-gitops' };

describe('GitHub sandbox: primary rate limit', () => {
  it('counts down per user, not for a 304, and refuses the request past the limit; the tool does not wait an hour for the reset', async () => {
    const gh = await startGitHubSandbox({ seedDir, rateLimit: { limit: 4 } });
    try {
      const warnings: string[] = [];
      const octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token }, log: { warn: (m) => warnings.push(m) } });
      const startedAt = Math.floor(Date.now() / 1000);
      const first = await octokit.rest.repos.get(repo);
      assert.equal(first.headers['x-ratelimit-limit'], '4');
      assert.equal(first.headers['x-ratelimit-remaining'], '3');
      assert.equal(first.headers['x-ratelimit-used'], '1');
      assert.equal(first.headers['x-ratelimit-resource'], 'core');
      const reset = Number(first.headers['x-ratelimit-reset']);
      assert.ok(reset > startedAt && reset <= startedAt + 3601, `reset ${reset} should be within the hour after ${startedAt}`);

      // A conditional request answered 304 does not count.
      const notModified = await refusal(octokit.rest.repos.get({ ...repo, headers: { 'if-none-match': first.headers.etag } }));
      assert.equal(notModified.status, 304);
      assert.equal(notModified.headers['x-ratelimit-remaining'], '3');

      const second = await octokit.rest.git.getRef({ ...repo, ref: 'heads/main' });
      assert.equal(second.headers['x-ratelimit-remaining'], '2');
      assert.equal(second.headers['x-ratelimit-reset'], String(reset));
      // Another person has their own budget; the tool's is untouched by it.
      const other = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.addPerson('dana') } });
      assert.equal((await other.rest.repos.get(repo)).headers['x-ratelimit-remaining'], '3');
      await octokit.rest.repos.get(repo);
      const last = await octokit.rest.repos.get(repo);
      assert.equal(last.headers['x-ratelimit-remaining'], '0');

      gh.requestLog.reset();
      const spent = await refusal(octokit.rest.repos.get(repo));
      assert.equal(spent.status, 403);
      assert.match(spent.message, /^API rate limit exceeded for user ID \d+\. If you reach out to GitHub Support/);
      assert.equal(spent.headers['x-ratelimit-remaining'], '0');
      assert.equal(spent.headers['x-ratelimit-used'], '4');
      assert.equal(spent.headers['x-ratelimit-reset'], String(reset));
      assertMatchesComponent('basic-error', spent.data);
      assert.equal((spent.data as { documentation_url?: string }).documentation_url, 'https://docs.github.com/rest/overview/rate-limits-for-the-rest-api');
      // plugin-throttling saw a primary limit (not a secondary one) and the tool chose not to wait ~3600 s for it.
      assert.equal(gh.requestLog.entries.length, 1);
      assert.ok(warnings.some((w) => /GitHub rate limit on GET .*longer than the 60s this pass waits/.test(w)), warnings.join('\n'));
    } finally {
      await gh.close();
    }
  });

  it('counts an App installation on its own budget, named by installation in the refusal', async () => {
    const gh = await startGitHubSandbox({ seedDir, rateLimit: { limit: 2 } });
    try {
      const app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
      assert.equal((await app.rest.repos.get(repo)).headers['x-ratelimit-remaining'], '1');
      await app.rest.repos.get(repo);
      const spent = await refusal(app.rest.repos.get(repo));
      assert.equal(spent.status, 403);
      assert.match(spent.message, new RegExp(`^API rate limit exceeded for installation ID ${gh.app.installationId}\\.`));
      // The person's token still has its whole budget.
      const person = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token } });
      assert.equal((await person.rest.repos.get(repo)).headers['x-ratelimit-remaining'], '1');
    } finally {
      await gh.close();
    }
  });

  it('is waited out by the tool when the window resets within its limit, then answered', async () => {
    const gh = await startGitHubSandbox({ seedDir, rateLimit: { limit: 1, windowSeconds: 4 } });
    try {
      const warnings: string[] = [];
      const octokit = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token }, log: { warn: (m) => warnings.push(m) } });
      await octokit.rest.repos.get(repo);
      gh.requestLog.reset();
      const answered = await octokit.rest.repos.get(repo);
      assert.equal(answered.status, 200);
      assert.deepEqual(gh.requestLog.entries.map((e) => e.status), [403, 200]);
      assert.ok(warnings.some((w) => /GitHub rate limit on GET .*; retry 1 after [1-5]s/.test(w)), warnings.join('\n'));
    } finally {
      await gh.close();
    }
  });
});
