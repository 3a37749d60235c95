// Desired state from GitHub: the branch head, one recursive tree call, then blobs only for paths the target's globs
// match and the files its size sources map (wherever they are), a few at once. What is read is decided from the
// tree's sizes before any download (domain/source-limits.ts): a file over the limit is never requested, and a commit
// too large for a pass is refused whole. Blobs are immutable, so they are cached by SHA in a least-recently-used cache
// bounded in bytes (warm Lambda containers reuse it). Many blobs not cached yet (a fresh container over a large
// repository) come from one tarball call instead, streamed: only the wanted files are held, each checked against the
// tree's SHA. Feedback and recovery also read single files and a file's history at any commit through it.
import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import type { ReadableStream } from 'node:stream/web';
import { matchesManifestGlobs } from '../../domain/manifests.ts';
import { closestName } from '../../domain/similar-names.ts';
import { filesToRead, SourceTooLargeError } from '../../domain/source-limits.ts';
import type { GitHistoryPort, GitSnapshot } from '../../engine/ports.ts';
import { convertHostErrors } from './host-errors.ts';
import type { GitHubClient } from './octokit.ts';
import { mapWithConcurrency } from '../../engine/concurrency.ts';
import { BlobCache } from './blob-cache.ts';
import { readTarball } from './tar-archive.ts';

export interface GitHubRepoRef {
  owner: string;
  repo: string;
}

/**
 * The blob cache's bound: the blobs' sizes in Git, so at most twice that in heap. 32 MiB holds the files of the
 * largest benchmark world (5,000 StatefulSets, 3.5 MB) nine times over, and is what one pass may read at one commit
 * (domain/source-limits.ts): a pass's own files fit, and a pull request's are pushed out by those read after them.
 */
const blobCacheBytes = 32 * 1024 * 1024;
const blobCache = new BlobCache(blobCacheBytes);
const blobConcurrency = 8;
/**
 * From this many blobs to fetch, one tarball call replaces them: 50 blob GETs take about 7 round trips 8 at a time,
 * while 1,000 take 125 and, within a minute, pass GitHub's secondary limit of 900 points per minute on one REST
 * endpoint (a GET is a point). Below it the blob reads stay: they fetch only the matching files.
 */
export const archiveFromBlobs = 50;
/**
 * A repository larger than this (the tree's blob sizes summed) is not fetched whole: its blobs are read one by one.
 * The archive streams through (only the wanted files are held), so this bounds the bytes downloaded and inflated for
 * files nobody reads, and keeps a file too large to read (a 95 MiB one, say) from being downloaded at all.
 */
export const maxArchiveBytes = 64 * 1024 * 1024;

