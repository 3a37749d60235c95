// The GitHub side of feedback (Octokit only): pull requests, files, commit statuses and comments, with `ensure…`
// writes that read first and write only what changed. Raw API shapes become plain types here.
import { createHash } from 'node:crypto';
import type { GitHubClient } from './octokit.ts';

export interface RepoRef {
  owner: string;
  repo: string;
}

export interface OpenPullRequest {
  number: number;
  headSha: string;
  headRef: string;
  title: string;
  htmlUrl: string;
  /** The head branch lives in another repository (a fork; a deleted fork's head repo is null). */
  fromFork: boolean;
}

export type WriteOutcome = 'created' | 'updated' | 'unchanged';

export class FeedbackHost {
  /** Writes done through this host, for the report and the demo. */
  readonly writes: string[] = [];
  private ourLogin: Promise<string> | undefined;

  constructor(private readonly octokit: GitHubClient, private readonly repo: RepoRef) {}

  async openPullRequests(base: string): Promise<OpenPullRequest[]> {
    const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, { ...this.repo, state: 'open', base, per_page: 100 });
    const ours = `${this.repo.owner}/${this.repo.repo}`.toLowerCase();
    return pulls.map((p) => ({
      number: p.number, headSha: p.head.sha, headRef: p.head.ref, title: p.title, htmlUrl: p.html_url,
      fromFork: p.head.repo?.full_name.toLowerCase() !== ours,
    }));
  }

  async changedFiles(pullNumber: number): Promise<string[]> {
    const files = await this.octokit.paginate(this.octokit.rest.pulls.listFiles, { ...this.repo, pull_number: pullNumber, per_page: 100 });
    return files.flatMap((f) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename]));
  }

  /** Sets the status unless the latest one for the context already says the same. */
  async ensureCommitStatus(sha: string, status: { context: string; state: 'pending' | 'success' | 'failure' | 'error'; description: string; targetUrl?: string }): Promise<WriteOutcome> {
    const existing = await this.octokit.rest.repos.getCombinedStatusForRef({ ...this.repo, ref: sha, per_page: 100 });
    const latest = existing.data.statuses.find((s) => s.context === status.context);
    if (latest && latest.state === status.state && latest.description === status.description && (latest.target_url ?? undefined) === status.targetUrl) return 'unchanged';
    await this.octokit.rest.repos.createCommitStatus({
      ...this.repo, sha, state: status.state, context: status.context, description: status.description,
      ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
    });
    this.writes.push(`status ${status.context} on ${sha.slice(0, 7)}: ${status.state} "${status.description}"`);
    return latest ? 'updated' : 'created';
  }

  /**
   * One comment per `key` on a PR, found again by a hidden marker carrying a hash of its content: edited when the
   * content changed, never duplicated, untouched when the same. Only a comment we wrote is ours: anyone can paste the
   * marker, and write access lets us edit their comment, so a marked comment by someone else is left alone.
   */
  async ensureComment(issueNumber: number, key: string, body: string): Promise<{ outcome: WriteOutcome; url: string }> {
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    const marker = `<!-- sts-volume-gitops:${key} -->`;
    const full = `${marker}\n<!-- sts-volume-gitops:hash:${hash} -->\n${body}`;
    const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, { ...this.repo, issue_number: issueNumber, per_page: 100 });
    const marked = comments.filter((c) => c.body?.startsWith(marker));
    const login = marked.length > 0 ? await this.authenticatedLogin() : undefined;
    const existing = marked.find((c) => c.user?.login === login);
    if (existing) {
      if (existing.body?.includes(`<!-- sts-volume-gitops:hash:${hash} -->`)) return { outcome: 'unchanged', url: existing.html_url };
      const updated = await this.octokit.rest.issues.updateComment({ ...this.repo, comment_id: existing.id, body: full });
      this.writes.push(`comment ${key} on #${issueNumber}: edited`);
      return { outcome: 'updated', url: updated.data.html_url };
    }
    const created = await this.createCommentOnce(issueNumber, full);
    this.writes.push(`comment ${key} on #${issueNumber}: created`);
    return { outcome: 'created', url: created.html_url };
  }

  /**
   * Posts a comment once. A create whose answer was lost (no HTTP reply, or a 5xx) may have been made: resending it
   * blindly, as the retry plugin would, can post it twice. So the comments are read back first, and the create is
   * sent again only when ours is not there.
   */
  private async createCommentOnce(issueNumber: number, body: string): Promise<{ html_url: string }> {
    const create = { ...this.repo, issue_number: issueNumber, body };
    try {
      return (await this.octokit.rest.issues.createComment({ ...create, request: { retries: 0 } })).data;
    } catch (error) {
      const { status, response } = error as { status?: number; response?: unknown };
      if (response !== undefined && status !== undefined && status < 500) throw error;
      const login = await this.authenticatedLogin();
      const comments = await this.octokit.paginate(this.octokit.rest.issues.listComments, { ...this.repo, issue_number: issueNumber, per_page: 100 });
      const made = comments.find((c) => c.body === body && c.user?.login === login);
      if (made) return made;
      return (await this.octokit.rest.issues.createComment(create)).data;
    }
  }

  /**
   * Who our comments are by: the token's user, or for a GitHub App installation (which has no user: GET /user is
   * refused with 403) the App's bot user `slug[bot]`. Asked once per host, and only when a marked comment needs it.
   */
  private authenticatedLogin(): Promise<string> {
    this.ourLogin ??= (async () => {
      try {
        return (await this.octokit.rest.users.getAuthenticated()).data.login;
      } catch (error) {
        if ((error as { status?: number }).status !== 403) throw error;
        const app = (await this.octokit.rest.apps.getAuthenticated()).data;
        if (!app?.slug) throw new Error('GitHub did not name the App this installation token belongs to (GET /app has no slug)', { cause: error });
        return `${app.slug}[bot]`;
      }
    })();
    return this.ourLogin;
  }

  /** Commits on `branch` touching `path`, newest first (at most `limit`). */
  async commitsTouching(branch: string, path: string, limit = 20): Promise<Array<{ sha: string; parent: string | undefined }>> {
    const commits = await this.octokit.rest.repos.listCommits({ ...this.repo, sha: branch, path, per_page: limit });
    return commits.data.map((c) => ({ sha: c.sha, parent: c.parents[0]?.sha }));
  }

  /**
   * A file's text at `ref`, or undefined when there is no such file. Read with the raw media type: the JSON form
   * leaves a file over 1 MB without its content (`content: ""`, `encoding: "none"`).
   */
  async fileAt(ref: string, path: string): Promise<string | undefined> {
    try {
      const content = await this.octokit.rest.repos.getContent({ ...this.repo, path, ref, mediaType: { format: 'raw' } });
      // A directory has no raw form: GitHub answers its JSON listing instead.
      if (typeof content.data !== 'string') return undefined;
      return content.data;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  /** The merged pull request that brought `sha` into the branch, if any. */
  async mergedPullRequestFor(sha: string): Promise<number | undefined> {
    const pulls = await this.octokit.rest.repos.listPullRequestsAssociatedWithCommit({ ...this.repo, commit_sha: sha });
    return pulls.data.find((p) => p.merged_at !== null)?.number;
  }
}
