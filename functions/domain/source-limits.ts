// How much of a commit a pass reads, decided from the sizes a listing gives before any file is fetched: a file over
// the per-file limit is not fetched (the pass reports it as a located error), and a commit whose wanted files together
// exceed what one pass holds is refused as a whole, so whatever a pull request adds, a pass's memory stays bounded.
// Pure: the GitHub and directory sources apply it to the tree listing and to `stat`.
import { byteCount } from './byte-count.ts';
import { defaultManifestLimits } from './manifests.ts';

export interface SourceLimits {
  /** One file: the manifests' own limit (domain/manifests.ts), so nothing read is then refused for its size. */
  maxFileBytes: number;
  /**
   * The files one commit gives a pass, together. 32 MiB is nine times the largest benchmark world's manifests (5,000
   * StatefulSets, 3.5 MB), and as text at most 64 MB of heap (V8 keeps non-Latin-1 text at two bytes a character).
   */
  maxCommitBytes: number;
  /** Files one commit gives a pass: four times the largest benchmark world; each may cost a blob request. */
  maxCommitFiles: number;
}

export const sourceLimits: SourceLimits = {
  maxFileBytes: defaultManifestLimits.maxFileBytes,
  maxCommitBytes: 32 * 1024 * 1024,
  maxCommitFiles: 20_000,
};

/** A commit a pass does not read at all: more than it can hold, or a listing GitHub cut short. Nothing of it is used. */
export class SourceTooLargeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'SourceTooLargeError';
  }
}

export interface ListedFile {
  path: string;
  /** Its size as the listing gives it (the tree's `size`, a file's `stat`). */
  bytes: number;
}

export interface FilesToRead<T extends ListedFile> {
  /** The files to fetch, each within the per-file limit, all together within the commit's. */
  read: T[];
  /** The files left unread for their size: path -> bytes. */
  tooLarge: Map<string, number>;
}

/**
 * Which of the wanted files a pass fetches at `commit` (a SHA, or a directory). Throws SourceTooLargeError when those
 * within the per-file limit are still too many or too large together: reading part of a commit would plan part of it.
 */
export function filesToRead<T extends ListedFile>(wanted: readonly T[], commit: string, limits: SourceLimits = sourceLimits): FilesToRead<T> {
  const read = wanted.filter((file) => file.bytes <= limits.maxFileBytes);
  const tooLarge = new Map(wanted.filter((file) => file.bytes > limits.maxFileBytes).map((file) => [file.path, file.bytes]));
  const bytes = read.reduce((sum, file) => sum + file.bytes, 0);
  const at = `at ${commit.length === 40 ? commit.slice(0, 12) : commit}`;
  if (read.length > limits.maxCommitFiles) {
    throw new SourceTooLargeError(`the target's paths match ${read.length} files ${at}, over the limit of ${limits.maxCommitFiles} a pass reads; nothing was read: narrow the paths`);
  }
  if (bytes > limits.maxCommitBytes) {
    throw new SourceTooLargeError(`the files the target's paths match ${at} are ${byteCount(bytes)} together, over the limit of ${byteCount(limits.maxCommitBytes)} a pass reads; nothing was read: narrow the paths`);
  }
  return { read, tooLarge };
}
