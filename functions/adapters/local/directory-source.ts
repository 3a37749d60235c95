// Desired state from a local directory (the CLI's `local` source). When the directory is a git work tree the commit
// is its HEAD; otherwise a content hash stands in, so reports still say which state they reconciled.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';
import { promisify } from 'node:util';
import { matchesManifestGlobs } from '../../domain/manifests.ts';
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
    const files = new Map<string, string>();
    const paths = (await listFiles(this.directory)).map((path) => relative(this.directory, path).split(sep).join('/'));
    for (const relativePath of paths) {
      if (matchesManifestGlobs(relativePath, this.globs) || this.mappedFiles.includes(relativePath)) files.set(relativePath, await readFile(join(this.directory, relativePath), 'utf8'));
    }
    return { commitSha: await headCommit(this.directory) ?? contentHash(files), files, paths };
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
