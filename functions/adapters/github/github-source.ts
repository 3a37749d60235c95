// Desired state from GitHub: the branch head, one recursive tree call, then blobs only for paths the target's globs
// match and the files its size sources map (wherever they are), a few at once. Blobs are immutable, so they are cached
// by SHA for the life of the process (warm Lambda containers reuse it). Feedback and recovery also read single files
// and a file's history at any commit through it.
import { matchesManifestGlobs } from '../../domain/manifests.ts';
import type { GitHistoryPort, GitSnapshot } from '../../engine/ports.ts';
import type { GitHubClient } from './octokit.ts';
import { mapWithConcurrency } from '../../engine/concurrency.ts';

export interface GitHubRepoRef {
  owner: string;
  repo: string;
}

const blobCache = new Map<string, string>();
const blobConcurrency = 8;

export class GitHubSource implements GitHistoryPort {
  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: GitHubRepoRef,
    private readonly branch: string,
    private readonly globs: readonly string[],
    /** Files read whether or not the globs match them: the values files of size sources. */
    private readonly mappedFiles: readonly string[] = [],
  ) {}

  async readBranchHead(): Promise<GitSnapshot> {
    const ref = await this.octokit.rest.git.getRef({ ...this.repo, ref: `heads/${this.branch}` });
    return this.readCommit(ref.data.object.sha);
  }

  /** The matching manifests at any commit (pull request heads use this too). */
  async readCommit(commitSha: string): Promise<GitSnapshot> {
    const tree = await this.octokit.rest.git.getTree({ ...this.repo, tree_sha: commitSha, recursive: 'true' });
    if (tree.data.truncated) {
      throw new Error(`the tree of ${this.repo.owner}/${this.repo.repo}@${commitSha} is too large for one recursive call (truncated); narrow the repository or the paths`);
    }
    const wanted = tree.data.tree.filter((entry) => entry.type === 'blob' && entry.path !== undefined && entry.sha !== undefined
      && (matchesManifestGlobs(entry.path, this.globs) || this.mappedFiles.includes(entry.path)));
    // A fresh container reads every blob: a few at once, well under GitHub's secondary limit on concurrent requests.
    const texts = await mapWithConcurrency(wanted, blobConcurrency, async (entry) => {
      const sha = entry.sha;
      let text = blobCache.get(sha);
      if (text === undefined) {
        const blob = await this.octokit.rest.git.getBlob({ ...this.repo, file_sha: sha });
        text = Buffer.from(blob.data.content, blob.data.encoding === 'base64' ? 'base64' : 'utf8').toString('utf8');
        blobCache.set(sha, text);
      }
      return text;
    });
    const files = new Map<string, string>(wanted.map((entry, index) => [entry.path, texts[index] ?? '']));
    return { commitSha, files };
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

  async commitsTouching(branch: string, path: string, limit = 20): Promise<Array<{ sha: string; parent: string | undefined }>> {
    const commits = await this.octokit.rest.repos.listCommits({ ...this.repo, sha: branch, path, per_page: limit });
    return commits.data.map((c) => ({ sha: c.sha, parent: c.parents[0]?.sha }));
  }
}
