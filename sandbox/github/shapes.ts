// The JSON GitHub answers for users, repositories, commits, pull requests, comments and statuses.
import { GitHubError, notFound } from './errors.ts';
import type { CommitStatus, GitHubServerContext, IssueComment, Json, PullRequest } from './state.ts';

export function repoMatches(ctx: GitHubServerContext, owner: string | undefined, repo: string | undefined): void {
  if (owner?.toLowerCase() !== ctx.state.owner.toLowerCase() || repo?.toLowerCase() !== ctx.state.repo.toLowerCase()) throw notFound();
}

/** The API address of the repository, or of `owner`'s fork of it. */
export function repoUrl(ctx: GitHubServerContext, owner = ctx.state.owner): string {
  return `${ctx.baseUrl()}/repos/${owner}/${ctx.state.repo}`;
}

export function htmlUrl(ctx: GitHubServerContext, owner = ctx.state.owner): string {
  return `https://github.com/${owner}/${ctx.state.repo}`;
}

/** A stable numeric id per login (GitHub's ids are numbers; the rate-limit message names them). */
export function userId(login: string): number {
  return Math.abs(hashCode(login));
}

/** A person or a bot user; a bot's login (`slug[bot]`) is escaped in its URLs and its page is the App's. */
export function userJson(login: string): Json {
  const bot = /^(.+)\[bot\]$/.exec(login);
  const api = `https://api.github.com/users/${encodeURIComponent(login)}`;
  return {
    login, id: userId(login), node_id: `U_${login}`, avatar_url: `https://avatars.githubusercontent.com/u/${userId(login)}`,
    gravatar_id: '', url: api, html_url: bot ? `https://github.com/apps/${bot[1]}` : `https://github.com/${login}`, followers_url: `${api}/followers`,
    following_url: `${api}/following{/other_user}`, gists_url: `${api}/gists{/gist_id}`, starred_url: `${api}/starred{/owner}{/repo}`,
    subscriptions_url: `${api}/subscriptions`, organizations_url: `${api}/orgs`, repos_url: `${api}/repos`, events_url: `${api}/events{/privacy}`,
    received_events_url: `${api}/received_events`, type: bot ? 'Bot' : 'User', user_view_type: 'public', site_admin: false,
  };
}

function hashCode(text: string): number {
  let h = 0;
  for (const char of text) h = (Math.imul(31, h) + char.charCodeAt(0)) | 0;
  return h;
}

const repositoryUrlTemplates: Record<string, string> = {
  archive_url: '/{archive_format}{/ref}', assignees_url: '/assignees{/user}', blobs_url: '/git/blobs{/sha}', branches_url: '/branches{/branch}',
  collaborators_url: '/collaborators{/collaborator}', comments_url: '/comments{/number}', commits_url: '/commits{/sha}', compare_url: '/compare/{base}...{head}',
  contents_url: '/contents/{+path}', contributors_url: '/contributors', deployments_url: '/deployments', downloads_url: '/downloads', events_url: '/events',
  forks_url: '/forks', git_commits_url: '/git/commits{/sha}', git_refs_url: '/git/refs{/sha}', git_tags_url: '/git/tags{/sha}', hooks_url: '/hooks',
  issue_comment_url: '/issues/comments{/number}', issue_events_url: '/issues/events{/number}', issues_url: '/issues{/number}', keys_url: '/keys{/key_id}',
  labels_url: '/labels{/name}', languages_url: '/languages', merges_url: '/merges', milestones_url: '/milestones{/number}',
  notifications_url: '/notifications{?since,all,participating}', pulls_url: '/pulls{/number}', releases_url: '/releases{/id}', stargazers_url: '/stargazers',
  statuses_url: '/statuses/{sha}', subscribers_url: '/subscribers', subscription_url: '/subscription', tags_url: '/tags', teams_url: '/teams', trees_url: '/git/trees{/sha}',
};

