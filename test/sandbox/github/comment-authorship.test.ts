// Who may change a comment, as on GitHub: everyone their own; someone else's only with write access to the
// repository. The sandbox knows whose each token is (a person, or an App's bot user `slug[bot]`).
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { startGitHubSandbox, type GitHubSandbox } from '../../../sandbox/github/index.ts';
import { assertMatchesComponent, assertMatchesOpenApi } from './openapi.ts';
import { refusal } from './refusal.ts';

const seedDir = fileURLToPath(new URL('../../../examples/gitops-repo', import.meta.url));

describe('GitHub sandbox: comment authorship', () => {
  let gh: GitHubSandbox;
  let bot: GitHubClient;
  let app: GitHubClient;
  let pullNumber: number;
  const repo = { owner: 'acme', repo: 'platform-gitops' };

  before(async () => {
    gh = await startGitHubSandbox({ seedDir });
    bot = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.token }, spaceWrites: false });
    app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem }, spaceWrites: false });
    await gh.commitFiles({ branch: 'grow', message: 'Grow pg', files: { 'k8s/db/pg.yaml': 'grown\n' } });
    pullNumber = await gh.openPullRequest({ head: 'grow', title: 'Grow pg' });
  });
  after(() => gh.close());

  it('tells a token who it belongs to: GET /user for a person, GET /app (and the bot user on comments) for an App', async () => {
    const me = await bot.rest.users.getAuthenticated();
    assertMatchesOpenApi('users/get-authenticated', 200, me.data);
    assert.equal(me.data.login, gh.tokenLogin);
    const appInfo = await app.rest.apps.getAuthenticated();
    assertMatchesOpenApi('apps/get-authenticated', 200, appInfo.data);
    assert.equal(appInfo.data?.slug, gh.app.slug);
    // An installation token is not a user: GitHub refuses GET /user to it.
    const notAUser = await refusal(app.rest.users.getAuthenticated());
    assert.equal(notAUser.status, 403);
    assert.match(notAUser.message, /^Resource not accessible by integration/);
    const byApp = await app.rest.issues.createComment({ ...repo, issue_number: pullNumber, body: 'from the app' });
    assert.equal(byApp.data.user?.login, gh.app.botLogin);
    assert.equal(byApp.data.user?.type, 'Bot');
    const byToken = await bot.rest.issues.createComment({ ...repo, issue_number: pullNumber, body: 'from the token' });
    assert.equal(byToken.data.user?.login, gh.tokenLogin);
    assert.equal(byToken.data.user?.type, 'User');
  });

  it('refuses a read-only person editing or deleting someone else\'s comment with 403, and lets them change their own', async () => {
    const reader = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.addPerson('rita', 'read') } });
    const ours = await bot.rest.issues.createComment({ ...repo, issue_number: pullNumber, body: '<!-- sts-volume-gitops -->\nplan' });
    const refused = await refusal(reader.rest.issues.updateComment({ ...repo, comment_id: ours.data.id, body: 'defaced' }));
    assert.equal(refused.status, 403);
    assert.match(refused.message, /^Resource not accessible by personal access token/);
    assertMatchesComponent('basic-error', refused.data);
    assert.equal(refused.headers['x-accepted-github-permissions'], 'issues=write; pull_requests=write');
    assert.equal((await refusal(reader.rest.issues.deleteComment({ ...repo, comment_id: ours.data.id }))).status, 403);
    assert.equal(gh.state.comments.find((c) => c.id === ours.data.id)?.body, '<!-- sts-volume-gitops -->\nplan');

    const own = await reader.rest.issues.createComment({ ...repo, issue_number: pullNumber, body: 'looks good' });
    const edited = await reader.rest.issues.updateComment({ ...repo, comment_id: own.data.id, body: 'looks good to me' });
    assertMatchesOpenApi('issues/update-comment', 200, edited.data);
    assert.equal(edited.data.user?.login, 'rita');
    await reader.rest.issues.deleteComment({ ...repo, comment_id: own.data.id });
    assert.ok(!gh.state.comments.some((c) => c.id === own.data.id));
  });

  it('lets write access (the tool\'s token, the App) edit a person\'s comment, as GitHub does: a marker in it is no proof of authorship', async () => {
    const persons = gh.addComment({ pullNumber, author: 'dana', body: '<!-- sts-volume-gitops -->\nI copied your marker' });
    const listed = await bot.rest.issues.listComments({ ...repo, issue_number: pullNumber });
    assertMatchesOpenApi('issues/list-comments', 200, listed.data);
    const seen = listed.data.find((c) => c.id === persons);
    assert.equal(seen?.user?.login, 'dana');
    assert.equal(seen?.user?.type, 'User');
    // Nothing stops a writer from overwriting it: only the tool's own check of the author can.
    const overwritten = await app.rest.issues.updateComment({ ...repo, comment_id: persons, body: 'overwritten' });
    assert.equal(overwritten.data.user?.login, 'dana');
    assert.equal(gh.state.comments.find((c) => c.id === persons)?.body, 'overwritten');
  });

  it('counts another person\'s token as that person: their comment is theirs, not the tool\'s', async () => {
    const dana = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.addPerson('dana') }, spaceWrites: false });
    const theirs = await dana.rest.issues.createComment({ ...repo, issue_number: pullNumber, body: 'by dana' });
    assertMatchesOpenApi('issues/create-comment', 201, theirs.data);
    assert.equal(theirs.data.user?.login, 'dana');
    assert.equal((await dana.rest.users.getAuthenticated()).data.login, 'dana');
  });
});
