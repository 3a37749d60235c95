// Desired state from a local directory (the CLI's `local` source). When the directory is a git work tree the commit
// is its HEAD; otherwise a content hash stands in, so reports still say which state they reconciled.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { matchesManifestGlobs } from '../../domain/manifests.ts';
import { filesToRead } from '../../domain/source-limits.ts';
import type { GitSnapshot, GitSourcePort } from '../../engine/ports.ts';

const run = promisify(execFile);

export class DirectorySource implements GitSourcePort {
  constructor(
    private readonly directory: string,
    private readonly globs: readonly string[],
    /** Files read whether or not the globs match them: the values files of size sources. */
    private readonly mappedFiles: readonly string[] = [],
  ) {}

  async readBranchHead(): Promise<GitSnapshot> {
    const paths = (await listFiles(this.directory)).map((path) => relative(this.directory, path).split(sep).join('/'));
    const wanted = paths.filter((path) => matchesManifestGlobs(path, this.globs) || this.mappedFiles.includes(path));
    // Sizes first, as from GitHub's tree: a file over the limit is not read, a directory too large for a pass not at all.
    const listed = await Promise.all(wanted.map(async (path) => ({ path, bytes: (await stat(join(this.directory, path))).size })));
    const { read, tooLarge } = filesToRead(listed, this.directory);
    const files = new Map<string, string>();
    for (const { path } of read) files.set(path, await readFile(join(this.directory, path), 'utf8'));
    return { commitSha: await headCommit(this.directory) ?? contentHash(files), files, paths, tooLarge };
  }
}

async function listFiles(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && !join(e.parentPath, e.name).split(sep).includes('.git'))
    .map((e) => join(e.parentPath, e.name))
    .sort();
}

async function headCommit(directory: string): Promise<string | undefined> {
  try {
    const { stdout } = await run('git', ['-C', directory, 'rev-parse', 'HEAD']);
    return stdout.trim() || undefined;
  } catch {
    return undefined;
  }
}

function contentHash(files: ReadonlyMap<string, string>): string {
  const hash = createHash('sha1');
  for (const [path, text] of [...files].sort(([a], [b]) => a.localeCompare(b))) hash.update(`${path}\0${text}\0`);
  return hash.digest('hex');
}