/** The repository, or (given a fork's owner) that owner's fork of it. */
export function repositoryJson(ctx: GitHubServerContext, forkOwner?: string): Json {
  const { repo, defaultBranch } = ctx.state;
  const fork = forkOwner !== undefined && forkOwner.toLowerCase() !== ctx.state.owner.toLowerCase();
  const owner = fork ? forkOwner : ctx.state.owner;
  const id = fork ? 1 + userId(owner) : 1;
  const api = repoUrl(ctx, owner);
  const openPulls = fork ? 0 : ctx.state.pulls.filter((p) => p.state === 'open').length;
  return {
    id, node_id: `R_${id}`, name: repo, full_name: `${owner}/${repo}`, private: true, owner: userJson(owner), html_url: htmlUrl(ctx, owner),
    description: 'sandbox repository', fork, url: api,
    ...Object.fromEntries(Object.entries(repositoryUrlTemplates).map(([key, suffix]) => [key, `${api}${suffix}`])),
    git_url: `git://github.com/${owner}/${repo}.git`, ssh_url: `git@github.com:${owner}/${repo}.git`, clone_url: `https://github.com/${owner}/${repo}.git`,
    svn_url: `https://github.com/${owner}/${repo}`, mirror_url: null, homepage: null, language: 'YAML', forks_count: fork ? 0 : ctx.state.forks.length, forks: fork ? 0 : ctx.state.forks.length,
    stargazers_count: 0, watchers_count: 0, watchers: 0, size: 1, default_branch: defaultBranch, open_issues_count: openPulls,
    open_issues: openPulls, is_template: false, topics: [], has_issues: true, has_projects: false,
    has_wiki: false, has_pages: false, has_downloads: false, has_discussions: false, archived: false, disabled: false, visibility: 'private',
    pushed_at: '2026-01-01T00:00:00Z', created_at: '2026-01-01T00:00:00Z', updated_at: '2026-01-01T00:00:00Z',
    permissions: { admin: false, maintain: false, push: true, triage: true, pull: true }, allow_rebase_merge: true, allow_squash_merge: true,
    allow_merge_commit: true, allow_auto_merge: false, delete_branch_on_merge: false, allow_forking: true, web_commit_signoff_required: false,
    license: null, subscribers_count: 1, network_count: ctx.state.forks.length,
  };
}

export async function commitJson(ctx: GitHubServerContext, sha: string, withFiles = false): Promise<Json> {
  const info = await ctx.state.git.commitInfo(sha);
  if (!info) throw new GitHubError(422, `No commit found for SHA: ${sha}`);
  const author = { name: info.authorName, email: info.authorEmail, date: info.date.replace(/([+-]\d\d:\d\d)$/, '') === info.date ? info.date : new Date(info.date).toISOString().replace(/\.\d{3}Z$/, 'Z') };
  const result: Json = {
    sha: info.sha, node_id: `C_${info.sha}`, url: `${repoUrl(ctx)}/commits/${info.sha}`, html_url: `${htmlUrl(ctx)}/commit/${info.sha}`,
    comments_url: `${repoUrl(ctx)}/commits/${info.sha}/comments`,
    commit: { author, committer: author, message: info.message, tree: { sha: info.tree, url: `${repoUrl(ctx)}/git/trees/${info.tree}` }, url: `${repoUrl(ctx)}/git/commits/${info.sha}`, comment_count: 0 },
    author: null, committer: null,
    parents: info.parents.map((p) => ({ sha: p, url: `${repoUrl(ctx)}/commits/${p}`, html_url: `${htmlUrl(ctx)}/commit/${p}` })),
  };
  if (withFiles) {
    const files = await ctx.state.git.changedFiles(info.parents[0], info.sha);
    result.files = files.map((f) => ({ filename: f.filename, status: f.status, additions: 0, deletions: 0, changes: 0, sha: '0'.repeat(40), blob_url: `${htmlUrl(ctx)}/blob/${info.sha}/${f.filename}`, raw_url: `${htmlUrl(ctx)}/raw/${info.sha}/${f.filename}`, contents_url: `${repoUrl(ctx)}/contents/${f.filename}?ref=${info.sha}`, ...(f.previousFilename ? { previous_filename: f.previousFilename } : {}) }));
  }
  return result;
}

