// The `sts-volume-gitops` command line. Exit codes: 0 ok, 1 something blocked, failed or stalled, 2 bad usage or configuration.
import { hostname } from 'node:os';
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { selectTargets } from '../app/select-targets.ts';
import { targetRunJson } from '../app/report-json.ts';
import { proposalOutcomes } from '../app/run-targets.ts';
import { eksFromThisMachine, ownAccountOfThisMachine, refuseReconcileOnEks } from './eks-access.ts';
import { exitCodeOf, passVerdict } from '../engine/report/pass-verdict.ts';
import { hasPlannedChanges, renderPassReport } from './render-report.ts';
import { terminalStyle } from './terminal-style.ts';
import { closestName } from '../domain/similar-names.ts';
import { printCliError, reportUsageError } from './usage-errors.ts';
import { commandTable, isCommandName, type CommandName } from './command-table.ts';
import { programName, readCommandLine, runAs, renderCommandHelp, renderOverview, wantsJson } from './command-line.ts';
import { failureText, jsonText, progressLine, stdoutStream, writeErr, writeOut } from './terminal.ts';
import { printable } from '../domain/printable.ts';
import packageJson from '../../package.json' with { type: 'json' };

/** Each command of the table, run with its arguments (the larger ones loaded on use). */
const commands: Readonly<Record<CommandName, (args: string[]) => Promise<number>>> = {
  plan: (args) => planOrReconcile('plan', args),
  reconcile: (args) => planOrReconcile('reconcile', args),
  check: async (args) => (await import('./check-command.ts')).checkCommand(args),
  rbac: async (args) => (await import('./rbac-command.ts')).rbacCommand(args),
  webhook: async (args) => (await import('./webhook-command.ts')).webhookCommand(args),
  sandbox: async (args) => (await import('./sandbox-command.ts')).sandboxCommand(args),
  demo: async (args) => (await import('./demo.ts')).demoCommand(args),
  help: async (args) => helpCommand(args),
  version: async (args) => versionCommand(args),
};

function unknownCommand(name: string): string {
  const meant = closestName(name, Object.keys(commandTable));
  const commands = Object.keys(commandTable).join(', ');
  return meant === undefined ? `unknown command ${JSON.stringify(name)}: the commands are ${commands}`
    : `unknown command ${JSON.stringify(name)}: did you mean ${meant}? The commands are ${commands}`;
}

/** A flag given before its command (`--verbose plan`): said as one, with where it goes, not as an unknown command. */
function flagBeforeCommand(flag: string): string {
  const name = flag.replace(/^-+/, '').split('=')[0] ?? flag;
  const takers = Object.values(commandTable).filter((spec) => Object.hasOwn(spec.flags, name)).map((spec) => spec.name);
  return takers.length === 0 ? unknownCommand(flag)
    : `${flag} is a flag, not a command: it goes after the command (${takers.map((t) => `${programName} ${t} ${flag}`).join(', or ')})`;
}

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined) {
    writeErr(renderOverview(packageJson.version));
    return 2;
  }
  if (command === '-h' || command === '--help') return helpCommand(rest);
  if (command === '--version') return versionCommand(rest);
  // Flags before the command (`sts-volume-gitops --verbose plan`): the command is found and they go after it.
  const commandAt = command.startsWith('-') ? argv.findIndex(isCommandName) : -1;
  if (commandAt > 0) return main([argv[commandAt] ?? '', ...argv.slice(0, commandAt), ...argv.slice(commandAt + 1)]);
  if (command.startsWith('-') && !isCommandName(command)) {
    printCliError({ kind: 'usage', message: flagBeforeCommand(command), hint: `Run '${programName} --help' for what each command does.` }, rest.includes('--json'));
    return 2;
  }
  if (!isCommandName(command)) {
    printCliError({ kind: 'usage', message: unknownCommand(command), hint: `Run '${runAs} --help' for what each does.` }, rest.includes('--json'));
    return 2;
  }
  try {
    return await commands[command](rest);
  } catch (error) {
    // A failure nobody foresaw: its stack for a person, and with --json still JSON on stdout.
    writeErr(failureText(error));
    if (wantsJson(commandTable[command], rest)) writeOut(jsonText({ error: { kind: 'failure', message: error instanceof Error ? error.message : String(error) } }));
    return 1;
  }
}

async function planOrReconcile(command: 'plan' | 'reconcile', args: string[]): Promise<number> {
  // terraform's -detailed-exitcode: 1 for any error, bad usage or configuration included; 2 means changes.
  const detailed = command === 'plan' && args.includes('--detailed-exitcode');
  const errorCode = (code: number): number => (detailed && code === 2 ? 1 : code);
  const line = readCommandLine(commandTable[command], args);
  if (typeof line === 'number') return errorCode(line);
  const { values } = line;
  try {
    const config = await loadResolvedConfig(values.config, process.env, ownAccountOfThisMachine);
    // Loaded here: the rest of the CLI (help, version, usage errors) starts without the Kubernetes and GitHub clients.
    const { runTargets } = await import('../app/run-targets.ts');
    // EKS: plan reads with this machine's AWS credentials, as check does; reconcile is the deployed function's.
    if (command === 'reconcile') refuseReconcileOnEks({ targets: selectTargets(config, values.target) }, values.config ?? '$STS_VOLUME_GITOPS_CONFIG');
    const runs = await runTargets(config, {
      mode: command === 'plan' ? 'plan' : 'apply',
      ...(command === 'plan' ? { eksKubeConfig: eksFromThisMachine('sts-volume-gitops-plan') } : {}),
      ...(values.target !== undefined ? { targetName: values.target } : {}),
      holderIdentity: `cli-${hostname()}-${process.pid}`,
      // --quiet: what went wrong only, so no progress lines either.
      onEvent: values.json || values.quiet ? undefined : (target, line) => writeErr(progressLine(target, line)),
    });
    if (values.json) {
      writeOut(jsonText(runs.map(targetRunJson)));
    } else {
      const options = { style: terminalStyle(stdoutStream(), process.env, { verbose: values.verbose === true }), quiet: values.quiet === true };
      for (const run of runs) {
        const text = run.report ? renderPassReport(run.report, { ...options, proposals: proposalOutcomes(run) }) : '';
        if (text !== '') writeOut(`${text}\n`);
        if (run.error !== undefined) writeOut(`target ${printable(run.target)}: error: ${printable(run.error)}\n`);
      }
    }
    const code = exitCodeOf(runs.map(passVerdict));
    if (!detailed || code !== 0) return code;
    return runs.some((run) => run.report !== undefined && hasPlannedChanges(run.report)) ? 2 : 0;
  } catch (error) {
    const code = reportUsageError(error, values.json === true);
    if (code === undefined) throw error;
    return errorCode(code);
  }
}

function helpCommand(args: string[]): number {
  const line = readCommandLine(commandTable.help, args);
  if (typeof line === 'number') return line;
  if (line.positional === undefined) {
    writeOut(renderOverview(packageJson.version));
    return 0;
  }
  if (!isCommandName(line.positional)) {
    writeErr(`${unknownCommand(line.positional)}\n`);
    return 2;
  }
  writeOut(renderCommandHelp(commandTable[line.positional]));
  return 0;
}

function versionCommand(args: string[]): number {
  const line = readCommandLine(commandTable.version, args);
  if (typeof line === 'number') return line;
  writeOut(line.values.json
    ? jsonText({ version: packageJson.version, node: process.versions.node })
    : `${programName} ${packageJson.version} (Node.js ${process.versions.node})\n`);
  return 0;
}

if (import.meta.main) process.exitCode = await main(process.argv.slice(2));
