// The `sts-volume-gitops` command line. Exit codes: 0 ok, 1 something blocked, failed or stalled, 2 bad usage or configuration.
import { hostname } from 'node:os';
import { parseArgs } from 'node:util';
import { loadConfig } from '../domain/config.ts';
import { runTargets } from '../app/run-targets.ts';
import { targetRunJson } from '../app/report-json.ts';
import { exitCodeOf, renderPassReport } from './render-report.ts';
import { reportUsageError } from './usage-errors.ts';

const usage = `Usage:
  sts-volume-gitops plan --config FILE [--target NAME] [--json]       show what a pass would do (read-only)
  sts-volume-gitops reconcile --config FILE [--target NAME] [--json]  run one pass
  sts-volume-gitops sandbox [--seed DIR] [--version 1.34|1.26] [--json] start both sandboxes seeded from examples/
  sts-volume-gitops sandbox kube --port N --seed FILE [--version V]   start the Kubernetes sandbox alone (v1.34.9 by default)
  sts-volume-gitops sandbox github --port N --seed DIR                start the GitHub sandbox alone
  sts-volume-gitops demo                                              the whole story on the sandboxes (npm start)
  sts-volume-gitops check --config FILE [--target NAME] [--json]      what is missing before a first pass (read-only)
  sts-volume-gitops rbac --config FILE [--target NAME]                print the RBAC manifest the config needs
  sts-volume-gitops webhook --port N --config FILE [--secret-env VAR]  GitHub webhooks for local development: pull
                                                                      requests validated, pushes reconciled, in process
--config defaults to $STS_VOLUME_GITOPS_CONFIG.`;

export async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  switch (command) {
    case 'plan':
    case 'reconcile':
      return planOrReconcile(command, rest);
    case 'sandbox':
      return (await import('./sandbox-command.ts')).sandboxCommand(rest);
    case 'demo':
      return (await import('./demo.ts')).runDemo();
    case 'check':
      return (await import('./check-command.ts')).checkCommand(rest);
    case 'rbac':
      return (await import('./rbac-command.ts')).rbacCommand(rest);
    case 'webhook':
      return (await import('./webhook-command.ts')).webhookCommand(rest, usage);
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      process.stdout.write(`${usage}\n`);
      return command === undefined ? 2 : 0;
    default:
      process.stderr.write(`unknown command ${command}\n${usage}\n`);
      return 2;
  }
}

async function planOrReconcile(command: 'plan' | 'reconcile', args: string[]): Promise<number> {
  let values: { config?: string; target?: string; json?: boolean };
  try {
    values = parseArgs({
      args, options: { config: { type: 'string' }, target: { type: 'string' }, json: { type: 'boolean' } }, strict: true,
    }).values;
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${usage}\n`);
    return 2;
  }
  try {
    const config = await loadConfig(values.config);
    const runs = await runTargets(config, {
      mode: command === 'plan' ? 'plan' : 'apply',
      ...(values.target !== undefined ? { targetName: values.target } : {}),
      holderIdentity: `cli-${hostname()}-${process.pid}`,
      onEvent: values.json ? undefined : (target, line) => process.stderr.write(`[${target}] ${line}\n`),
    });
    if (values.json) {
      process.stdout.write(`${JSON.stringify(runs.map(targetRunJson), null, 2)}\n`);
    } else {
      for (const run of runs) {
        if (run.report) process.stdout.write(`${renderPassReport(run.report)}\n`);
        if (run.error !== undefined) process.stdout.write(`target ${run.target}: error: ${run.error}\n`);
      }
    }
    const reports = runs.flatMap((r) => (r.report ? [r.report] : []));
    return runs.some((r) => r.error !== undefined) ? 1 : exitCodeOf(reports);
  } catch (error) {
    const code = reportUsageError(error);
    if (code === undefined) throw error;
    return code;
  }
}

if (import.meta.main) {
  main(process.argv.slice(2)).then(
    (code) => { process.exitCode = code; },
    (error: unknown) => {
      process.stderr.write(`${error instanceof Error ? error.stack ?? error.message : String(error)}\n`);
      process.exitCode = 1;
    },
  );
}
