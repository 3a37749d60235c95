// Recovery writes whose reply was lost (the write happened, the connection dropped): never made twice, and the next
// attempt carries on from what exists (a create told "already exists" takes the existing branch or pull request).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { GitHubReviewHost } from '../../../functions/adapters/github/review-host.ts';
import { proposalLabels } from '../../../functions/proposals/lifecycle/identity.ts';
import { useExampleGitHub } from '../../support/example-github.ts';


describe('GitHubReviewHost when a create\'s reply is lost', () => {
  const suite = useExampleGitHub();

  it('leaves one branch and one pull request when a create is applied but its reply is lost, and the next attempt goes on from them', async () => {
    const host = new GitHubReviewHost(suite.octokit, { owner: suite.gh.owner, repo: suite.gh.repo });
    const base = await suite.gh.state.git.resolve('main');
    assert.ok(base);
    const branch = 'sts-volume-gitops/recover/demo/db/pg/data';
    // POSTs are not resent by the client: the lost reply is an error for this pass...
    suite.gh.faults.failNext('POST', 'git.createRef', 1, 'drop-reply');
    await assert.rejects(host.commitFile(branch, base, 'k8s/db/pg.yaml', 'recovered\n', 'Recover'));
    assert.ok(await suite.gh.state.git.resolve(`refs/heads/${branch}`), 'but the branch was made');
    // ...and the next attempt finds the branch and moves it.
    const sha = await host.commitFile(branch, base, 'k8s/db/pg.yaml', 'recovered again\n', 'Recover');
    assert.equal(await suite.gh.state.git.resolve(`refs/heads/${branch}`), sha);

    suite.gh.faults.failNext('POST', 'pulls.create', 1, 'drop-reply');
    await assert.rejects(host.createPullRequest({ branch, base: 'main', title: 'Recover pg', body: 'body', labels: proposalLabels('size-recovery'), kind: 'recovery' }));
    // A second create (a racing holder, or a pass that did not see it yet) is told it exists and takes that one.
    const created = await host.createPullRequest({ branch, base: 'main', title: 'Recover pg', body: 'body', labels: proposalLabels('size-recovery'), kind: 'recovery' });
    const open = suite.gh.state.pulls.filter((p) => p.head === branch && p.state === 'open');
    assert.deepEqual(open.map((p) => p.number), [created.number]);
    assert.deepEqual(open[0]?.labels, ['sts-volume-gitops', 'volume-recovery']);
  });

  it('takes a 409 on listing pull requests for an error, never for "there are none" (which would re-propose a declined one)', async () => {
    const host = new GitHubReviewHost(suite.octokit, { owner: suite.gh.owner, repo: suite.gh.repo });
    const branch = 'sts-volume-gitops/recover/demo/db/pg/data';
    assert.equal((await host.pullRequestsFrom(branch)).length, 1);
    suite.gh.faults.failNext('GET', 'pulls.list', 1, 409);
    await assert.rejects(host.pullRequestsFrom(branch), (e: { status?: number }) => e.status === 409);
    suite.gh.faults.failNext('GET', 'pulls.list', 1, 409);
    await assert.rejects(host.openPullRequests('main'), (e: { status?: number }) => e.status === 409);
  });
});