interface WantedBlob {
  path: string;
  sha: string;
  bytes: number;
}

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
    const where = `${this.repo.owner}/${this.repo.repo}@${commitSha.slice(0, 12)}`;
    if (tree.data.truncated) {
      throw new SourceTooLargeError(`the tree of ${where} has more files than GitHub lists in one recursive call (it was truncated); nothing was read: split the repository`);
    }
    const wanted = tree.data.tree.flatMap((entry): WantedBlob[] => {
      if (entry.type !== 'blob' || entry.path === undefined || entry.sha === undefined) return [];
      if (!matchesManifestGlobs(entry.path, this.globs) && !this.mappedFiles.includes(entry.path)) return [];
      if (entry.size === undefined) throw new Error(`GitHub listed ${entry.path} in the tree of ${where} without its size`);
      return [{ path: entry.path, sha: entry.sha, bytes: entry.size }];
    });
    // Sizes first: nothing over the limit is requested, and a commit too large for a pass is not read at all.
    const { read, tooLarge } = filesToRead(wanted, commitSha);
    const repositoryBytes = tree.data.tree.reduce((sum, entry) => sum + (entry.type === 'blob' ? entry.size ?? 0 : 0), 0);
    // The tar adds a header (and up to a block of padding, a pax header for a long path) per entry.
    const texts = await this.readBlobs(commitSha, read, repositoryBytes <= maxArchiveBytes ? repositoryBytes + 2048 * tree.data.tree.length + 64 * 1024 : undefined);
    const files = new Map<string, string>(read.map((entry) => [entry.path, texts.get(entry.sha) ?? '']));
    const paths = tree.data.tree.flatMap((entry) => (entry.type === 'blob' && entry.path !== undefined ? [entry.path] : []));
    return { commitSha, files, paths, tooLarge };
  }

  /**
   * The texts of `entries` by SHA: cached ones first, then, when many are missing and the repository may be fetched
   * whole (`maxTarBytes`), its tarball, then blob GETs for the rest, a few at once (well under GitHub's secondary
   * limit on concurrent requests). Kept here for this commit, so the cache's bound never makes a pass read twice.
   */
  private async readBlobs(commitSha: string, entries: readonly WantedBlob[], maxTarBytes: number | undefined): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    for (const entry of entries) {
      const text = blobCache.get(entry.sha);
      if (text !== undefined) texts.set(entry.sha, text);
    }
    const missing = [...new Map(entries.filter((entry) => !texts.has(entry.sha)).map((entry) => [entry.sha, entry])).values()];
    if (missing.length >= archiveFromBlobs && maxTarBytes !== undefined) {
      for (const [sha, text] of await this.readFromArchive(commitSha, missing, maxTarBytes)) texts.set(sha, text);
    }
    await mapWithConcurrency(missing.filter((entry) => !texts.has(entry.sha)), blobConcurrency, async (entry) => {
      const blob = await this.octokit.rest.git.getBlob({ ...this.repo, file_sha: entry.sha });
      const content = Buffer.from(blob.data.content, blob.data.encoding === 'base64' ? 'base64' : 'utf8');
      const text = content.toString('utf8');
      blobCache.set(entry.sha, text, content.length);
      texts.set(entry.sha, text);
    });
    return texts;
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
   * The wanted files the commit's tarball holds with the very bytes of the tree's blob (the SHA is checked:
   * `export-ignore` and `export-subst` attributes can leave a file out or change it), by SHA. The archive is read as
   * it streams in, holding only entries of a wanted path and of the tree's size for it: any other entry, however
   * large, passes through. Whatever is not read here is read as a blob, so a failed or odd archive only costs the blob
   * reads it was meant to save.
   */
  private async readFromArchive(commitSha: string, entries: readonly WantedBlob[], maxTarBytes: number): Promise<Map<string, string>> {
    const texts = new Map<string, string>();
    const wanted = new Map(entries.map((entry) => [entry.path, entry]));
    let body: ReadableStream<Uint8Array> | undefined;
    try {
      const answer = await this.octokit.rest.repos.downloadTarballArchive({ ...this.repo, ref: commitSha, request: { parseSuccessResponseBody: false } });
      const data: unknown = answer.data;
      if (!(data instanceof globalThis.ReadableStream)) throw new Error(`GitHub answered the tarball with ${typeof data}, not a byte stream`);
      body = data as ReadableStream<Uint8Array>;
      const files = await readTarball(Readable.fromWeb(body), (path, bytes) => wanted.get(path)?.bytes === bytes, maxTarBytes);
      for (const file of files) {
        const entry = wanted.get(file.path);
        if (entry === undefined || gitBlobSha(file.content) !== entry.sha) continue;
        const text = file.content.toString('utf8');
        blobCache.set(entry.sha, text, file.content.length);
        texts.set(entry.sha, text);
      }
    } catch (error) {
      await body?.cancel().catch(() => undefined);
      this.warn(`the tarball of ${commitSha.slice(0, 12)} could not be read (${error instanceof Error ? error.message : String(error)}); reading ${entries.length} files one by one`);
    }
    return texts;
  }
}

/** The name git gives a blob with these bytes. */
function gitBlobSha(content: Buffer): string {
  return createHash('sha1').update(`blob ${content.length}\0`).update(content).digest('hex');
}
