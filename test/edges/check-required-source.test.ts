// `check` says whether the target branch requires the tool's check from the tool's App (issue 34 item 4): a required
// check any collaborator's status meets is no check. Read where the credential may: rulesets (Metadata: read), branch
// protection (admin, or Administration: read); otherwise "cannot tell" with what it needs. Both sandboxes, the real
// Octokit, `check --json` in process.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { protectBranch } from '../../sandbox/github/endpoints/branch-protection.ts';
import { gitHubActionsApp } from '../../sandbox/github/endpoints/installations.ts';
import { requireStatusChecks } from '../../sandbox/github/endpoints/rules.ts';
import type { CheckResult } from '../../functions/check/check-result.ts';
import { startCheckSandboxes, type CheckSandboxes } from '../support/check-sandboxes.ts';
import { withSandboxApp } from '../support/sandbox-app.ts';

const context = 'sts-volume-gitops/validate (demo)';

describe('check: is the required check pinned to the tool\'s App', () => {
  let world: CheckSandboxes;
  let appConfig = '';
  let tokenConfig = '';
  let adminConfig = '';
  const appEnv: Record<string, string> = {};

  async function pinning(path: string, env: Record<string, string> = {}): Promise<CheckResult> {
    const checked = await world.check(path, env);
    const found = checked.results.filter((r) => r.id === 'github.required-check');
    assert.equal(found.length, 1, checked.text);
    return found[0] as CheckResult;
  }

  before(async () => {
    world = await startCheckSandboxes();
    const { github } = world;
    appEnv.CHECK_APP_KEY = github.app.privateKeyPem;
    appConfig = await world.configFile('app', {
      edit: (text) => withSandboxApp(text, github, 'CHECK_APP_KEY'),
    });
    tokenConfig = await world.configFile('token');
    world.env.CHECK_ADMIN_TOKEN = github.addPerson('repo-admin', 'admin');
    adminConfig = await world.configFile('admin', { edit: (text) => text.replace('CHECK_GITHUB_TOKEN', 'CHECK_ADMIN_TOKEN') });
  });
  after(() => world.close());

  it('as an App without Administration: read, cannot tell what branch protection requires, and says what it needs', async () => {
    const result = await pinning(appConfig, appEnv);
    assert.equal(result.level, 'warning');
    assert.match(result.message, /^cannot tell what branch protection requires: reading it needs the App permission "Administration" \(Read-only\), which the installation lacks/);
    assert.match(result.fix ?? '', /pick this tool's App \(id 4242\) as its source/);
  });

  it('reads a ruleset with Metadata alone: pinned to the App is ok, any source a warning, another App an error', async () => {
    const { github } = world;
    try {
      requireStatusChecks(github.state, 'main', [{ context, integrationId: github.app.appId }]);
      const pinned = await pinning(appConfig, appEnv);
      assert.equal(pinned.level, 'ok', pinned.message);
      assert.match(pinned.message, /^the ruleset \d+ requires sts-volume-gitops\/validate \(demo\) from this tool's App 4242: a status or check run of that name from anyone else does not count$/);

      github.state.rulesets = [];
      requireStatusChecks(github.state, 'main', [{ context }]);
      const open = await pinning(appConfig, appEnv);
      assert.equal(open.level, 'warning');
      assert.match(open.message, /requires sts-volume-gitops\/validate \(demo\) from any source: a collaborator's commit status of that name, or a workflow job named like it, turns it green/);

      github.state.rulesets = [];
      requireStatusChecks(github.state, 'main', [{ context, integrationId: gitHubActionsApp.id }]);
      const elsewhere = await pinning(appConfig, appEnv);
      assert.equal(elsewhere.level, 'error');
      assert.match(elsewhere.message, /from App 15368, not this tool's App 4242/);
    } finally {
      github.state.rulesets = [];
    }
  });

  it('reads branch protection with Administration: read: app_id of the App ok, null (any source) a warning', async () => {
    const { github } = world;
    const saved = github.state.installationPermissions;
    github.state.installationPermissions = { ...saved, administration: 'read' };
    try {
      assert.match((await pinning(appConfig, appEnv)).message, /^no rule requires sts-volume-gitops\/validate \(demo\) on main/);
      protectBranch(github.state, 'main', [{ context: 'ci/build', appId: null }, { context, appId: github.app.appId }]);
      const pinned = await pinning(appConfig, appEnv);
      assert.equal(pinned.level, 'ok', pinned.message);
      assert.match(pinned.message, /^the branch protection of main requires .* from this tool's App 4242/);
      protectBranch(github.state, 'main', [{ context, appId: null }]);
      assert.equal((await pinning(appConfig, appEnv)).level, 'warning');
    } finally {
      github.state.installationPermissions = saved;
      github.state.branchProtections = {};
    }
  });

  it('with a token, warns that any collaborator can meet the check, and reads branch protection only as an admin', async () => {
    const { github } = world;
    protectBranch(github.state, 'main', [{ context, appId: null }]);
    try {
      const writer = await pinning(tokenConfig);
      assert.equal(writer.level, 'warning');
      assert.match(writer.message, /^with a token, sts-volume-gitops\/validate \(demo\) is a commit status anyone who may write statuses to the repository can set: even when required/);
      assert.match(writer.fix ?? '', /authenticate as a GitHub App/);
      const admin = await pinning(adminConfig);
      assert.match(admin.message, /main requires it, but a collaborator's status of that name turns it green/);
    } finally {
      github.state.branchProtections = {};
    }
  });
});
