// A bare git repository on disk driven through the git CLI: commits, trees and SHAs are real git objects.
import { execFile } from 'node:child_process';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { GitObjectReader } from './object-reader.ts';
import { GitCommandError, KeptAnswers } from './kept-answers.ts';
import { RefSnapshot } from './ref-snapshot.ts';

export interface TreeEntry {
  path: string;
  mode: string;
  type: 'blob' | 'tree';
  sha: string;
  size?: number;
}

export interface CommitInfo {
  sha: string;
  tree: string;
  parents: string[];
  authorName: string;
  authorEmail: string;
  date: string;
  message: string;
}

export interface ChangedFile {
  filename: string;
  status: 'added' | 'modified' | 'removed' | 'renamed';
  previousFilename?: string;
}

/** Full object names go through the batch reader; abbreviated ones to git itself (see GitObjectReader.read). */
function isFullSha(sha: string): boolean {
  return /^[0-9a-f]{40}$/.test(sha);
}

export class GitRepo {
  private queue: Promise<unknown> = Promise.resolve();
  private readonly answers = new KeptAnswers(isFullSha);
  private readonly refSnapshot = new RefSnapshot(() => this.git(['for-each-ref', '--format=%(refname) %(objectname) %(objecttype)']));
  /** Reads objects by full SHA without a process per read (blob GETs come in the thousands). */
  private readonly objects: GitObjectReader;

  constructor(readonly dir: string) {
    this.objects = new GitObjectReader(dir);
  }

  /** Ends the long-lived object reader. */
  close(): void {
    this.objects.close();
  }

  static async init(dir: string, defaultBranch: string): Promise<GitRepo> {
    await mkdir(dir, { recursive: true });
    const repo = new GitRepo(dir);
    await repo.git(['init', '--bare', '--quiet', `--initial-branch=${defaultBranch}`]);
    return repo;
  }

  /** Runs git serially: the object database is shared and ref updates must not interleave. */
  git(args: string[], input?: string | Buffer, env: Record<string, string> = {}): Promise<string> {
    const run = (): Promise<string> => new Promise((resolve, reject) => {
      const child = execFile('git', ['--git-dir', this.dir, ...args], {
        encoding: 'buffer', maxBuffer: 64 * 1024 * 1024,
        env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', ...env },
      }, (error, stdout, stderr) => {
        if (error) reject(new GitCommandError(`git ${args.join(' ')}: ${stderr.toString('utf8').trim() || error.message}`, typeof error.code === 'number' ? error.code : undefined));
        else resolve(stdout.toString('utf8'));
      });
      if (input !== undefined) child.stdin?.end(input);
    });
    const result = this.queue.then(run, run);
    this.queue = result.catch(() => undefined);
    return result;
  }

  async writeBlob(content: Buffer): Promise<string> {
    return (await this.git(['hash-object', '-w', '--stdin'], content)).trim();
  }

  async readBlob(sha: string): Promise<Buffer | undefined> {
    if (isFullSha(sha)) {
      const object = await this.objects.read(sha);
      return object?.type === 'blob' ? object.content : undefined;
    }
    if (!(await this.objectType(sha) === 'blob')) return undefined;
    return new Promise((resolve, reject) => {
      execFile('git', ['--git-dir', this.dir, 'cat-file', 'blob', sha], { encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 }, (error, stdout) => {
        if (error) reject(new Error(`git cat-file blob ${sha}: ${error.message}`));
        else resolve(stdout);
      });
    });
  }

