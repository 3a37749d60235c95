// Which configuration file `cdk synth` and `cdk deploy` read: $STS_VOLUME_GITOPS_CONFIG, the variable the CLI reads
// (and the deployed functions are given), else config.yaml where cdk runs. $STS_VOLUME_GITOPS_CONFIG_FILE, which
// infra/README.md named before, still works, with a deprecation warning.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import { ConfigError, configEnvironmentVariable, parseConfig } from '../functions/domain/config.ts';
import { clusterRegionProblems } from './eks-access.ts';

const deprecatedConfigVariable = 'STS_VOLUME_GITOPS_CONFIG_FILE';
const defaultStackConfigFile = 'config.yaml';

export type StackConfigFile = { file: string; warnings: string[] } | { problem: string };

export function stackConfigFile(env: Readonly<Record<string, string | undefined>>, cwd: string, exists: (path: string) => boolean = existsSync): StackConfigFile {
  const current = env[configEnvironmentVariable] || undefined;
  const deprecated = env[deprecatedConfigVariable] || undefined;
  const warnings: string[] = [];
  if (deprecated !== undefined) {
    warnings.push(current === undefined
      ? `${deprecatedConfigVariable} is deprecated: set ${configEnvironmentVariable} instead (the variable the CLI reads too)`
      : `${deprecatedConfigVariable} is ignored: ${configEnvironmentVariable} is set (unset ${deprecatedConfigVariable})`);
  }
  const [variable, chosen] = current !== undefined ? [configEnvironmentVariable, current] : deprecated !== undefined ? [deprecatedConfigVariable, deprecated] : [undefined, defaultStackConfigFile];
  const file = resolve(cwd, chosen);
  if (!exists(file)) {
    return {
      problem: variable === undefined
        ? `no configuration file: set ${configEnvironmentVariable} to the tool's configuration (the file the CLI's --config reads), e.g. export ${configEnvironmentVariable}=$PWD/config.yaml; without it, cdk reads ${defaultStackConfigFile} in ${cwd}, which does not exist`
        : `the configuration file ${file} ($${variable}) does not exist`,
    };
  }
  return { file, warnings };
}

/**
 * The chosen file, or what is wrong with it (missing, or not a valid configuration: said as the CLI says it; a cluster
 * in another region than the stack's, $CDK_DEFAULT_REGION, which cdk sets from AWS_REGION or the profile).
 */
export function readableStackConfigFile(env: Readonly<Record<string, string | undefined>>, cwd: string): StackConfigFile {
  const chosen = stackConfigFile(env, cwd);
  if ('problem' in chosen) return chosen;
  try {
    const config = parseConfig(readFileSync(chosen.file, 'utf8'), chosen.file, dirname(chosen.file));
    const regions = clusterRegionProblems(config, env.CDK_DEFAULT_REGION || undefined);
    return regions.length > 0 ? { problem: regions.join('\n') } : chosen;
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { problem: `configuration error in ${chosen.file}:\n${error.problems.map((p) => `  - ${p}`).join('\n')}` };
  }
}
