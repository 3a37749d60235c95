// A command's arguments read with node:util parseArgs from its row of the command table, and its help printed from the
// same row. Pure, but for `readCommandLine`, which prints the help or the usage error and says the exit code.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { commandTable, sandboxPullRequestTable, type CommandSpec, type FlagSpec } from './command-table.ts';
import { printCliError } from './usage-errors.ts';
import { closestName } from '../domain/similar-names.ts';
import { writeOut, type Write } from './terminal.ts';

export const programName = 'sts-volume-gitops';
/**
 * How a person runs it: `npm ci` puts no `sts-volume-gitops` on PATH (the package is not installed globally), and npx
 * runs the package's own bin. Every command line the CLI prints starts with this (test/docs/npx-command-lines.test.ts).
 */
export const runAs = `npx ${programName}`;
/** Every help's last line, and README's (test/docs/cli-docs.test.ts): 1 is the verdict's blocked or failed, a stalled volume counting as failed. */
export const exitCodesLine = 'Exit codes: 0 ok, 1 something blocked, failed or stalled, 2 bad usage or configuration.';

type FlagValue<F extends FlagSpec> = F['type'] extends 'boolean' ? boolean : F extends { multiple: true } ? string[] : string;
export type FlagValues<S extends CommandSpec> = { -readonly [K in keyof S['flags']]?: FlagValue<S['flags'][K]> };

export type CommandLine<S extends CommandSpec> =
  | { kind: 'run'; values: FlagValues<S>; positional: string | undefined }
  | { kind: 'help' }
  | { kind: 'usage-error'; message: string; json: boolean };

function parserOptions(spec: CommandSpec): ParseArgsOptionsConfig {
  const options: ParseArgsOptionsConfig = { help: { type: 'boolean', short: 'h' } };
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = { type: flag.type, ...(flag.multiple ? { multiple: true } : {}) };
  return options;
}

/** The command line as the table reads it: `--help` (anywhere) wins over everything else, even a usage error. */
export function parseCommandLine<S extends CommandSpec>(spec: S, args: readonly string[]): CommandLine<S> {
  const options = parserOptions(spec);
  let parsed: { values: Record<string, unknown>; positionals: string[] };
  try {
    parsed = parseArgs({ args, options, strict: true, allowPositionals: spec.positional !== undefined });
  } catch (error) {
    if (lenientValues(spec, args).help === true) return { kind: 'help' };
    return { kind: 'usage-error', message: `${firstSentence(error)}${flagMeant(spec, error)}`, json: wantsJson(spec, args) };
  }
  const { help, ...values } = parsed.values;
  if (help === true) return { kind: 'help' };
  const usageError = (message: string): CommandLine<S> => ({ kind: 'usage-error', message, json: values.json === true });
  const [positional, ...extra] = parsed.positionals;
  if (spec.positional && extra.length > 0) return usageError(`${spec.name} takes one ${spec.positional.name}, got ${parsed.positionals.join(' ')}`);
  const allowed = spec.positional?.values;
  if (positional !== undefined && allowed && !allowed.includes(positional)) {
    return usageError(`${spec.positional?.name ?? 'the argument'} must be ${allowed.join(' or ')}, not ${JSON.stringify(positional)}`);
  }
  if (spec.positional?.required && positional === undefined) return usageError(`${spec.name} needs ${spec.positional.name}`);
  const missing = Object.entries(spec.flags).find(([name, flag]) => flag.required && values[name] === undefined);
  if (missing) return usageError(`${spec.name} needs --${missing[0]} ${missing[1].value ?? ''}`.trimEnd());
  // parseArgs, strict over these very options, gives each flag the type FlagValues says.
  return { kind: 'run', values: values as FlagValues<S>, positional };
}

/** Whether the command was asked for JSON, read even from a command line it refuses (the error is then JSON too). */
export function wantsJson(spec: CommandSpec, args: readonly string[]): boolean {
  return 'json' in spec.flags && lenientValues(spec, args).json === true;
}

function lenientValues(spec: CommandSpec, args: readonly string[]): Record<string, unknown> {
  return parseArgs({ args, options: parserOptions(spec), strict: false, allowPositionals: true }).values;
}

/** `; did you mean --config?` for an option parseArgs does not know that is a typo of one the command has. */
function flagMeant(spec: CommandSpec, error: unknown): string {
  if ((error as { code?: unknown }).code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return '';
  const given = /'(--?[^'\s]+)'/.exec(error instanceof Error ? error.message : '')?.[1]?.replace(/^-+/, '').split('=')[0];
  const meant = given === undefined ? undefined : closestName(given, [...Object.keys(spec.flags), 'help']);
  return meant === undefined ? '' : `; did you mean --${meant}?`;
}

