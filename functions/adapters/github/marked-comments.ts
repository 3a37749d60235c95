// Comments found again by a hidden marker (Octokit only): one comment of ours per key on a pull request, edited when
// its content changed, never duplicated, not even when the reply to its create was lost.
import { createHash } from 'node:crypto';
import { isRateLimited, type WriteOutcome } from '../../engine/ports.ts';
import { listAll } from './list-all.ts';
import type { GitHubClient, RepoRef } from './octokit.ts';

export class MarkedComments {
  private ourLogin: Promise<string> | undefined;

  constructor(private readonly octokit: GitHubClient, private readonly repo: RepoRef, private readonly writes: string[]) {}

  /**
   * The marker carries a hash of the content, so an unchanged comment costs no write. Only a comment we wrote is
   * ours: anyone can paste the marker, and write access lets us edit their comment, so a marked comment by someone
   * else is left alone.
   */
  async ensure(issueNumber: number, key: string, body: string): Promise<{ outcome: WriteOutcome; url: string }> {
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 16);
    const marker = `<!-- sts-volume-gitops:${key} -->`;
    const full = `${marker}\n<!-- sts-volume-gitops:hash:${hash} -->\n${body}`;
    const comments = await this.list(issueNumber);
    const marked = comments.filter((c) => c.body?.startsWith(marker));
    const login = marked.length > 0 ? await this.authenticatedLogin() : undefined;
    const existing = marked.find((c) => c.user?.login === login);
    if (existing) {
      if (existing.body?.includes(`<!-- sts-volume-gitops:hash:${hash} -->`)) return { outcome: 'unchanged', url: existing.html_url };
      const updated = await this.octokit.rest.issues.updateComment({ ...this.repo, comment_id: existing.id, body: full });
      this.writes.push(`comment ${key} on #${issueNumber}: edited`);
      return { outcome: 'updated', url: updated.data.html_url };
    }
    const created = await this.createOnce(issueNumber, full);
    this.writes.push(`comment ${key} on #${issueNumber}: created`);
    return { outcome: 'created', url: created.html_url };
  }

  /**
   * Posts a comment once. A create whose answer was lost (no HTTP reply, or a 5xx) may have been made: resending it
   * blindly, as the retry plugin would, can post it twice. So the comments are read back first, and the create is
   * sent again only when ours is not there.
   */
  async createOnce(issueNumber: number, body: string): Promise<{ html_url: string }> {
    const create = { ...this.repo, issue_number: issueNumber, body };
    try {
      return (await this.octokit.rest.issues.createComment({ ...create, request: { retries: 0 } })).data;
    } catch (error) {
      const { status, response } = error as { status?: number; response?: unknown };
      // A refusal GitHub answered (a rate limit included) made nothing: said as it is.
      if (isRateLimited(error) || (response !== undefined && status !== undefined && status < 500)) throw error;
      const login = await this.authenticatedLogin();
      const made = (await this.list(issueNumber)).find((c) => c.body === body && c.user?.login === login);
      if (made) return made;
      return (await this.octokit.rest.issues.createComment(create)).data;
    }
  }

  private list(issueNumber: number): Promise<Array<{ id: number; body?: string | undefined; html_url: string; user: { login: string } | null }>> {
    return listAll((page) => this.octokit.rest.issues.listComments({ ...this.repo, issue_number: issueNumber, ...page }));
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
}
