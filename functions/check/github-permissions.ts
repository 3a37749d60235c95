// What a target needs of its GitHub credential, and whether what GitHub reports grants it (pure): an App installation's
// permissions (`GET /repos/{o}/{r}/installation`), a classic token's OAuth scopes (`X-OAuth-Scopes`), and the
// caller's role in the repository. A fine-grained token's permissions are not reported by GitHub: said as a warning.
import type { TargetConfig } from '../domain/config.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';

export type PermissionLevel = 'read' | 'write' | 'admin';

export interface NeededPermission {
  /** The App permission's name, as GitHub spells it (`pull_requests`). */
  permission: string;
  level: PermissionLevel;
  why: string;
  /** What the tool does without it, when it can do without (then its absence is a warning, not an error). */
  withoutIt?: string;
}

/**
 * `checkRuns`: whether the target publishes check runs (a GitHub App's verdicts; without `checks: write` they fall back
 * to commit statuses).
 */
export function neededGitHubPermissions(pullRequests: TargetConfig['pullRequests'], options: { checkRuns?: boolean } = {}): NeededPermission[] {
  return [
    pullRequests.recovery || pullRequests.writeBack
      ? { permission: 'contents', level: 'write', why: 'read manifests and values files; recovery and write-back pull requests push a branch and a commit' }
      : { permission: 'contents', level: 'read', why: 'read manifests and values files' },
    { permission: 'statuses', level: 'write', why: 'the pull request check and the progress status after a merge' },
    { permission: 'pull_requests', level: 'write', why: 'plan and progress comments on pull requests; recovery pull requests' },
    ...(options.checkRuns ? [{
      permission: 'checks', level: 'write' as const, why: 'check runs with the plan and annotations on the storage lines',
      withoutIt: 'verdicts are published as commit statuses instead, without annotations',
    }] : []),
  ];
}

const rank: Record<string, number> = { read: 1, write: 2, admin: 3 };

/** Each needed permission against the installation's grants. */
export function judgeInstallationPermissions(needed: readonly NeededPermission[], granted: Readonly<Record<string, string | undefined>>, appId: number): CheckResult[] {
  return needed.map((need) => {
    const has = granted[need.permission];
    const subject = `${need.permission}: ${need.level}`;
    if (has !== undefined && (rank[has] ?? 0) >= (rank[need.level] ?? 0)) return ok('github.permissions', subject, `the installation has ${need.permission}: ${has}`);
    return (need.withoutIt === undefined ? error : warning)(
      'github.permissions', subject,
      `the App installation has ${has === undefined ? `no ${need.permission} permission` : `only ${need.permission}: ${has}`}; used for: ${need.why}${need.withoutIt === undefined ? '' : ` (without it, ${need.withoutIt})`}`,
      `in the settings of GitHub App ${appId} (Permissions & events), set "${permissionTitle(need.permission)}" to ${titleOf(need.level)}, save, then accept the new permissions in the installation's settings (an organization owner must approve them)`,
    );
  });
}

/**
 * A classic token's scopes: `repo` grants everything the tool does on a private repository, `public_repo` on a public
 * one; `repo:status` only statuses. Check runs cannot be written with a token at all.
 */
export function judgeTokenScopes(needed: readonly NeededPermission[], scopes: readonly string[], repository: { private: boolean }): CheckResult[] {
  const has = new Set(scopes);
  const covers = (need: NeededPermission): boolean => {
    if (need.permission === 'checks') return false;
    if (has.has('repo')) return true;
    if (!repository.private && has.has('public_repo')) return true;
    return need.permission === 'statuses' && has.has('repo:status');
  };
  const shown = scopes.length === 0 ? 'no scopes' : `scopes ${scopes.join(', ')}`;
  return needed.map((need) => {
    const subject = `${need.permission}: ${need.level}`;
    if (covers(need)) return ok('github.permissions', subject, `the token's ${shown} cover it`);
    if (need.permission === 'checks') {
      return error('github.permissions', subject, `check runs are written by GitHub Apps only; a token cannot (${need.why})`, 'authenticate with a GitHub App (source.github.app) that has "Checks" read and write');
    }
    return error(
      'github.permissions', subject, `the classic token has ${shown}; used for: ${need.why}`,
      `create a token with the "${repository.private ? 'repo' : 'public_repo'}" scope (Settings > Developer settings > Personal access tokens), or use a GitHub App`,
    );
  });
}

/** A fine-grained token (no scopes header): GitHub does not say what it may do; reading worked. */
export function fineGrainedTokenWarning(needed: readonly NeededPermission[]): CheckResult {
  return warning(
    'github.permissions', 'fine-grained token',
    'GitHub does not report a fine-grained token\'s permissions; reading the repository worked, writes are not tried by check',
    `make sure the token has ${needed.map((n) => `"${permissionTitle(n.permission)}" ${titleOf(n.level)}`).join(', ')} on this repository`,
  );
}

/** The caller's role in the repository (`permissions.push`): every write the tool makes needs it. */
export function judgeRepositoryRole(permissions: { push?: boolean } | undefined, login: string): CheckResult {
  if (permissions === undefined || permissions.push) return ok('github.role', login, permissions === undefined ? 'the repository did not say the caller\'s role' : 'may write to the repository');
  return error('github.role', login, `${login} can only read the repository: statuses, comments and recovery pull requests would be refused`, `give ${login} the Write role on the repository (Settings > Collaborators and teams)`);
}

/** A permission's name as the App settings page shows it (`pull_requests` is "Pull requests"). */
export function permissionTitle(permission: string): string {
  return ({
    metadata: 'Metadata', contents: 'Contents', statuses: 'Commit statuses', pull_requests: 'Pull requests', checks: 'Checks', merge_queues: 'Merge queues',
  } as Record<string, string>)[permission] ?? permission;
}

/** A level as the App settings page shows it. */
export function titleOf(level: PermissionLevel): string {
  return level === 'read' ? 'Read-only' : 'Read and write';
}
