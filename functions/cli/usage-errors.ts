// The CLI's answer to a configuration it cannot use: the problems on stderr and exit code 2 (bad usage or
// configuration); anything else is not a usage error and is left to the caller.
import { ConfigError } from '../domain/config.ts';
import { UnknownTargetError } from '../app/run-targets.ts';

export function reportUsageError(error: unknown): 2 | undefined {
  if (error instanceof ConfigError) {
    process.stderr.write(`configuration error:\n${error.problems.map((p) => `  - ${p}`).join('\n')}\n`);
    return 2;
  }
  if (error instanceof UnknownTargetError) {
    process.stderr.write(`${error.message}\n`);
    return 2;
  }
  return undefined;
}
