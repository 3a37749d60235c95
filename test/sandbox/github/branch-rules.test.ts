// The rules that apply to a branch (GET /repos/{owner}/{repo}/rules/branches/{branch}), as GitHub documents them: none
// for a branch no ruleset targets, a merge_queue rule with its ruleset's source for one that requires a merge queue;
// an App installation reads them with Metadata alone (what `check` asks before saying a queue would wait).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { createGitHubClient } from '../../../functions/adapters/github/octokit.ts';
import { requireMergeQueue } from '../../../sandbox/github/endpoints/rules.ts';
import { exampleRepo, useExampleGitHub } from '../../support/example-github.ts';
import { assertMatchesOpenApi } from './openapi.ts';

describe('GitHub sandbox: a branch\'s rules', () => {
  const suite = useExampleGitHub();

  it('answers no rules, then the merge queue a ruleset requires, to a token and to an installation with Metadata only', async () => {
    const { gh, octokit } = suite;
    const none = await octokit.rest.repos.getBranchRules({ ...exampleRepo, branch: 'main' });
    assertMatchesOpenApi('repos/get-branch-rules', 200, none.data);
    assert.deepEqual(none.data, []);

    requireMergeQueue(gh.state, 'main');
    gh.state.installationPermissions = { metadata: 'read' };
    const app = createGitHubClient({ baseUrl: gh.url, auth: { kind: 'app', appId: gh.app.appId, installationId: gh.app.installationId, privateKey: gh.app.privateKeyPem } });
    const rules = await app.rest.repos.getBranchRules({ ...exampleRepo, branch: 'main' });
    assertMatchesOpenApi('repos/get-branch-rules', 200, rules.data);
    assert.deepEqual(rules.data.map((r) => [r.type, r.ruleset_source_type, r.ruleset_source]), [['merge_queue', 'Repository', 'acme/platform-gitops']]);
    assert.deepEqual((await octokit.rest.repos.getBranchRules({ ...exampleRepo, branch: 'release' })).data, [], 'a branch the ruleset does not target');
  });
});
