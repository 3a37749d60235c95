// Desired state from GitHub: the branch head, one recursive tree call, then blobs only for paths the target's globs
// match and the files its size sources map (wherever they are), a few at once. Blobs are immutable, so they are cached
// by SHA for the life of the process (warm Lambda containers reuse it). Many blobs not cached yet (a fresh container
// over a large repository) come from one tarball call instead, each file checked against the tree's SHA. Feedback and
// recovery also read single files and a file's history at any commit through it.
import { createHash } from 'node:crypto';
import { matchesManifestGlobs } from '../../domain/manifests.ts';
import { closestName } from '../../domain/similar-names.ts';
import type { GitHistoryPort, GitSnapshot } from '../../engine/ports.ts';
import { convertHostErrors } from './host-errors.ts';
import type { GitHubClient } from './octokit.ts';
import { mapWithConcurrency } from '../../engine/concurrency.ts';
import { readTarball } from './tar-archive.ts';

export interface GitHubRepoRef {
  owner: string;
  repo: string;
}

const blobCache = new Map<string, string>();
const blobConcurrency = 8;
/**
 * From this many blobs to fetch, one tarball call replaces them: 50 blob GETs take about 7 round trips 8 at a time,
 * while 1,000 take 125 and, within a minute, pass GitHub's secondary limit of 900 points per minute on one REST
 * endpoint (a GET is a point). Below it the blob reads stay: they fetch only the matching files.
 */
export const archiveFromBlobs = 50;
/**
 * A repository larger than this (the tree's blob sizes summed) is not fetched whole: its blobs are read one by one.
 * The unpacked archive is held in memory once (files are views of it), well inside the worker's 512 MB.
 */
export const maxArchiveBytes = 64 * 1024 * 1024;

export class GitHubSource implements GitHistoryPort {
  constructor(
    private readonly octokit: GitHubClient,
    private readonly repo: GitHubRepoRef,
    private readonly branch: string,
    private readonly globs: readonly string[],
    /** Files read whether or not the globs match them: the values files of size sources. */
    private readonly mappedFiles: readonly string[] = [],
    /** Told when the tarball could not serve a read (it falls back to blob reads: slower, still right). */
    private readonly warn: (message: string) => void = () => undefined,
  ) {
    convertHostErrors(octokit);
  }

  async readBranchHead(): Promise<GitSnapshot> {
    const ref = await this.octokit.rest.git.getRef({ ...this.repo, ref: `heads/${this.branch}` }).catch(async (error: unknown) => {
      throw (error as { status?: number }).status === 404 ? await this.missingBranch(error) : error;
    });
    return this.readCommit(ref.data.object.sha);
  }

  /**
   * GitHub's bare "Not Found" for a branch the repository does not have, said as such with the branch it probably
   * meant; when the branches cannot be listed either (the repository is not visible), the 404 stays as it was.
   */
  private async missingBranch(notFound: unknown): Promise<unknown> {
    let branches: string[];
    try {
      const refs = await this.octokit.rest.git.listMatchingRefs({ ...this.repo, ref: 'heads/', per_page: 100 });
      branches = refs.data.map((r) => r.ref.replace(/^refs\/heads\//, ''));
    } catch {
      return notFound;
    }
    const closest = closestName(this.branch, branches);
    return new Error(`branch ${this.branch} is not in ${this.repo.owner}/${this.repo.repo} (source.github.branch)${closest !== undefined ? `; did you mean ${closest}?` : ''}`);
  }

  /** The matching manifests at any commit (pull request heads use this too). */
  async readCommit(commitSha: string): Promise<GitSnapshot> {
    const tree = await this.octokit.rest.git.getTree({ ...this.repo, tree_sha: commitSha, recursive: 'true' });
    if (tree.data.truncated) {
      throw new Error(`the tree of ${this.repo.owner}/${this.repo.repo}@${commitSha} is too large for one recursive call (truncated); narrow the repository or the paths`);
    }
    const wanted = tree.data.tree.filter((entry) => entry.type === 'blob' && entry.path !== undefined && entry.sha !== undefined
      && (matchesManifestGlobs(entry.path, this.globs) || this.mappedFiles.includes(entry.path)));
    const uncached = wanted.filter((entry) => !blobCache.has(entry.sha));
    if (uncached.length >= archiveFromBlobs) {
      const repositoryBytes = tree.data.tree.reduce((sum, entry) => sum + (entry.type === 'blob' ? entry.size ?? 0 : 0), 0);
      // The tar adds a header (and up to a block of padding, a pax header for a long path) per entry.
      if (repositoryBytes <= maxArchiveBytes) await this.cacheFromArchive(commitSha, uncached, repositoryBytes + 2048 * tree.data.tree.length + 64 * 1024);
    }
    // Blobs not cached yet (all of them below the archive threshold): a few at once, well under GitHub's secondary
    // limit on concurrent requests.
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
    const paths = tree.data.tree.flatMap((entry) => (entry.type === 'blob' && entry.path !== undefined ? [entry.path] : []));
    return { commitSha, files, paths };
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

  /**
   * Caches the wanted files the commit's tarball holds with the very bytes of the tree's blob (the SHA is checked:
   * `export-ignore` and `export-subst` attributes can leave a file out or change it). Whatever is not cached here is
   * read as a blob, so a failed or odd archive only costs the blob reads it was meant to save.
   */
  private async cacheFromArchive(commitSha: string, entries: ReadonlyArray<{ path: string; sha: string }>, maxTarBytes: number): Promise<void> {
    let archive: Buffer;
    try {
      const answer = await this.octokit.rest.repos.downloadTarballArchive({ ...this.repo, ref: commitSha });
      const data: unknown = answer.data;
      if (!(data instanceof ArrayBuffer) && !(data instanceof Uint8Array)) throw new Error(`GitHub answered the tarball with ${typeof data}, not bytes`);
      archive = Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
    } catch (error) {
      this.warn(`the tarball of ${commitSha.slice(0, 12)} could not be read (${error instanceof Error ? error.message : String(error)}); reading ${entries.length} files one by one`);
      return;
    }
    const shaByPath = new Map(entries.map((entry) => [entry.path, entry.sha]));
    let files;
    try {
      files = readTarball(archive, maxTarBytes);
    } catch (error) {
      this.warn(`the tarball of ${commitSha.slice(0, 12)} is not usable (${error instanceof Error ? error.message : String(error)}); reading ${entries.length} files one by one`);
      return;
    }
    for (const file of files) {
      const sha = shaByPath.get(file.path);
      if (sha !== undefined && gitBlobSha(file.content) === sha) blobCache.set(sha, file.content.toString('utf8'));
    }
  }
}

/** The name git gives a blob with these bytes. */
function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}