/** parseArgs's first sentence names the problem; the rest explains `--`, which the help does better. */
function firstSentence(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.split(/\.\s/)[0] ?? message;
}

/**
 * Parses the command line; prints the command's help (stdout, exit 0) or the usage error (stderr, and JSON on stdout
 * when --json was asked for; exit 2). Returns what to run with, or the exit code when there is nothing to run.
 */
export function readCommandLine<S extends CommandSpec>(spec: S, args: readonly string[], out: Write = writeOut): Extract<CommandLine<S>, { kind: 'run' }> | 0 | 2 {
  const line = parseCommandLine(spec, args);
  if (line.kind === 'run') return line;
  if (line.kind === 'help') {
    out(renderCommandHelp(spec));
    return 0;
  }
  printCliError({ kind: 'usage', message: line.message, hint: `Run '${runAs} ${spec.name} --help' for its usage and flags.` }, line.json, out);
  return 2;
}

/** `npx sts-volume-gitops plan [--config FILE] [--target NAME] [--json]`. */
export function synopsis(spec: CommandSpec): string {
  const words = [runAs, spec.name];
  if (spec.positional) {
    const name = spec.positional.values ? spec.positional.values.join('|') : spec.positional.name;
    words.push(spec.positional.required ? name : `[${name}]`);
  }
  for (const [name, flag] of Object.entries(spec.flags)) {
    if (flag.deprecatedFor !== undefined) continue;
    const flagText = flag.value === undefined ? `--${name}` : `--${name} ${flag.value}`;
    words.push(`${flag.required ? flagText : `[${flagText}]`}${flag.multiple ? '...' : ''}`);
  }
  return words.join(' ');
}

export function renderCommandHelp(spec: CommandSpec): string {
  const lines = ['Usage:', `  ${synopsis(spec)}`, '', ...wrap(spec.description, 100), ''];
  if (spec.positional) {
    lines.push('Arguments:', ...columns([[spec.positional.values ? spec.positional.values.join('|') : spec.positional.name, spec.positional.description]]), '');
  }
  const flags: Array<[string, string]> = Object.entries(spec.flags).map(([name, flag]) => [
    `--${name}${flag.value === undefined ? '' : ` ${flag.value}`}`,
    `${flag.deprecatedFor === undefined ? '' : `deprecated: use --${flag.deprecatedFor}; `}${flag.description}${flag.multiple ? '; repeatable' : ''}${flag.required ? '; required' : ''}`,
  ]);
  flags.push(['-h, --help', 'show this help']);
  lines.push('Flags:', ...columns(flags), '');
  for (const note of spec.notes ?? []) lines.push(...wrap(note, 100), '');
  lines.push(exitCodesLine);
  return `${lines.join('\n')}\n`;
}

/** `sts-volume-gitops --help`: every command with its summary. */
export function renderOverview(version: string): string {
  const lines = [
    `${programName} ${version}: resize StatefulSet volumes from volumeClaimTemplates edits in Git (KEP-0661 from outside the cluster)`,
    '', 'Usage:', `  ${runAs} COMMAND [flags]`, '', 'Commands:',
    ...columns(Object.values(commandTable).map((spec): [string, string] => [spec.name, spec.summary])),
    '',
    `Run '${runAs} COMMAND --help' (or '${runAs} help COMMAND') for a command's usage and flags.`,
    exitCodesLine,
  ];
  return `${lines.join('\n')}\n`;
}

/** Every command and subcommand, each subcommand after its command (`sandbox pr open` after `sandbox`). */
export function allCommandSpecs(): CommandSpec[] {
  return Object.values(commandTable).flatMap((spec): CommandSpec[] => (spec.name === 'sandbox' ? [spec, ...Object.values(sandboxPullRequestTable)] : [spec]));
}

/** The README's command list: each command's summary as a comment above its usage line. */
export function renderSynopses(): string {
  return allCommandSpecs().map((spec) => `# ${spec.summary}\n${synopsis(spec)}`).join('\n');
}

function columns(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length)) + 3;
  return rows.flatMap(([left, right]) => {
    const [first = '', ...rest] = wrap(right, 100 - width - 2);
    return [`  ${left.padEnd(width)}${first}`, ...rest.map((line) => `  ${' '.repeat(width)}${line}`)];
  });
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line !== '' && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else {
      line = line === '' ? word : `${line} ${word}`;
    }
  }
  if (line !== '') lines.push(line);
  return lines;
}
