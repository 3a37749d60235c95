// The ReviewHost port on GitHub (Octokit only): pull requests, commit statuses, marked comments, and proposals'
// branches made through the git data API. Raw API shapes become the port's plain types here. What it writes is made
// printable here too, the last guard: a title or a commit message also has GitHub's references broken (they are linked).
import type {
  CommitCheck, CommitStatus, ForeignVerdict, NewProposalPullRequest, OpenPullRequest, ProposalPullRequest, ReviewHost, WriteOutcome,
} from '../../engine/ports.ts';
import { CheckRuns, CheckRunsRefused } from './check-runs.ts';
import { convertHostErrors } from './host-errors.ts';
import { listAll } from './list-all.ts';
import { MarkedComments } from './marked-comments.ts';
import type { GitHubClient, RepoRef } from './octokit.ts';
import { VerdictAuthors } from './verdict-authors.ts';
import { printable, printableLines } from '../../domain/printable.ts';
import { referenceFreeText } from '../../domain/github-references.ts';

export type { RepoRef } from './octokit.ts';

/** Who this tool's commits are by: how a branch head of ours is told from a person's push. */
export const botAuthor = { name: 'sts-volume-gitops', email: 'sts-volume-gitops@users.noreply.github.com' };

type ListedPull = {
  number: number; state: string; merged_at: string | null; title: string; body: string | null; html_url: string;
  head: { ref: string; repo: { full_name: string } | null }; labels: Array<{ name?: string }>;
};

export class GitHubReviewHost implements ReviewHost {
  readonly writes: string[] = [];
  private readonly comments: MarkedComments;
  /** Check runs, when the host acts as a GitHub App (statuses otherwise, and once the App is refused them). */
  private checkRuns: CheckRuns | undefined;
  /** Which statuses and check runs of a name are this tool's own. */
  private readonly authors: VerdictAuthors;

  /**
   * `checkRunsAppId`: the App the client authenticates as, whose verdicts are check runs while it may write them.
   * `rerun`: the check runs someone asked for again (a check's Re-run), answered with a new run even when unchanged.
   */
  constructor(
    private readonly octokit: GitHubClient, private readonly repo: RepoRef,
    options: { checkRunsAppId?: number; rerun?: { sha: string; check?: string } } = {},
  ) {
    convertHostErrors(octokit);
    this.comments = new MarkedComments(octokit, repo, this.writes);
    if (options.checkRunsAppId !== undefined) this.checkRuns = new CheckRuns(octokit, repo, options.checkRunsAppId, this.writes, options.rerun);
    this.authors = new VerdictAuthors(octokit, repo, options.checkRunsAppId);
  }

  async openPullRequests(base: string): Promise<OpenPullRequest[]> {
    const pulls = await listAll((page) => this.octokit.rest.pulls.list({ ...this.repo, state: 'open', base, ...page }));
    return pulls.map((p) => ({
      number: p.number, headSha: p.head.sha, headRef: p.head.ref, title: p.title, htmlUrl: p.html_url, fromFork: !this.isOurs(p),
    }));
  }

