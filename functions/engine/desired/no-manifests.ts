// Whether a commit gives the target any manifest to read (pure). A pass, or a pull request's plan, that reads nothing
// must not look like one with nothing to do: after such a merge every pass would read nothing and say nothing.
import { matchPaths, noPathMatches, whereYamlFilesAre } from '../../domain/path-matches.ts';
import type { PassTarget } from '../pass-context.ts';
import type { GitSnapshot } from '../ports.ts';
import type { NoManifests } from '../report/pass-report.ts';

/** Present when no glob of the target's paths matches a YAML file at `head`: what happened and where the YAML files are. */
export function noManifestsAt(head: GitSnapshot, target: Pick<PassTarget, 'globs' | 'sizeSources'>): NoManifests | undefined {
  if (!noPathMatches(matchPaths(filesMatched(head), target.globs))) return undefined;
  const sizeSources = (target.sizeSources?.length ?? 0) > 0;
  return {
    paths: [...target.globs], sizeSources,
    message: `paths ${JSON.stringify(target.globs)} match no YAML file at ${head.commitSha.slice(0, 12)}: no manifest was read`
      + `${sizeSources ? ', only the size sources' : ''}; ${whereYamlFilesAre(head.paths, target.globs)}`,
  };
}

/** The files the paths and size sources reach at `head`: those read and those left unread for their size. */
export function filesMatched(head: Pick<GitSnapshot, 'files' | 'tooLarge'>): string[] {
  return [...head.files.keys(), ...head.tooLarge.keys()];
}

/**
 * The paths read nothing that a pass acts on: blocked, every pass, until they are fixed. A target with size sources
 * still reads those (its mapped sizes are applied) and is only told in its report.
 */
export function readsNothing(noManifests: NoManifests | undefined): NoManifests | undefined {
  return noManifests !== undefined && !noManifests.sizeSources ? noManifests : undefined;
}
