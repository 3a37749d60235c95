// What the ReviewHost writes to GitHub is made printable there too, the last guard behind the renderers (issue 34):
// a status, a comment, a check run's title, summary and annotations, a pull request's title and body, a commit message.
// Titles and commit messages, in which GitHub links references, also have them broken. Hostile text handed raw to the
// adapter, as if a renderer had forgotten, read back from the GitHub sandbox through Octokit.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CheckRuns } from '../../functions/adapters/github/check-runs.ts';
import { createGitHubClient } from '../../functions/adapters/github/octokit.ts';
import { GitHubReviewHost } from '../../functions/adapters/github/review-host.ts';
import { printable } from '../../functions/domain/printable.ts';
import { gitHubReference } from '../support/cmark.ts';
import { exampleRepo, useExampleGitHub } from '../support/example-github.ts';

const hostile = 'pg\x1b]52;c;aGk=\x07\x1b[1A\x1b[2K\r\u202e\x9b31m see @platform-team GH-12 #12 a5c3785ed8d6';
/** No raw control, separator, bidi or format character but the line feeds of a text of several lines. */
const raw = /(?!\n)[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

describe('GitHub texts the adapter writes', () => {
  const suite = useExampleGitHub();

  it('a status, a comment, a pull request and a commit: printable, and references broken in titles and messages', async () => {
    const host = new GitHubReviewHost(suite.octokit, exampleRepo);
    const base = await suite.gh.state.git.resolve('main');
    assert.ok(base);
    await host.ensureCommitStatus(base, { context: 'sts-volume-gitops/demo', state: 'failure', description: hostile });
    assert.equal(suite.gh.state.statuses.at(-1)?.description, printable(hostile));
    const pull = suite.gh.state.pulls[0]?.number ?? await suite.gh.openPullRequest({ head: 'main', title: 'x' }).catch(() => undefined);
    const branch = 'sts-volume-gitops/recover/demo/db/pg/data';
    const sha = await host.commitFile(branch, base, 'k8s/db/pg.yaml', 'recovered\n', `Recover ${hostile}\n\n${hostile}`);
    const message = (await suite.octokit.rest.git.getCommit({ ...exampleRepo, commit_sha: sha })).data.message;
    assert.doesNotMatch(message.replace(/\u200b/g, ''), raw, 'no raw character but the zero-width spaces that break references');
    assert.doesNotMatch(message, gitHubReference);
    assert.equal(message.replace(/\u200b/g, ''), `Recover ${printable(hostile)}\n\n${printable(hostile)}`);
    const created = await host.createPullRequest({ branch, base: 'main', title: `Recover ${hostile}`, body: `body\n${hostile}`, labels: ['sts-volume-gitops'], kind: 'size-recovery' });
    const stored = suite.gh.state.pulls.find((p) => p.number === created.number);
    assert.doesNotMatch((stored?.title ?? '').replace(/\u200b/g, ''), raw);
    assert.doesNotMatch(stored?.title ?? '', gitHubReference);
    assert.equal(stored?.body, `body\n${printable(hostile)}`);
    await host.ensureComment(pull ?? created.number, 'plan:demo', `line\n${hostile}`);
    assert.ok(suite.gh.state.comments.some((c) => c.body.endsWith(`line\n${printable(hostile)}`)));
  });

  it('a check run\'s title, summary and annotations: printable, a message by lines', async () => {
    const gh = suite.gh;
    const app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
    const head = await gh.state.git.resolve('main');
    assert.ok(head);
    await new CheckRuns(app, exampleRepo, gh.app.appId, []).ensure(head, {
      context: 'hostile', state: 'failure', description: 'd', title: hostile, summary: `table\n${hostile}`,
      annotations: [{ path: 'k8s/db/pg.yaml', line: 3, level: 'failure', title: hostile, message: `first\n${hostile}` }],
    });
    const run = gh.state.checkRuns.find((r) => r.name === 'hostile');
    assert.equal(run?.output.title, printable(hostile));
    assert.equal(run?.output.summary, `table\n${printable(hostile)}`);
    assert.deepEqual([run?.annotations[0]?.title, run?.annotations[0]?.message], [printable(hostile), `first\n${printable(hostile)}`]);
  });
});
