// `sts-volume-gitops rbac --config FILE`: prints the RBAC manifest (Roles, ClusterRole, bindings) that grants exactly
// what the tool needs for that configuration, ready for `kubectl apply -f -`.
import { parseArgs } from 'node:util';
import { configEnvironmentVariable, loadConfig } from '../domain/config.ts';
import { selectTargets } from '../app/run-targets.ts';
import { parseSubject, rbacObjects, renderRbacManifest, type RbacSubject } from '../app/rbac-manifest.ts';
import { allowAllWarnings } from '../app/allow-all.ts';
import { reportUsageError } from './usage-errors.ts';

export const rbacUsage = `  sts-volume-gitops rbac --config FILE [--target NAME] [--group G | --user U | --service-account NS:NAME]...
                                                                      print the RBAC manifest the config needs`;

export async function rbacCommand(args: string[], out: (text: string) => void = (t) => process.stdout.write(t)): Promise<number> {
  let values: { config?: string; target?: string; group?: string[]; user?: string[]; 'service-account'?: string[] };
  let subjects: RbacSubject[];
  try {
    values = parseArgs({
      args, strict: true,
      options: {
        config: { type: 'string' }, target: { type: 'string' },
        group: { type: 'string', multiple: true }, user: { type: 'string', multiple: true }, 'service-account': { type: 'string', multiple: true },
      },
    }).values;
    subjects = [
      ...(values.group ?? []).map((v) => parseSubject('group', v)),
      ...(values.user ?? []).map((v) => parseSubject('user', v)),
      ...(values['service-account'] ?? []).map((v) => parseSubject('service-account', v)),
    ];
  } catch (error) {
    process.stderr.write(`${(error as Error).message}\n${rbacUsage}\n`);
    return 2;
  }
  try {
    const config = await loadConfig(values.config);
    const targets = selectTargets(config, values.target);
    const source = values.config ?? process.env[configEnvironmentVariable] ?? '';
    const warnings = allowAllWarnings(targets);
    for (const warning of warnings) process.stderr.write(`warning: ${warning.message}; ${warning.fix}\n`);
    out(renderRbacManifest(rbacObjects(targets, subjects.length > 0 ? subjects : undefined), source, warnings.map((w) => w.message)));
    return 0;
  } catch (error) {
    const code = reportUsageError(error);
    if (code === undefined) throw error;
    return code;
  }
}
