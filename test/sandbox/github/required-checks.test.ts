// What `check` and the tool's feedback read of a required check, as GitHub documents it (@octokit/openapi): a ruleset's
// required status checks with their source (`integration_id`), a classic protection's (`checks[].app_id`; admin, or an
// installation's `administration: read`, only), statuses with their `creator`, and a workflow job's check run with its
// App (GitHub Actions), beside the sandbox App's own.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { protectBranch } from '../../../sandbox/github/endpoints/branch-protection.ts';
import { requireStatusChecks } from '../../../sandbox/github/endpoints/rules.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';
import { assertMatchesComponent, assertMatchesOpenApi } from './openapi.ts';

const context = 'sts-volume-gitops/validate (demo)';

describe('GitHub sandbox: required checks and who wrote a verdict', () => {
  const suite = useExampleGitHub();
  const refusal = (error: unknown): { status: number; message: string; body: unknown } => {
    const { status, message, response } = error as { status: number; message: string; response: { data: unknown } };
    return { status, message, body: response.data };
  };

  it('answers a ruleset\'s required checks with their source', async () => {
    const { gh, octokit } = suite;
    requireStatusChecks(gh.state, 'main', [{ context, integrationId: gh.app.appId }, { context: 'ci/build' }]);
    try {
      const rules = await octokit.rest.repos.getBranchRules({ ...exampleRepo, branch: 'main' });
      assertMatchesOpenApi('repos/get-branch-rules', 200, rules.data);
      const [rule] = rules.data;
      assert.equal(rule?.type, 'required_status_checks');
      assert.deepEqual(rule?.type === 'required_status_checks' ? rule.parameters?.required_status_checks : undefined, [{ context, integration_id: gh.app.appId }, { context: 'ci/build' }]);
    } finally {
      gh.state.rulesets = [];
    }
  });

  it('answers branch protection\'s required checks to an admin and an installation with Administration, 404 or 403 to the others', async () => {
    const { gh, octokit } = suite;
    const admin = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.addPerson('owner', 'admin') } });
    const notProtected = refusal(await admin.rest.repos.getStatusChecksProtection({ ...exampleRepo, branch: 'main' }).catch((e: unknown) => e));
    assert.deepEqual([notProtected.status, (notProtected.body as { message: string }).message], [404, 'Branch not protected']);
    assertMatchesComponent('basic-error', notProtected.body);
    protectBranch(gh.state, 'main', [{ context, appId: gh.app.appId }, { context: 'ci/build', appId: null }]);
    try {
      const answer = await admin.rest.repos.getStatusChecksProtection({ ...exampleRepo, branch: 'main' });
      assertMatchesOpenApi('repos/get-status-checks-protection', 200, answer.data);
      assert.deepEqual(answer.data.checks, [{ context, app_id: gh.app.appId }, { context: 'ci/build', app_id: null }]);
      assert.deepEqual(answer.data.contexts, [context, 'ci/build']);
      // A collaborator with write access is told nothing is there.
      assert.equal(refusal(await octokit.rest.repos.getStatusChecksProtection({ ...exampleRepo, branch: 'main' }).catch((e: unknown) => e)).status, 404);
      const app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
      const refused = refusal(await app.rest.repos.getStatusChecksProtection({ ...exampleRepo, branch: 'main' }).catch((e: unknown) => e));
      assert.deepEqual([refused.status, (refused.body as { message: string }).message], [403, 'Resource not accessible by integration']);
      gh.state.installationPermissions = { ...gh.state.installationPermissions, administration: 'read' };
      assert.equal((await app.rest.repos.getStatusChecksProtection({ ...exampleRepo, branch: 'main' })).data.checks.length, 2);
    } finally {
      gh.state.branchProtections = {};
    }
  });

  it('names each status\'s creator, and a workflow job\'s check run as GitHub Actions\'', async () => {
    const { gh, octokit } = suite;
    const sha = await gh.state.git.resolve('refs/heads/main') ?? '';
    const carol = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'token', token: gh.addPerson('carol', 'write') } });
    await carol.rest.repos.createCommitStatus({ ...exampleRepo, sha, state: 'success', context });
    const statuses = await octokit.rest.repos.listCommitStatusesForRef({ ...exampleRepo, ref: sha });
    assertMatchesOpenApi('repos/list-commit-statuses-for-ref', 200, statuses.data);
    assert.deepEqual(statuses.data.map((s) => [s.context, s.creator?.login, s.creator?.type]), [[context, 'carol', 'User']]);
    gh.addWorkflowCheckRun({ sha, name: context, conclusion: 'success' });
    const runs = await octokit.rest.checks.listForRef({ ...exampleRepo, ref: sha, check_name: context, filter: 'all' });
    assertMatchesOpenApi('checks/list-for-ref', 200, runs.data);
    assert.deepEqual(runs.data.check_runs.map((r) => [r.name, r.app?.id, r.app?.slug, r.conclusion]), [[context, 15368, 'github-actions', 'success']]);
    assert.equal((await octokit.rest.checks.listForRef({ ...exampleRepo, ref: sha, app_id: gh.app.appId })).data.total_count, 0, 'none of the sandbox App\'s');
  });
});
