// The GitHub credential, read-only: is it accepted, does it see the repository, and may it do what the target does
// (an App installation's permissions as GitHub reports them; a classic token's scopes; the caller's role).
import type { GitHubAuth, GitHubClient, RepoRef } from '../adapters/github/octokit.ts';
import type { TargetConfig } from '../domain/config.ts';
import { error, ok, type CheckResult } from './check-result.ts';
import {
  fineGrainedTokenWarning, judgeInstallationPermissions, judgeRepositoryRole, judgeTokenScopes, neededGitHubPermissions,
} from './github-permissions.ts';
import { judgeMergeQueuePermission } from './merge-queue-permission.ts';
import { judgeRequiredCheckSource, type CheckRequirement, type RequirementReading } from './required-check-source.ts';
import { validateContext } from '../feedback/check-names.ts';

interface OctokitFailure {
  status?: number;
  message?: string;
  response?: { headers: Record<string, string | number | undefined> };
}

/** `X-OAuth-Scopes: repo, workflow` as a list; undefined without the header (fine-grained and installation tokens). */
function scopesOf(header: string | number | undefined): string[] | undefined {
  return header === undefined ? undefined : String(header).split(',').map((s) => s.trim()).filter((s) => s !== '');
}

export async function probeGitHub(config: TargetConfig, client: GitHubClient, repo: RepoRef, auth: GitHubAuth, options: { checkRuns: boolean }): Promise<CheckResult[]> {
  const subject = `${repo.owner}/${repo.repo}`;
  const needed = neededGitHubPermissions(config.pullRequests, options);
  // An App is asked for its installation first (with its JWT): a wrong installation id fails every other call.
  const installation = auth.kind === 'app' ? await installationResults(client, repo, auth, needed, config) : [];
  if (installation.some((r) => r.id === 'github.installation' && r.level === 'error')) return installation;
  let repository;
  try {
    repository = await client.rest.repos.get({ owner: repo.owner, repo: repo.repo });
  } catch (cause) {
    const failure = cause as OctokitFailure;
    if (failure.status === 401) {
      return [error('github.credential', subject, `GitHub refused the credential (401 ${failure.message ?? ''})`, auth.kind === 'app'
        ? 'check source.github.app.appId, installationId and that the private key is the App\'s current one'
        : 'the token is wrong, expired or revoked: create a new one and put it where source.github.token.env says')];
    }
    const scopes = scopesOf(failure.response?.headers['x-oauth-scopes']);
    if (failure.status === 404 && auth.kind === 'token' && scopes !== undefined && !scopes.includes('repo')) {
      // GitHub hides a private repository from a classic token without `repo` behind a 404; its scopes still come back.
      return [
        error('github.credential', subject, `GitHub answers 404: a classic token needs the repo scope to see a private repository (this one has ${scopes.length === 0 ? 'no scopes' : `scopes ${scopes.join(', ')}`})`,
          'create a token with the "repo" scope (Settings > Developer settings > Personal access tokens), or use a GitHub App'),
        ...judgeTokenScopes(needed, scopes, { private: true }),
      ];
    }
    if (failure.status === 404) {
      return [error('github.credential', subject, 'the repository does not exist or the credential cannot see it (404)', auth.kind === 'app'
        ? 'install the App on this repository (or give the installation access to it) and check owner and repo'
        : 'check owner and repo, and give the token\'s user (and, for a fine-grained token, the token) access to the repository')];
    }
    return [error('github.credential', subject, `cannot read the repository: ${failure.message ?? String(cause)}`, 'check source.github.apiUrl and the network path to GitHub')];
  }
  const results: CheckResult[] = [ok('github.credential', subject, `the ${auth.kind === 'app' ? 'App installation' : 'token'} is accepted and reads the repository`)];
  if (auth.kind === 'app') return [...results, ...installation];
  const scopes = scopesOf(repository.headers['x-oauth-scopes']);
  const login = await tokenLogin(client);
  results.push(judgeRepositoryRole(repository.data.permissions, login));
  if (scopes === undefined) results.push(fineGrainedTokenWarning(needed));
  else results.push(...judgeTokenScopes(needed, scopes, { private: repository.data.private }));
  if (config.pullRequests.validate && 'github' in config.source) results.push(await requiredCheckResult(client, repo, config.name, config.source.github.branch, { kind: 'token' }));
  return results;
}

