// The desired state parsed from the same manifests as the last pass is the same desired state: a warm process (a
// warm Lambda container, the CLI's loop) skips re-parsing the YAML of every file when no file changed, which is most
// passes. Files are compared by content, not by commit, since a local work tree's HEAD does not see uncommitted edits.
import type { DesiredState } from '../../domain/desired-state.ts';
import { readDesiredState, type ReadOptions } from '../../domain/manifests.ts';

interface Parsed {
  files: ReadonlyMap<string, string>;
  result: DesiredState;
}

/** One entry per target (globs and default namespace), a handful at most in one process. */
const lastParsed = new Map<string, Parsed>();
const maxTargets = 32;

export function readDesiredStateReused(files: ReadonlyMap<string, string>, options: ReadOptions): DesiredState {
  const key = JSON.stringify([options.globs, options.defaultNamespace, options.limits ?? null]);
  const last = lastParsed.get(key);
  if (last && sameFiles(last.files, files)) return last.result;
  const result = readDesiredState(files, options);
  lastParsed.delete(key);
  lastParsed.set(key, { files: new Map(files), result });
  if (lastParsed.size > maxTargets) lastParsed.delete(lastParsed.keys().next().value ?? key);
  return result;
}

function sameFiles(a: ReadonlyMap<string, string>, b: ReadonlyMap<string, string>): boolean {
  if (a.size !== b.size) return false;
  for (const [path, text] of b) if (a.get(path) !== text) return false;
  return true;
}
