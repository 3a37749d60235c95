// What an App installation must have been granted to call each endpoint (GitHub's "Permissions required for GitHub
// Apps"), enforced on installation tokens: a request without it is GitHub's 403 "Resource not accessible by
// integration", with the permissions that would do in `x-accepted-github-permissions`. Alternatives (`issues` or
// `pull_requests` for a pull request's comments) are any-of; `write` includes `read`.
import { GitHubError } from './errors.ts';
import type { Identity, PermissionLevel } from './state.ts';

type Needed = ReadonlyArray<readonly [permission: string, level: PermissionLevel]>;

const contentsRead: Needed = [['contents', 'read']];
const contentsWrite: Needed = [['contents', 'write']];
const pullsRead: Needed = [['pull_requests', 'read']];
const pullsWrite: Needed = [['pull_requests', 'write']];
const commentsRead: Needed = [['issues', 'read'], ['pull_requests', 'read']];
const commentsWrite: Needed = [['issues', 'write'], ['pull_requests', 'write']];

const neededBy: Readonly<Record<string, Needed>> = {
  'repos.get': [['metadata', 'read']], 'repos.getBranchRules': [['metadata', 'read']],
  'repos.downloadTarballArchive': contentsRead, 'repos.listCommits': contentsRead, 'repos.getCommit': contentsRead,
  'repos.compareCommitsWithBasehead': contentsRead, 'repos.getContent': contentsRead, 'git.getRef': contentsRead,
  'git.listMatchingRefs': contentsRead, 'git.getTree': contentsRead, 'git.getBlob': contentsRead, 'git.getCommit': contentsRead,
  'repos.createOrUpdateFileContents': contentsWrite, 'git.createRef': contentsWrite, 'git.updateRef': contentsWrite,
  'git.deleteRef': contentsWrite, 'git.createTree': contentsWrite, 'git.createBlob': contentsWrite, 'git.createCommit': contentsWrite,
  'repos.listPullRequestsAssociatedWithCommit': pullsRead, 'pulls.list': pullsRead, 'pulls.get': pullsRead,
  'pulls.listFiles': pullsRead, 'pulls.listCommits': pullsRead,
  'pulls.create': pullsWrite, 'pulls.update': pullsWrite, 'pulls.merge': contentsWrite,
  'issues.listComments': commentsRead, 'issues.createComment': commentsWrite, 'issues.updateComment': commentsWrite,
  'issues.deleteComment': commentsWrite, 'issues.addLabels': commentsWrite,
  'repos.listCommitStatusesForRef': [['statuses', 'read']], 'repos.getCombinedStatusForRef': [['statuses', 'read']],
  'repos.createCommitStatus': [['statuses', 'write']],
  'checks.rerequestRun': [['checks', 'write']], 'checks.rerequestSuite': [['checks', 'write']],
  'repos.getStatusChecksProtection': [['administration', 'read']],
};

const rank: Record<PermissionLevel, number> = { read: 1, write: 2, admin: 3 };

export function refuseByInstallationPermissions(caller: Identity, operation: string | undefined, granted: Readonly<Record<string, PermissionLevel>>): void {
  if (caller.credential !== 'installation' || operation === undefined) return;
  const needed = neededBy[operation];
  if (!needed) return;
  const allowed = needed.some(([permission, level]) => {
    const has = granted[permission];
    return has !== undefined && rank[has] >= rank[level];
  });
  if (allowed) return;
  throw new GitHubError(403, 'Resource not accessible by integration', undefined, { 'x-accepted-github-permissions': needed.map(([p, l]) => `${p}=${l}`).join('; ') });
}
