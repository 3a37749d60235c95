// What a credential may do, as the GitHub sandbox reports it the way GitHub does: a classic token's scopes in the
// `X-OAuth-Scopes` header (none for fine-grained and installation tokens), the caller's role in the repository's
// `permissions`, and an App installation's permissions (`GET /repos/{o}/{r}/installation`, with the App's JWT).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';
import { assertMatchesComponent, assertMatchesOpenApi } from './openapi.ts';

describe('GitHub sandbox: token scopes and installation permissions', () => {
  const suite = useExampleGitHub();

  it('answers a classic token with its scopes, a fine-grained one without the header', async () => {
    const classic = await suite.octokit.rest.repos.get(exampleRepo);
    assert.equal(classic.headers['x-oauth-scopes'], 'repo');
    // Without `repo`, the private repository is a 404 (the scopes still said); `repo:status` reaches its statuses only.
    const statusOnly = createGitHubClient({ baseUrl: suite.gh.url, auth: { kind: 'token', token: suite.gh.addPerson('ops', 'write', { scopes: ['repo:status', 'read:org'] }) } });
    await assert.rejects(statusOnly.rest.repos.get(exampleRepo), (error: { status?: number; response?: { headers: Record<string, string> } }) =>
      error.status === 404 && error.response?.headers['x-oauth-scopes'] === 'repo:status, read:org');
    const { data: main } = await suite.octokit.rest.git.getRef({ ...exampleRepo, ref: 'heads/main' });
    const combined = await statusOnly.rest.repos.getCombinedStatusForRef({ ...exampleRepo, ref: main.object.sha });
    assert.equal(combined.status, 200);
    await assert.rejects(statusOnly.rest.git.getRef({ ...exampleRepo, ref: 'heads/main' }), (error: { status?: number }) => error.status === 404);
    const fineGrained = suite.gh.addPerson('fg', 'write', { fineGrained: true });
    assert.match(fineGrained, /^github_pat_/);
    const answer = await createGitHubClient({ baseUrl: suite.gh.url, auth: { kind: 'token', token: fineGrained } }).rest.repos.get(exampleRepo);
    assert.equal(answer.headers['x-oauth-scopes'], undefined);
  });

  it('tells the caller its role in the repository', async () => {
    const reader = createGitHubClient({ baseUrl: suite.gh.url, auth: { kind: 'token', token: suite.gh.addPerson('reader', 'read') } });
    const repository = await reader.rest.repos.get(exampleRepo);
    assertMatchesOpenApi('repos/get', 200, repository.data);
    assert.deepEqual(repository.data.permissions, { admin: false, maintain: false, push: false, triage: false, pull: true });
    assert.equal((await suite.octokit.rest.repos.get(exampleRepo)).data.permissions?.push, true);
  });

  it('serves the installation and the permissions it was granted to the App only', async () => {
    const { gh } = suite;
    gh.state.installationPermissions = { contents: 'read', statuses: 'write', metadata: 'read' };
    const app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
    const byRepo = await app.rest.apps.getRepoInstallation(exampleRepo);
    assertMatchesOpenApi('apps/get-repo-installation', 200, byRepo.data);
    assert.deepEqual(byRepo.data.permissions, { contents: 'read', statuses: 'write', metadata: 'read' });
    const byId = await app.rest.apps.getInstallation({ installation_id: gh.app.installationId });
    assertMatchesOpenApi('apps/get-installation', 200, byId.data);
    assert.equal(byId.data.id, gh.app.installationId);
    await assert.rejects(app.rest.apps.getInstallation({ installation_id: 1 }), (error: { status?: number }) => error.status === 404);
    await assert.rejects(app.rest.apps.getRepoInstallation({ owner: 'acme', repo: 'elsewhere' }), (error: { status?: number }) => error.status === 404);
    // Not with a token: these need the App's JWT.
    await assert.rejects(suite.octokit.rest.apps.getRepoInstallation(exampleRepo), (error: { status?: number }) => error.status === 401);
  });

  it('refuses an installation token what the installation was not granted, as GitHub does', async () => {
    const { gh } = suite;
    gh.state.installationPermissions = { contents: 'read', statuses: 'write', metadata: 'read' };
    const app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
    const refused = (permissions: string) => (error: { status?: number; message?: string; response?: { headers: Record<string, string>; data: unknown } }): boolean => {
      assertMatchesComponent('basic-error', error.response?.data);
      return error.status === 403 && /^Resource not accessible by integration/.test(error.message ?? '') && error.response?.headers['x-accepted-github-permissions'] === permissions;
    };
    await assert.rejects(app.rest.issues.createComment({ ...exampleRepo, issue_number: 1, body: 'x' }), refused('issues=write; pull_requests=write'));
    await assert.rejects(app.rest.pulls.list(exampleRepo), refused('pull_requests=read'));
    await assert.rejects(app.rest.git.createRef({ ...exampleRepo, ref: 'refs/heads/x', sha: '0'.repeat(40) }), refused('contents=write'));
    const { data: main } = await app.rest.git.getRef({ ...exampleRepo, ref: 'heads/main' });
    assert.equal((await app.rest.repos.createCommitStatus({ ...exampleRepo, sha: main.object.sha, state: 'success', context: 'granted' })).status, 201);
  });
});
