// `sts-volume-gitops rbac`: prints the RBAC manifest (Roles, ClusterRole, bindings) that grants exactly
// what the tool needs for that configuration, ready for `kubectl apply -f -`.
import { configEnvironmentVariable } from '../domain/config.ts';
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { selectTargets } from '../app/select-targets.ts';
import { parseSubject, rbacObjects, renderRbacManifest, type RbacSubject } from '../app/rbac-manifest.ts';
import { allowAllWarnings } from '../app/allow-all.ts';
import { printCliError, reportUsageError } from './usage-errors.ts';
import { commandTable } from './command-table.ts';
import { readCommandLine } from './command-line.ts';
import { ownAccountOfThisMachine } from './eks-access.ts';
import { writeErr, writeOut, type Write } from './terminal.ts';
import { printable } from '../domain/printable.ts';

export async function rbacCommand(args: string[], out: Write = writeOut): Promise<number> {
  const line = readCommandLine(commandTable.rbac, args, out);
  if (typeof line === 'number') return line;
  const { values } = line;
  let subjects: RbacSubject[];
  try {
    subjects = [
      ...(values.group ?? []).map((v) => parseSubject('group', v)),
      ...(values.user ?? []).map((v) => parseSubject('user', v)),
      ...(values['service-account'] ?? []).map((v) => parseSubject('service-account', v)),
    ];
  } catch (error) {
    printCliError({ kind: 'usage', message: (error as Error).message, hint: 'Run \'npx sts-volume-gitops rbac --help\' for its usage and flags.' }, false);
    return 2;
  }
  try {
    const config = await loadResolvedConfig(values.config, process.env, ownAccountOfThisMachine);
    const targets = selectTargets(config, values.target);
    const source = values.config ?? process.env[configEnvironmentVariable] ?? '';
    const warnings = allowAllWarnings(targets);
    for (const warning of warnings) writeErr(`warning: ${printable(warning.message)}; ${printable(warning.fix)}\n`);
    out(renderRbacManifest(rbacObjects(targets, subjects.length > 0 ? subjects : undefined), source, warnings.map((w) => w.message)));
    return 0;
  } catch (error) {
    const code = reportUsageError(error);
    if (code === undefined) throw error;
    return code;
  }
}