  async changedFiles(pullNumber: number): Promise<string[]> {
    const files = await listAll((page) => this.octokit.rest.pulls.listFiles({ ...this.repo, pull_number: pullNumber, ...page }));
    return files.flatMap((f) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename]));
  }

  async mergedPullRequestFor(sha: string): Promise<number | undefined> {
    const pulls = await this.octokit.rest.repos.listPullRequestsAssociatedWithCommit({ ...this.repo, commit_sha: sha });
    return pulls.data.find((p) => p.merged_at !== null)?.number;
  }

  async ensureCommitStatus(sha: string, written: CommitStatus): Promise<WriteOutcome> {
    // The latest status of the name decides a required check: one someone else set after ours is overridden again,
    // even when it says what ours says.
    const status = { ...written, description: printable(written.description) };
    const [latest] = await this.authors.statuses(sha, status.context);
    if (latest?.ours && latest.state === status.state && latest.description === status.description && (latest.targetUrl ?? undefined) === status.targetUrl) return 'unchanged';
    await this.octokit.rest.repos.createCommitStatus({
      ...this.repo, sha, state: status.state, context: status.context, description: status.description,
      ...(status.targetUrl ? { target_url: status.targetUrl } : {}),
    });
    this.writes.push(`status ${status.context} on ${sha.slice(0, 7)}: ${status.state} "${status.description}"`);
    return latest ? 'updated' : 'created';
  }

  get writesCheckRuns(): boolean {
    return this.checkRuns !== undefined;
  }

  async ensureCheck(sha: string, check: CommitCheck): Promise<WriteOutcome> {
    if (this.checkRuns) {
      try {
        return await this.checkRuns.ensure(sha, check);
      } catch (error) {
        if (!(error instanceof CheckRunsRefused)) throw error;
        // Said once in the pass's writes, then every verdict of this host is a commit status.
        this.checkRuns = undefined;
        this.writes.push(`${error.message}: commit statuses instead`);
      }
    }
    const { context, state, description, targetUrl } = check;
    return this.ensureCommitStatus(sha, { context, state, description, ...(targetUrl ? { targetUrl } : {}) });
  }

  foreignVerdicts(sha: string, context: string): Promise<ForeignVerdict[]> {
    return this.authors.foreign(sha, context);
  }

  async changedFilesBetween(baseSha: string, headSha: string): Promise<string[]> {
    // GitHub lists at most 300 files of a comparison; a merge queue's group is a few pull requests.
    const compared = await this.octokit.rest.repos.compareCommitsWithBasehead({ ...this.repo, basehead: `${baseSha}...${headSha}` });
    return (compared.data.files ?? []).flatMap((f) => (f.previous_filename ? [f.filename, f.previous_filename] : [f.filename]));
  }

  ensureComment(pullNumber: number, key: string, body: string): Promise<{ outcome: WriteOutcome; url: string }> {
    return this.comments.ensure(pullNumber, key, printableLines(body));
  }

  async pullRequestsFrom(branch: string): Promise<ProposalPullRequest[]> {
    const pulls = await listAll((page) => this.octokit.rest.pulls.list({ ...this.repo, state: 'all', head: `${this.repo.owner}:${branch}`, ...page }));
    // `head: owner:branch` already leaves out forks (they have other owners).
    return pulls.map(toProposalPullRequest);
  }

  async openPullRequestsFromPrefix(prefix: string): Promise<ProposalPullRequest[]> {
    const pulls = await listAll((page) => this.octokit.rest.pulls.list({ ...this.repo, state: 'open', ...page }));
    // Only branches of this repository: a fork's pull request may carry the same branch name and our marker, and
    // closing it would delete our own branch of that name.
    return pulls.filter((p) => p.head.ref.startsWith(prefix) && this.isOurs(p)).map(toProposalPullRequest);
  }

  async branchHeadIsOurs(branch: string): Promise<boolean | undefined> {
    const head = await this.branchHead(branch);
    if (head === undefined) return undefined;
    const commit = await this.octokit.rest.git.getCommit({ ...this.repo, commit_sha: head });
    return commit.data.author.name === botAuthor.name;
  }

  async commitFile(branch: string, baseSha: string, path: string, content: string, message: string): Promise<string> {
    const base = await this.octokit.rest.git.getCommit({ ...this.repo, commit_sha: baseSha });
    const blob = await this.octokit.rest.git.createBlob({ ...this.repo, content, encoding: 'utf-8' });
    const tree = await this.octokit.rest.git.createTree({ ...this.repo, base_tree: base.data.tree.sha, tree: [{ path, mode: '100644', type: 'blob', sha: blob.data.sha }] });
    const commit = await this.octokit.rest.git.createCommit({ ...this.repo, message: message.split('\n').map(referenceFreeText).join('\n'), tree: tree.data.sha, parents: [baseSha], author: botAuthor });
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

  async createPullRequest(pull: NewProposalPullRequest): Promise<ProposalPullRequest> {
    const { branch, base, title, body } = pull;
    let created: { number: number; html_url: string };
    try {
      created = (await this.octokit.rest.pulls.create({ ...this.repo, head: branch, base, title: referenceFreeText(title), body: printableLines(body) })).data;
    } catch (error) {
      // The create went through but its reply was lost and the retry was refused: the open one is ours.
      const open = isAlreadyThere(error) ? (await this.pullRequestsFrom(branch)).find((p) => p.state === 'open') : undefined;
      if (!open) throw error;
      created = { number: open.number, html_url: open.htmlUrl };
    }
    await this.octokit.rest.issues.addLabels({ ...this.repo, issue_number: created.number, labels: [...pull.labels] });
    this.writes.push(`${pull.kind} PR #${created.number} opened`);
    return { number: created.number, state: 'open', merged: false, title, body, htmlUrl: created.html_url, headRef: branch, labels: [...pull.labels] };
  }

  async updatePullRequest(pullNumber: number, edit: { title: string; body: string; kind: string }): Promise<void> {
    await this.octokit.rest.pulls.update({ ...this.repo, pull_number: pullNumber, title: referenceFreeText(edit.title), body: printableLines(edit.body) });
    this.writes.push(`${edit.kind} PR #${pullNumber} updated`);
  }

  async closePullRequest(pullNumber: number, closing: { comment: string; branch: string; label: string; kind: string }): Promise<void> {
    await this.comments.createOnce(pullNumber, printableLines(closing.comment));
    await this.octokit.rest.issues.addLabels({ ...this.repo, issue_number: pullNumber, labels: [closing.label] });
    await this.octokit.rest.pulls.update({ ...this.repo, pull_number: pullNumber, state: 'closed' });
    await this.octokit.rest.git.deleteRef({ ...this.repo, ref: `heads/${closing.branch}` }).catch((error: unknown) => {
      if ((error as { status?: number }).status !== 422) throw error;
    });
    this.writes.push(`${closing.kind} PR #${pullNumber} closed`);
  }

  private async branchHead(branch: string): Promise<string | undefined> {
    try {
      return (await this.octokit.rest.git.getRef({ ...this.repo, ref: `heads/${branch}` })).data.object.sha;
    } catch (error) {
      if ((error as { status?: number }).status === 404) return undefined;
      throw error;
    }
  }

  private isOurs(pull: { head: { repo: { full_name: string } | null } }): boolean {
    return pull.head.repo?.full_name.toLowerCase() === `${this.repo.owner}/${this.repo.repo}`.toLowerCase();
  }
}

function toProposalPullRequest(p: ListedPull): ProposalPullRequest {
  return {
    number: p.number, state: p.state === 'open' ? 'open' : 'closed', merged: p.merged_at !== null, title: p.title, body: p.body ?? '',
    htmlUrl: p.html_url, headRef: p.head.ref, labels: p.labels.flatMap((l) => (l.name === undefined ? [] : [l.name])),
  };
}

/** GitHub's 422 for a create of something that exists (a ref, an open pull request for the same head). */
function isAlreadyThere(error: unknown): boolean {
  const { status, message } = (error ?? {}) as { status?: unknown; message?: unknown };
  return status === 422 && typeof message === 'string' && /already exists/i.test(message);
}
