// Which files a target's `paths` reach at a commit, and, when none, where the YAML files are: a glob that matches
// nothing makes every pass read nothing, so `check` and the pass report say where to point it instead. Pure.
import { matchesManifestGlobs } from './manifests.ts';
import { closestName } from './similar-names.ts';
import { count } from './spelling.ts';

export interface GlobMatch {
  glob: string;
  /** YAML files it matches. */
  files: number;
}

export function matchPaths(files: Iterable<string>, globs: readonly string[]): GlobMatch[] {
  const paths = [...files];
  return globs.map((glob) => ({ glob, files: paths.filter((path) => matchesManifestGlobs(path, [glob])).length }));
}

/** True when no glob of `paths` matches a YAML file: no manifest is read at all. */
export function noPathMatches(matches: readonly GlobMatch[]): boolean {
  return matches.every((m) => m.files === 0);
}

const listed = 4;

/**
 * Where the YAML files are, for globs that match none: the YAML files under the glob's directory when it exists, else
 * the top directories that hold YAML files; then a glob that does match some, `did you mean k8s/**\/*.yaml?` (the
 * glob's own directory read recursively, a near miss of its directory, or the directory holding the most YAML files).
 */
export function whereYamlFilesAre(files: Iterable<string>, globs: readonly string[]): string {
  const yaml = [...files].filter((path) => /\.ya?ml$/i.test(path)).sort();
  if (yaml.length === 0) return 'the source has no YAML file at all';
  const directories = new Set(yaml.flatMap((path) => path.split('/').slice(0, -1).map((_, i, parts) => parts.slice(0, i + 1).join('/'))));
  const meant = globMeant(yaml, directories, globs);
  const suggestion = meant === undefined ? '' : `; did you mean ${meant}?`;
  for (const glob of globs.map((g) => g.replace(/^\.\//, ''))) {
    const prefix = staticDirectory(glob);
    if (prefix === '' || !directories.has(prefix)) continue;
    const under = yaml.filter((path) => path.startsWith(`${prefix}/`));
    return `${prefix}/ holds ${under.slice(0, listed).join(', ')}${under.length > listed ? ` and ${count(under.length - listed, 'more YAML file')}` : ''}${suggestion}`;
  }
  for (const glob of globs.map((g) => g.replace(/^\.\//, ''))) {
    const prefix = staticDirectory(glob);
    const near = prefix === '' ? undefined : closestName(prefix, directories);
    if (near !== undefined) return `${prefix}/ has no YAML file; did you mean ${near}${glob.slice(prefix.length)}?`;
  }
  const top = [...new Set(yaml.map((path) => (path.includes('/') ? `${path.split('/')[0] ?? ''}/` : path)))];
  return `the YAML files are in ${top.slice(0, listed).join(', ')}${top.length > listed ? ` and ${count(top.length - listed, 'more place')}` : ''}${suggestion}`;
}

/** A glob near the given ones that matches YAML files, in the order a person most likely meant; undefined when none does. */
function globMeant(yaml: readonly string[], directories: ReadonlySet<string>, globs: readonly string[]): string | undefined {
  const candidates: string[] = [];
  for (const glob of globs.map((g) => g.replace(/^\.\//, ''))) {
    const last = glob.split('/').at(-1) ?? '';
    const files = /ya?ml/i.test(last) && !last.includes('**') ? last : '*.yaml';
    const prefix = staticDirectory(glob);
    if (prefix !== '' && directories.has(prefix)) candidates.push(`${prefix}/**/${files}`);
    const tops = [...new Set(yaml.flatMap((path) => (path.includes('/') ? [path.split('/')[0] ?? ''] : [])))];
    const most = tops.sort((a, b) => yaml.filter((p) => p.startsWith(`${b}/`)).length - yaml.filter((p) => p.startsWith(`${a}/`)).length);
    candidates.push(...most.map((top) => `${top}/**/${files}`));
  }
  return candidates.find((candidate) => !globs.includes(candidate) && yaml.some((path) => matchesManifestGlobs(path, [candidate])));
}

/** The directories of a glob before its first wildcard: `k8s/db` of `k8s/db/**\/*.yaml`, `` of `*.yaml`. */
function staticDirectory(glob: string): string {
  const parts = glob.split('/');
  const literal: string[] = [];
  for (const part of parts.slice(0, -1)) {
    if (/[*?[\]{}]/.test(part)) break;
    literal.push(part);
  }
  return literal.join('/');
}
