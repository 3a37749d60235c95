// The target's Git source, read as a pass reads it: the branch head, the files its paths match, the manifests and the
// size sources parsed (every located error). Read-only.
import type { TargetConfig } from '../domain/config.ts';
import { matchPaths, noPathMatches, whereYamlFilesAre } from '../domain/path-matches.ts';
import { readTargetDesired, type TargetDesired } from '../engine/desired/desired-input.ts';
import { filesMatched, noManifestsAt, readsNothing } from '../engine/desired/no-manifests.ts';
import type { GitSourcePort } from '../engine/ports.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';
import { judgeNamespaces } from './namespaces.ts';
import { count as plural } from '../domain/spelling.ts';

export interface SourceProbe {
  results: CheckResult[];
  /** What the target asks for; undefined when the source could not be read. */
  desired: TargetDesired | undefined;
}

export async function probeSource(config: TargetConfig, git: GitSourcePort, where: string): Promise<SourceProbe> {
  let head;
  try {
    head = await git.readBranchHead();
  } catch (cause) {
    const message = cause instanceof Error ? cause.message : String(cause);
    return { results: [error('source.read', where, `cannot read the source: ${message}`, 'check the repository, the branch and that the credential can read them (for a local source, the directory)')], desired: undefined };
  }
  const results: CheckResult[] = [ok('source.read', where, `read at ${head.commitSha.slice(0, 12)}: ${plural(head.files.size, 'file')}`)];
  const globs = 'github' in config.source ? config.source.github.paths : config.source.local.paths;
  const matches = matchPaths(filesMatched(head), globs);
  const noneMatch = noPathMatches(matches);
  // The passes' own rule (engine/desired/no-manifests.ts): reading nothing blocks every pass (plan and reconcile exit 1); a
  // target with size sources still reads those, goes on and exits 0, so check warns there, as the plan's report does.
  const blocks = readsNothing(noManifestsAt(head, { globs, sizeSources: config.sizeSources })) !== undefined;
  for (const { glob, files } of matches) {
    const hint = (): string => whereYamlFilesAre(head.paths, [glob]);
    if (files > 0) results.push(ok('source.paths', glob, `matches ${plural(files, 'YAML file')}`));
    else if (noneMatch) {
      const what = `matches no YAML file${globs.length > 1 ? ', nor does any other glob of paths' : ''}: no manifest is read`;
      const fix = `fix paths (now ${JSON.stringify(globs)}, globs relative to the repository root) or the branch: ${hint()}`;
      results.push(blocks
        ? error('source.paths', glob, `${what}, so every pass is blocked until it does (plan and reconcile exit 1)`, fix)
        : warning('source.paths', glob, `${what}, only the size sources: passes apply their sizes and go on (plan exits 0)`, `${fix} (a target read only through sizeSources can point paths at its values files)`));
    } else results.push(warning('source.paths', glob, 'matches no YAML file', `fix the glob or remove it from paths (${hint()})`));
  }
  const desired = readTargetDesired(head.files, { globs, defaultNamespace: config.namespaces.default, sizeSources: config.sizeSources }, head.tooLarge);
  for (const problem of desired.errors) {
    results.push(error('source.parse', `${problem.path}:${problem.line}`, problem.message, 'fix the file (or the mapping in sizeSources); a pass reports the same error and acts on nothing else in that place'));
  }
  const templates = desired.statefulSets.reduce((sum, s) => sum + s.templates.length, 0);
  const unreadMappings = config.sizeSources.length - desired.sizeValues.length - (desired.classValues?.length ?? 0);
  if (desired.errors.length === 0) {
    results.push(ok('source.parse', 'manifests and size sources', `${plural(desired.statefulSets.length, 'StatefulSet')} with ${plural(templates, 'volumeClaimTemplate')} from manifests, ${plural(desired.sizeValues.length, 'size')}${desired.classValues?.length ? ` and ${plural(desired.classValues.length, 'class')}` : ''} from values files`));
  } else if (unreadMappings > 0) {
    results.push(warning('source.parse', 'size sources', `${unreadMappings} of ${plural(config.sizeSources.length, 'size source')} could not be read (see the errors above)`));
  }
  results.push(...judgeNamespaces(desired, config.namespaces));
  return { results, desired };
}