export function pullJson(ctx: GitHubServerContext, pr: PullRequest): Json {
  const ref = (owner: string, branch: string, sha: string): Json => ({ label: `${owner}:${branch}`, ref: branch, sha, user: userJson(owner), repo: repositoryJson(ctx, owner) });
  return {
    id: pr.number + 1000, node_id: `PR_${pr.number}`, number: pr.number, state: pr.state, locked: pr.locked ?? false, title: pr.title, body: pr.body,
    user: userJson(pr.user), labels: pr.labels.map((name, i) => ({ id: i + 1, node_id: `L_${name}`, name, color: 'ededed', default: false, description: '', url: `${repoUrl(ctx)}/labels/${encodeURIComponent(name)}` })),
    url: `${repoUrl(ctx)}/pulls/${pr.number}`, html_url: `${htmlUrl(ctx)}/pull/${pr.number}`, diff_url: `${htmlUrl(ctx)}/pull/${pr.number}.diff`,
    patch_url: `${htmlUrl(ctx)}/pull/${pr.number}.patch`, issue_url: `${repoUrl(ctx)}/issues/${pr.number}`, commits_url: `${repoUrl(ctx)}/pulls/${pr.number}/commits`,
    review_comments_url: `${repoUrl(ctx)}/pulls/${pr.number}/comments`, review_comment_url: `${repoUrl(ctx)}/pulls/comments{/number}`,
    comments_url: `${repoUrl(ctx)}/issues/${pr.number}/comments`, statuses_url: `${repoUrl(ctx)}/statuses/${pr.headSha}`,
    created_at: pr.createdAt, updated_at: pr.updatedAt, closed_at: pr.closedAt, merged_at: pr.mergedAt, merge_commit_sha: pr.mergeCommitSha,
    merged: pr.mergedAt !== null, mergeable: pr.state === 'open' ? true : null, rebaseable: pr.state === 'open' ? true : null,
    mergeable_state: pr.state === 'open' ? 'clean' : 'unknown', merged_by: pr.mergedAt !== null ? userJson(pr.user) : null, draft: false,
    comments: ctx.state.comments.filter((c) => c.issue === pr.number).length, review_comments: 0, maintainer_can_modify: false,
    commits: 1, additions: 1, deletions: 1, changed_files: 1,
    head: ref(pr.headOwner, pr.head, pr.headSha), base: ref(ctx.state.owner, pr.base, pr.baseSha),
    assignee: null, assignees: [], requested_reviewers: [], requested_teams: [], milestone: null, author_association: 'MEMBER', auto_merge: null, active_lock_reason: null,
    _links: Object.fromEntries(Object.entries({
      self: `${repoUrl(ctx)}/pulls/${pr.number}`, html: `${htmlUrl(ctx)}/pull/${pr.number}`, issue: `${repoUrl(ctx)}/issues/${pr.number}`,
      comments: `${repoUrl(ctx)}/issues/${pr.number}/comments`, review_comments: `${repoUrl(ctx)}/pulls/${pr.number}/comments`,
      review_comment: `${repoUrl(ctx)}/pulls/comments{/number}`, commits: `${repoUrl(ctx)}/pulls/${pr.number}/commits`, statuses: `${repoUrl(ctx)}/statuses/${pr.headSha}`,
    }).map(([k, href]) => [k, { href }])),
  };
}

export function commentJson(ctx: GitHubServerContext, c: IssueComment): Json {
  return {
    id: c.id, node_id: `IC_${c.id}`, url: `${repoUrl(ctx)}/issues/comments/${c.id}`, html_url: `${htmlUrl(ctx)}/pull/${c.issue}#issuecomment-${c.id}`,
    issue_url: `${repoUrl(ctx)}/issues/${c.issue}`, body: c.body, user: userJson(c.user), created_at: c.createdAt, updated_at: c.updatedAt, author_association: 'MEMBER',
  };
}

export function statusJson(ctx: GitHubServerContext, s: CommitStatus): Json {
  return {
    id: s.id, node_id: `SC_${s.id}`, url: `${repoUrl(ctx)}/statuses/${s.sha}`, avatar_url: 'https://avatars.githubusercontent.com/u/1', state: s.state, description: s.description,
    target_url: s.targetUrl, context: s.context, created_at: s.createdAt, updated_at: s.createdAt, creator: userJson(s.creator),
  };
}

export function now(): string {
  return new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');
}
