// The GitHub side of recovery pull requests (Octokit only): a deterministic branch with one commit made through the
// git data API, and the pull request's lifecycle. Plain types out.
import type { GitHubClient } from './octokit.ts';
import type { RepoRef } from './feedback-host.ts';

export const botAuthor = { name: 'sts-volume-gitops', email: 'sts-volume-gitops@users.noreply.github.com' };
/** Put on the recovery PRs this tool closes itself, so a closure of ours is never read as a person declining it. */
export const closedByToolLabel = 'closed-by-sts-volume-gitops';

export interface RecoveryPullRequest {
  number: number;
  state: 'open' | 'closed';
  merged: boolean;
  title: string;
  body: string;
  htmlUrl: string;
  headRef: string;
  labels: string[];
}

type ListedPull = { number: number; state: string; merged_at: string | null; title: string; body: string | null; html_url: string; head: { ref: string }; labels: Array<{ name?: string }> };

function toRecoveryPullRequest(p: ListedPull): RecoveryPullRequest {
  return {
    number: p.number, state: p.state === 'open' ? 'open' : 'closed', merged: p.merged_at !== null, title: p.title, body: p.body ?? '',
    htmlUrl: p.html_url, headRef: p.head.ref, labels: p.labels.flatMap((l) => (l.name ? [l.name] : [])),
  };
}

export class RecoveryHost {
  readonly writes: string[] = [];

  constructor(private readonly octokit: GitHubClient, private readonly repo: RepoRef) {}

  async pullRequestsFor(branch: string): Promise<RecoveryPullRequest[]> {
    const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, { ...this.repo, state: 'all', head: `${this.repo.owner}:${branch}`, per_page: 100 });
    return pulls.map(toRecoveryPullRequest);
  }

  async openRecoveryPullRequests(prefix: string): Promise<RecoveryPullRequest[]> {
    const pulls = await this.octokit.paginate(this.octokit.rest.pulls.list, { ...this.repo, state: 'open', per_page: 100 });
    // Only branches of this repository: a fork's pull request may carry the same branch name and our marker, and
    // closing it would delete our own branch of that name.
    const ours = `${this.repo.owner}/${this.repo.repo}`.toLowerCase();
    return pulls.filter((p) => p.head.ref.startsWith(prefix) && p.head.repo?.full_name.toLowerCase() === ours).map(toRecoveryPullRequest);
  }

  async branchHead(branch: string): Promise<string | undefined> {
    try {
      return (await this.octokit.rest.git.getRef({ ...this.repo, ref: `heads/${branch}` })).data.object.sha;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  /** Who made a commit and on top of what: to tell our commits from a person's. */
  async commitAuthor(sha: string): Promise<{ name: string; parents: string[] }> {
    const commit = await this.octokit.rest.git.getCommit({ ...this.repo, commit_sha: sha });
    return { name: commit.data.author.name, parents: commit.data.parents.map((p) => p.sha) };
  }

  /** Points `branch` at a new commit on top of `baseSha` that replaces one file; creates or force-moves the branch. */
  async commitFile(branch: string, baseSha: string, path: string, content: string, message: string): Promise<string> {
    const base = await this.octokit.rest.git.getCommit({ ...this.repo, commit_sha: baseSha });
    const blob = await this.octokit.rest.git.createBlob({ ...this.repo, content, encoding: 'utf-8' });
    const tree = await this.octokit.rest.git.createTree({ ...this.repo, base_tree: base.data.tree.sha, tree: [{ path, mode: '100644', type: 'blob', sha: blob.data.sha }] });
    const commit = await this.octokit.rest.git.createCommit({ ...this.repo, message, tree: tree.data.sha, parents: [baseSha], author: botAuthor });
    const moveBranch = (): Promise<unknown> => this.octokit.rest.git.updateRef({ ...this.repo, ref: `heads/${branch}`, sha: commit.data.sha, force: true });
    if (await this.branchHead(branch)) {
      await moveBranch();
    } else {
      // A create whose reply was lost is resent by the retry plugin and answered "Reference already exists".
      try {
        await this.octokit.rest.git.createRef({ ...this.repo, ref: `refs/heads/${branch}`, sha: commit.data.sha });
      } catch (error) {
        if (!isAlreadyThere(error)) throw error;
        await moveBranch();
      }
    }
    this.writes.push(`branch ${branch} -> ${commit.data.sha.slice(0, 7)}`);
    return commit.data.sha;
  }

  async createPullRequest(branch: string, base: string, title: string, body: string): Promise<RecoveryPullRequest> {
    let created: { number: number; html_url: string };
    try {
      created = (await this.octokit.rest.pulls.create({ ...this.repo, head: branch, base, title, body })).data;
    } catch (error) {
      // The create went through but its reply was lost and the retry was refused: the open one is ours.
      const open = isAlreadyThere(error) ? (await this.pullRequestsFor(branch)).find((p) => p.state === 'open') : undefined;
      if (!open) throw error;
      created = { number: open.number, html_url: open.htmlUrl };
    }
    await this.octokit.rest.issues.addLabels({ ...this.repo, issue_number: created.number, labels: ['sts-volume-gitops', 'volume-recovery'] });
    this.writes.push(`recovery PR #${created.number} opened`);
    return { number: created.number, state: 'open', merged: false, title, body, htmlUrl: created.html_url, headRef: branch, labels: ['sts-volume-gitops', 'volume-recovery'] };
  }

  async updatePullRequest(number: number, title: string, body: string): Promise<void> {
    await this.octokit.rest.pulls.update({ ...this.repo, pull_number: number, title, body });
    this.writes.push(`recovery PR #${number} updated`);
  }

  async closePullRequest(number: number, comment: string, branch: string): Promise<void> {
    await this.octokit.rest.issues.createComment({ ...this.repo, issue_number: number, body: comment });
    await this.octokit.rest.issues.addLabels({ ...this.repo, issue_number: number, labels: [closedByToolLabel] });
    await this.octokit.rest.pulls.update({ ...this.repo, pull_number: number, state: 'closed' });
    await this.octokit.rest.git.deleteRef({ ...this.repo, ref: `heads/${branch}` }).catch((error: unknown) => {
      if ((error as { status?: number }).status !== 422) throw error;
    });
    this.writes.push(`recovery PR #${number} closed`);
  }
}

/** GitHub's 422 for a create of something that exists (a ref, an open pull request for the same head). */
function isAlreadyThere(error: unknown): boolean {
  const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown };
  return status === 422 && typeof message === 'string' && /already exists/i.test(message);
}
