// The "write applied, reply dropped" fault through Octokit: GitHub makes the change, the connection is cut before the
// answer, and the client sees a network error for something that happened.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import type { GitHubSandbox } from '../../../sandbox/github/index.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';

describe('GitHub sandbox: a write applied whose reply is dropped', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;
  let pullNumber: number;
  const repo = exampleRepo;
  useExampleGitHub(async (suite) => {
    ({ gh, octokit } = suite);
    await gh.commitFiles({ branch: 'grow', message: 'Grow pg', files: { 'k8s/db/pg.yaml': 'grown\n' } });
    pullNumber = await gh.openPullRequest({ head: 'grow', title: 'Grow pg' });
  });

  it('creates the comment, but Octokit reports a network error and no answer', async () => {
    gh.faults.failNext('POST', 'issues.createComment', 1, 'drop-reply');
    const error = await octokit.rest.issues.createComment({ ...repo, issue_number: pullNumber, body: 'plan: grow', request: { retries: 0 } }).then(() => undefined, (e: unknown) => e);
    const e = error as { name?: string; status?: number; response?: unknown };
    assert.equal(e.name, 'HttpError');
    assert.equal(e.response, undefined, 'a dropped reply has no HTTP answer');
    assert.equal(e.status, 500);
    assert.deepEqual(gh.state.comments.filter((c) => c.issue === pullNumber).map((c) => c.body), ['plan: grow']);
  });

  it('sets a commit status whose reply never comes, and answers the next request', async () => {
    const sha = (await octokit.rest.pulls.get({ ...repo, pull_number: pullNumber })).data.head.sha;
    gh.faults.failNext('POST', 'repos.createCommitStatus', 1, 'drop-reply');
    await assert.rejects(octokit.rest.repos.createCommitStatus({ ...repo, sha, state: 'pending', context: 'sts-volume-gitops', request: { retries: 0 } }));
    const combined = await octokit.rest.repos.getCombinedStatusForRef({ ...repo, ref: sha });
    assert.deepEqual(combined.data.statuses.map((s) => [s.context, s.state]), [['sts-volume-gitops', 'pending']]);
  });

  it('with the tool\'s client, does not resend a POST after the network error: the comment exists once', async () => {
    // plugin-retry treats a network error like a 5xx; the tool's client keeps it from resending POSTs (issue 13 campaign).
    gh.faults.failNext('POST', 'issues.createComment', 1, 'drop-reply');
    gh.requestLog.reset();
    await assert.rejects(octokit.rest.issues.createComment({ ...repo, issue_number: pullNumber, body: 'feedback once' }));
    assert.equal(gh.requestLog.countsByOperation()['issues.createComment'], 1);
    assert.equal(gh.state.comments.filter((c) => c.body === 'feedback once').length, 1);
  });
});
