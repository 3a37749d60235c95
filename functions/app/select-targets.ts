// Which of a configuration's targets a command or an invocation runs: all, or the one it names (pure). Its own module
// so the CLI can name an unknown target without loading the pass machinery.
import type { Config } from '../domain/config.ts';
import { closestName } from '../domain/similar-names.ts';

export class UnknownTargetError extends Error {
  constructor(name: string, known: readonly string[]) {
    const closest = closestName(name, known);
    super(`no target named ${name} in the configuration (targets: ${known.join(', ')})${closest === undefined ? '' : `; did you mean ${closest}?`}`);
    this.name = 'UnknownTargetError';
  }
}

export function selectTargets(config: Config, targetName: string | undefined): Config['targets'] {
  if (targetName === undefined) return config.targets;
  const selected = config.targets.filter((t) => t.name === targetName);
  if (selected.length === 0) throw new UnknownTargetError(targetName, config.targets.map((t) => t.name));
  return selected;
}