  /** The commit's tree as a gzipped tar with every path under `prefix`, as `git archive` writes it (GitHub's tarball). */
  archive(commit: string, prefix: string): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      execFile('git', ['--git-dir', this.dir, 'archive', '--format=tar.gz', `--prefix=${prefix}`, commit], { encoding: 'buffer', maxBuffer: 512 * 1024 * 1024 }, (error, stdout, stderr) => {
        if (error) reject(new Error(`git archive ${commit}: ${stderr.toString('utf8').trim() || error.message}`));
        else resolve(stdout);
      });
    });
  }

  async objectType(sha: string): Promise<string | undefined> {
    if (!/^[0-9a-f]{4,40}$/.test(sha)) return undefined;
    if (isFullSha(sha)) return (await this.objects.read(sha))?.type;
    try {
      return (await this.git(['cat-file', '-t', sha])).trim();
    } catch {
      return undefined;
    }
  }

  /** Forgets the refs read: one may have moved outside this object (a push through `git http-backend`). */
  refsMayHaveMoved(): void {
    this.refSnapshot.forget();
  }

  /** The commit a ref or SHA names (a full SHA's answer is kept: only refs move). */
  async resolve(ref: string): Promise<string | undefined> {
    const fromRefs = await this.refSnapshot.commitOf(ref);
    if (fromRefs !== undefined) return fromRefs;
    return this.peeled(ref, 'commit');
  }

  async treeOf(commitOrTree: string): Promise<string | undefined> {
    return this.peeled(commitOrTree, 'tree');
  }

  /** The `kind` object `name` peels to (`name^{kind}`), undefined when none; a SHA found is kept (only refs move). */
  private peeled(name: string, kind: 'commit' | 'tree'): Promise<string | undefined> {
    return this.answers.once([name], kind, async () => {
      try {
        return (await this.git(['rev-parse', '--verify', '--quiet', `${name}^{${kind}}`])).trim() || undefined;
      } catch {
        return undefined;
      }
    }, (sha) => sha !== undefined);
  }

  async listTree(treeish: string, recursive: boolean): Promise<TreeEntry[]> {
    const entries = await this.answers.once([treeish], `ls-tree ${recursive}`, () => this.readTree(treeish, recursive));
    return entries.map((entry) => ({ ...entry }));
  }

  private async readTree(treeish: string, recursive: boolean): Promise<TreeEntry[]> {
    // -z: paths as Git holds them (without it, git quotes a path with a control character, as GitHub's API never does).
    const output = await this.git(['ls-tree', '-z', '-l', ...(recursive ? ['-r', '-t'] : []), treeish]);
    return output.split('\0').filter((l) => l !== '').map((line) => {
      const tab = line.indexOf('\t');
      const [meta, path] = [line.slice(0, tab), line.slice(tab + 1)];
      const [mode = '', type = '', sha = '', size = ''] = meta.split(/\s+/);
      return { path, mode, type: type === 'tree' ? 'tree' : 'blob', sha, ...(size !== '-' ? { size: Number(size) } : {}) };
    });
  }

  /** Builds a tree from `base` (or empty) with files set (sha) or removed (null), nested paths included. */
  async buildTree(base: string | undefined, changes: Map<string, { mode: string; sha: string } | null>): Promise<string> {
    const files = new Map<string, { mode: string; sha: string }>();
    if (base) for (const e of await this.listTree(base, true)) if (e.type === 'blob') files.set(e.path, { mode: e.mode, sha: e.sha });
    for (const [path, entry] of changes) {
      if (entry === null) files.delete(path);
      else files.set(path, entry);
    }
    return this.writeNestedTree(files);
  }

  private async writeNestedTree(files: Map<string, { mode: string; sha: string }>): Promise<string> {
    const direct: string[] = [];
    const subdirs = new Map<string, Map<string, { mode: string; sha: string }>>();
    for (const [path, entry] of files) {
      const slash = path.indexOf('/');
      if (slash < 0) {
        direct.push(`${entry.mode} blob ${entry.sha}\t${path}`);
      } else {
        const dir = path.slice(0, slash);
        const inner = subdirs.get(dir) ?? new Map<string, { mode: string; sha: string }>();
        inner.set(path.slice(slash + 1), entry);
        subdirs.set(dir, inner);
      }
    }
    for (const [dir, inner] of subdirs) direct.push(`040000 tree ${await this.writeNestedTree(inner)}\t${dir}`);
    return (await this.git(['mktree', '-z'], `${direct.join('\0')}\0`)).trim();
  }

  async commitTree(tree: string, parents: string[], message: string, author: { name: string; email: string; date?: string }): Promise<string> {
    const env = {
      GIT_AUTHOR_NAME: author.name, GIT_AUTHOR_EMAIL: author.email, GIT_COMMITTER_NAME: author.name, GIT_COMMITTER_EMAIL: author.email,
      ...(author.date ? { GIT_AUTHOR_DATE: author.date, GIT_COMMITTER_DATE: author.date } : {}),
    };
    return (await this.git(['commit-tree', tree, ...parents.flatMap((p) => ['-p', p]), '-F', '-'], message, env)).trim();
  }

  async commitInfo(sha: string): Promise<CommitInfo | undefined> {
    const info = await this.answers.once([sha], 'show', () => this.readCommit(sha), (answer) => answer !== undefined);
    return info && { ...info, parents: [...info.parents] };
  }

  private async readCommit(sha: string): Promise<CommitInfo | undefined> {
    if (await this.objectType(sha) !== 'commit') return undefined;
    const output = await this.git(['show', '-s', '--format=%H%x00%T%x00%P%x00%an%x00%ae%x00%aI%x00%B', sha]);
    const [full = '', tree = '', parents = '', authorName = '', authorEmail = '', date = '', ...message] = output.split('\0');
    return { sha: full, tree, parents: parents.split(' ').filter((p) => p !== ''), authorName, authorEmail, date, message: message.join('\0').replace(/\n+$/, '') };
  }

  async updateRef(name: string, sha: string, oldSha?: string): Promise<void> {
    this.refsMayHaveMoved();
    await this.git(['update-ref', name, sha, ...(oldSha ? [oldSha] : [])]).finally(() => this.refsMayHaveMoved());
  }

  async deleteRef(name: string): Promise<void> {
    this.refsMayHaveMoved();
    await this.git(['update-ref', '-d', name]).finally(() => this.refsMayHaveMoved());
  }

  /** The refs `for-each-ref PATTERN` lists: the ref itself, or those under it up to a slash, sorted by name. */
  async refs(prefix = 'refs/'): Promise<Array<{ ref: string; sha: string }>> {
    if (/[*?[\\]/.test(prefix)) return this.refsFromGit(prefix);
    return this.refSnapshot.matching(prefix);
  }

  /** Globs are matched by git itself (fnmatch). */
  private async refsFromGit(pattern: string): Promise<Array<{ ref: string; sha: string }>> {
    const output = await this.git(['for-each-ref', '--format=%(refname) %(objectname)', pattern]);
    return output.split('\n').filter((l) => l !== '').map((l) => {
      const [ref = '', sha = ''] = l.split(' ');
      return { ref, sha };
    });
  }

  async isAncestor(ancestor: string, descendant: string): Promise<boolean> {
    // Only git's "no" (exit code 1) is kept; an error (an object not there yet) is asked again next time.
    const answer = await this.answers.once([ancestor, descendant], 'is-ancestor', async () => {
      try {
        await this.git(['merge-base', '--is-ancestor', ancestor, descendant]);
        return 'yes';
      } catch (error) {
        return error instanceof GitCommandError && error.exitCode === 1 ? 'no' : 'error';
      }
    }, (said) => said !== 'error');
    return answer === 'yes';
  }

  async mergeBase(a: string, b: string): Promise<string | undefined> {
    return this.answers.once([a, b], 'merge-base', async () => {
      try {
        return (await this.git(['merge-base', a, b])).trim() || undefined;
      } catch {
        return undefined;
      }
    }, (sha) => sha !== undefined);
  }

  /** The tree of merging `head` into `base`, or undefined on conflicts. */
  async mergeTrees(base: string, head: string): Promise<string | undefined> {
    try {
      return (await this.git(['merge-tree', '--write-tree', base, head])).split('\n')[0]?.trim();
    } catch {
      return undefined;
    }
  }

  /** Commits reachable from `start` (newest first), optionally only those touching `path`. */
  async log(start: string, path?: string, stop?: string): Promise<string[]> {
    const range = stop ? `${stop}..${start}` : start;
    const shas = await this.answers.once([start, stop], `rev-list ${path ?? ''}`, async () => {
      const output = await this.git(['rev-list', range, ...(path ? ['--', path] : [])]);
      return output.split('\n').filter((l) => l !== '');
    });
    return [...shas];
  }

  async changedFiles(from: string | undefined, to: string): Promise<ChangedFile[]> {
    const files = await this.answers.once([from, to], 'diff-tree', () => this.diffTrees(from, to));
    return files.map((file) => ({ ...file }));
  }

  private async diffTrees(from: string | undefined, to: string): Promise<ChangedFile[]> {
    const args = from ? ['diff-tree', '-r', '-M', '--name-status', from, to] : ['diff-tree', '-r', '--root', '--no-commit-id', '--name-status', to];
    const output = await this.git(args);
    return output.split('\n').filter((l) => /^[AMDR]/.test(l)).map((line) => {
      const [status = '', first = '', second] = line.split('\t');
      if (status.startsWith('R')) return { filename: second ?? first, status: 'renamed' as const, previousFilename: first };
      return { filename: first, status: status === 'A' ? 'added' as const : status === 'D' ? 'removed' as const : 'modified' as const };
    });
  }

  /** Seeds the repository with the files of a directory as the first commit of `branch`. */
  async seedFromDirectory(directory: string, branch: string): Promise<string> {
    const entries = await readdir(directory, { withFileTypes: true, recursive: true });
    const changes = new Map<string, { mode: string; sha: string }>();
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const full = join(entry.parentPath, entry.name);
      const path = relative(directory, full).split(sep).join('/');
      changes.set(path, { mode: '100644', sha: await this.writeBlob(await readFile(full)) });
    }
    const tree = await this.buildTree(undefined, changes);
    const sha = await this.commitTree(tree, [], 'Initial commit', { name: 'Platform Team', email: 'platform@example.com' });
    await this.updateRef(`refs/heads/${branch}`, sha);
    return sha;
  }
}
