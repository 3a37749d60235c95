// A feedback comment whose create succeeded but whose answer was lost is not posted twice: the host reads the
// comments back before sending the create again. Nor is one posted twice because reading the comments failed with a
// 409, which Octokit's paginate reads as an empty list (fault campaign, seed 1123 schedule 803).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GitHubReviewHost } from '../../functions/adapters/github/review-host.ts';
import type { GitHubClient } from '../../functions/adapters/github/octokit.ts';
import type { GitHubSandbox } from '../../sandbox/github/index.ts';
import { useExampleGitHub } from '../support/example-github.ts';

describe('GitHubReviewHost.ensureComment when the answer to the create is lost', () => {
  let gh: GitHubSandbox;
  let octokit: GitHubClient;
  let pullNumber: number;
  useExampleGitHub(async (suite) => {
    ({ gh, octokit } = suite);
    await gh.commitFiles({ branch: 'grow', message: 'Grow pg', files: { 'k8s/db/pg.yaml': 'grown\n' } });
    pullNumber = await gh.openPullRequest({ head: 'grow', title: 'Grow pg' });
  });

  function bodiesWith(key: string): string[] {
    return gh.state.comments.filter((c) => c.issue === pullNumber && c.body.startsWith(`<!-- sts-volume-gitops:${key} -->`)).map((c) => c.body);
  }

  it('counts a comment made before the connection dropped as created, and does not post it again', async () => {
    const host = new GitHubReviewHost(octokit, { owner: gh.owner, repo: gh.repo });
    gh.faults.failNext('POST', 'issues.createComment', 1, 'drop-reply');
    gh.requestLog.reset();
    const first = await host.ensureComment(pullNumber, 'plan:lost', 'the plan');
    assert.equal(first.outcome, 'created');
    assert.match(first.url, new RegExp(`/pull/${pullNumber}#issuecomment-\\d+$`));
    assert.equal(bodiesWith('plan:lost').length, 1);
    assert.equal(gh.requestLog.countsByOperation()['issues.createComment'], 1, 'the create was sent once');
    assert.equal((await host.ensureComment(pullNumber, 'plan:lost', 'the plan')).outcome, 'unchanged');
  });

  it('sends the create again when the server failed before making it', async () => {
    const host = new GitHubReviewHost(octokit, { owner: gh.owner, repo: gh.repo });
    gh.faults.failNext('POST', 'issues.createComment', 1, 503);
    gh.requestLog.reset();
    assert.equal((await host.ensureComment(pullNumber, 'plan:failed', 'another plan')).outcome, 'created');
    assert.equal(bodiesWith('plan:failed').length, 1);
    assert.equal(gh.requestLog.countsByOperation()['issues.createComment'], 2);
  });

  it('still fails plainly on a refusal (4xx), without reading back', async () => {
    const host = new GitHubReviewHost(octokit, { owner: gh.owner, repo: gh.repo });
    await assert.rejects(host.ensureComment(pullNumber, 'plan:huge', 'x'.repeat(70_000)), (e: { status?: number }) => e.status === 422);
    assert.equal(bodiesWith('plan:huge').length, 0);
  });

  it('fails on a 409 when reading the comments, rather than taking it for no comments and posting again', async () => {
    const host = new GitHubReviewHost(octokit, { owner: gh.owner, repo: gh.repo });
    assert.equal((await host.ensureComment(pullNumber, 'progress:409', 'resizing')).outcome, 'created');
    gh.faults.failNext('GET', 'issues.listComments', 1, 409);
    await assert.rejects(host.ensureComment(pullNumber, 'progress:409', 'finished'), (e: { status?: number }) => e.status === 409);
    assert.equal((await host.ensureComment(pullNumber, 'progress:409', 'finished')).outcome, 'updated');
    assert.deepEqual(bodiesWith('progress:409').map((b) => b.split('\n').at(-1)), ['finished']);
  });

  it('finds its comment on a later page of a long conversation', async () => {
    const host = new GitHubReviewHost(octokit, { owner: gh.owner, repo: gh.repo });
    for (let i = 0; i < 120; i++) gh.addComment({ pullNumber, body: `comment ${i}`, author: 'dana' });
    assert.equal((await host.ensureComment(pullNumber, 'plan:late', 'first')).outcome, 'created');
    for (let i = 0; i < 120; i++) gh.addComment({ pullNumber, body: `more ${i}`, author: 'dana' });
    assert.equal((await host.ensureComment(pullNumber, 'plan:late', 'first')).outcome, 'unchanged');
    assert.equal((await host.ensureComment(pullNumber, 'plan:late', 'second')).outcome, 'updated');
    assert.equal(bodiesWith('plan:late').length, 1);
  });
});