async function installationResults(
  client: GitHubClient, repo: RepoRef, auth: Extract<GitHubAuth, { kind: 'app' }>, needed: ReturnType<typeof neededGitHubPermissions>, config: TargetConfig,
): Promise<CheckResult[]> {
  const subject = `GitHub App ${auth.appId}`;
  let installation;
  try {
    installation = (await client.rest.apps.getRepoInstallation({ owner: repo.owner, repo: repo.repo })).data;
  } catch (cause) {
    const failure = cause as OctokitFailure;
    return [error('github.installation', subject, `cannot read the App's installation on ${repo.owner}/${repo.repo}: ${failure.status ?? ''} ${failure.message ?? String(cause)}`,
      'install the App on the repository; check appId and the private key')];
  }
  if (installation.id !== auth.installationId) {
    return [error('github.installation', subject, `the App is installed on ${repo.owner}/${repo.repo} as installation ${installation.id}, not ${auth.installationId}`,
      `set source.github.app.installationId to ${installation.id}`)];
  }
  if (installation.suspended_at) {
    return [error('github.installation', subject, `the installation ${installation.id} is suspended since ${installation.suspended_at}`, 'unsuspend it in the installation\'s settings')];
  }
  return [ok('github.installation', subject, `installed on ${installation.account && 'login' in installation.account ? installation.account.login : repo.owner} as installation ${installation.id}`),
    ...judgeInstallationPermissions(needed, installation.permissions, auth.appId),
    // Merge queues' commits are checked only where pull requests are (a queue waits for a required check).
    ...(config.pullRequests.validate && 'github' in config.source ? [
      await mergeQueueResult(client, repo, config.source.github.branch, installation.permissions, auth.appId),
      await requiredCheckResult(client, repo, config.name, config.source.github.branch, { kind: 'app', appId: auth.appId, granted: installation.permissions }),
    ] : [])];
}

/** A failed request's status and message, for a sentence. */
function answered(cause: unknown): string {
  const failure = cause as OctokitFailure;
  return `GitHub answered ${failure.status ?? '?'} ${failure.message ?? String(cause)}`;
}

/** Whether the branch's rules require the target's check from the App (required-check-source.ts), read as far as the credential may. */
async function requiredCheckResult(
  client: GitHubClient, repo: RepoRef, target: string, branch: string,
  credential: { kind: 'token' } | { kind: 'app'; appId: number; granted: Readonly<Record<string, string | undefined>> },
): Promise<CheckResult> {
  const context = validateContext(target);
  const rulesets: RequirementReading = await client.rest.repos.getBranchRules({ ...repo, branch, per_page: 100 }).then(
    (answer) => ({ read: answer.data.flatMap((rule): CheckRequirement[] => (rule.type === 'required_status_checks'
      ? rule.parameters?.required_status_checks.filter((c) => c.context === context).map((c) => ({ where: `the ruleset ${rule.ruleset_id ?? ''}`.trimEnd(), appId: c.integration_id })) ?? []
      : [])) }),
    (cause: unknown) => ({ unreadable: `the rulesets require (${answered(cause)})` }),
  );
  const protection = credential.kind === 'app' && credential.granted.administration === undefined
    ? { unreadable: 'branch protection requires: reading it needs the App permission "Administration" (Read-only), which the installation lacks' }
    : await client.rest.repos.getStatusChecksProtection({ ...repo, branch }).then(
      (answer): RequirementReading => ({
        read: answer.data.checks.filter((c) => c.context === context).map((c) => ({ where: `the branch protection of ${branch}`, appId: c.app_id !== null && c.app_id > 0 ? c.app_id : undefined })),
      }),
      (cause: unknown): RequirementReading => {
        const { status, message } = cause as OctokitFailure;
        // No rule, or a rule without required checks: nothing required there (Octokit adds the documentation URL).
        if (status === 404 && /^(Branch not protected|Required status checks not enabled)\b/.test(message ?? '')) return { read: [] };
        if (credential.kind === 'token' && (status === 404 || status === 403)) {
          return { unreadable: `branch protection requires: reading it needs the admin role on the repository (${answered(cause)})` };
        }
        return { unreadable: `branch protection requires (${answered(cause)})` };
      },
    );
  return judgeRequiredCheckSource({ context, branch, appId: credential.kind === 'app' ? credential.appId : undefined, protection, rulesets });
}

async function mergeQueueResult(client: GitHubClient, repo: RepoRef, branch: string, granted: Readonly<Record<string, string | undefined>>, appId: number): Promise<CheckResult> {
  const has = granted.merge_queues;
  const rules = has === 'read' || has === 'write' ? [] : await client.rest.repos.getBranchRules({ owner: repo.owner, repo: repo.repo, branch, per_page: 100 })
    .then((answer) => answer.data, () => undefined);
  return judgeMergeQueuePermission({ granted, branch, appId, rules });
}

async function tokenLogin(client: GitHubClient): Promise<string> {
  try {
    return (await client.rest.users.getAuthenticated()).data.login;
  } catch {
    return 'the token\'s user';
  }
}
