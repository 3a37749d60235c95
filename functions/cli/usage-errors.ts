// What the CLI prints when a command cannot do its job: the message on stderr for a person and, when --json was asked
// for, the same as `{"error": {...}}` on stdout for a script (which then never reads an empty stdout). A configuration
// it cannot use is exit code 2 (bad usage or configuration); anything else is left to the caller.
import { ConfigError } from '../domain/config.ts';
import { UnknownTargetError } from '../app/select-targets.ts';
import { printable } from '../domain/printable.ts';
import { jsonText, writeErr, writeOut, type Write } from './terminal.ts';

export interface CliError {
  /** `usage`: the command line; `configuration`: the configuration file; `failure`: the command failed while running. */
  kind: 'usage' | 'configuration' | 'failure';
  message: string;
  /** Each problem found in the configuration, as a sentence naming the field. */
  problems?: string[];
  /** The configuration file the problems are in. */
  file?: string;
  /** Where to read more: `Run 'npx sts-volume-gitops plan --help' ...`. */
  hint?: string;
}

/** stderr always; stdout too, as JSON (with `extra` beside `error`), when the command was asked for JSON. */
export function printCliError(error: CliError, json: boolean, out: Write = writeOut, extra: Record<string, unknown> = {}): void {
  const text = error.problems === undefined ? printable(error.message)
    : `configuration error${error.file === undefined ? '' : ` in ${printable(error.file)}`}:\n${error.problems.map((p) => `  - ${printable(p)}`).join('\n')}`;
  writeErr(`${text}\n${error.hint === undefined ? '' : `${printable(error.hint)}\n`}`);
  if (json) out(jsonText({ ...extra, error }));
}

/** A configuration the CLI cannot use, as a CliError; undefined for anything else. */
export function usageErrorOf(error: unknown): CliError | undefined {
  if (error instanceof ConfigError) {
    return { kind: 'configuration', message: error.message, problems: error.problems, ...(error.source === '(none)' ? {} : { file: error.source }) };
  }
  if (error instanceof UnknownTargetError) return { kind: 'configuration', message: error.message };
  return undefined;
}

/** Prints a configuration error (see printCliError) and returns 2; undefined, printing nothing, for anything else. */
export function reportUsageError(error: unknown, json = false, out?: Write): 2 | undefined {
  const cliError = usageErrorOf(error);
  if (cliError === undefined) return undefined;
  printCliError(cliError, json, out);
  return 2;
}
