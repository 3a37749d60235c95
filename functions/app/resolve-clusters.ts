// The configuration as run time knows it: each target's cluster said as one key wherever it can be known (an EKS
// cluster's account when it has no roleArn, from STS; a kubeconfig context's server URL, from its file), then the rules
// between targets on one cluster (domain/cross-target-rules.ts) checked again over those keys. Every edge that runs
// passes or queues them reads the configuration through here, so two spellings of one cluster share one message
// group and are held to one rule.
import { readFileSync } from 'node:fs';
import { eksAccount, type KubeconfigCluster } from '../domain/cluster-key.ts';
import { ConfigError, configEnvironmentVariable, loadConfig, type Config, type TargetConfig } from '../domain/config.ts';
import { nameTargets } from '../domain/config-problems.ts';
import { crossTargetProblems } from '../domain/cross-target-rules.ts';
import { kubeconfigServerIn } from '../domain/kubeconfig-server.ts';

export interface ClusterResolvers {
  /** The API server of a kubeconfig context; undefined when the file cannot tell (the pass says why). */
  kubeconfigServer?: (cluster: KubeconfigCluster) => string | undefined;
  /** The AWS account the tool runs in; undefined when it cannot be told (the CLI without AWS credentials). */
  ownAccount?: () => Promise<string | undefined>;
}

/**
 * Whether the account behind EKS targets without a roleArn decides anything: only when such a target shares its region
 * and name with a target whose roleArn names an account (targets without a roleArn all share one account anyway).
 */
function needsOwnAccount(targets: readonly TargetConfig[]): boolean {
  const eks = targets.flatMap((t) => ('eks' in t.cluster ? [t.cluster.eks] : []));
  return eks.some((a) => a.roleArn === undefined && eks.some((b) => b.roleArn !== undefined && b.region === a.region && b.name === a.name));
}

export async function resolveClusters(config: Config, sourceName: string, resolvers: ClusterResolvers): Promise<Config> {
  const account = needsOwnAccount(config.targets) ? await resolvers.ownAccount?.() : undefined;
  const targets = config.targets.map((target): TargetConfig => {
    if ('eks' in target.cluster) {
      return account !== undefined && eksAccount(target.cluster.eks, undefined) === 'self' ? { ...target, clusterFacts: { account } } : target;
    }
    const server = resolvers.kubeconfigServer?.(target.cluster.kubeconfig);
    return server !== undefined ? { ...target, clusterFacts: { server } } : target;
  });
  const problems = crossTargetProblems(targets);
  if (problems.length > 0) throw new ConfigError(sourceName, problems.map((p) => nameTargets(p, { targets })));
  return { targets };
}

/** The server of a kubeconfig file's context; undefined when the file cannot be read (the pass says why). */
export function kubeconfigServer(cluster: KubeconfigCluster): string | undefined {
  let text: string;
  try {
    text = readFileSync(cluster.path, 'utf8');
  } catch {
    return undefined;
  }
  return kubeconfigServerIn(text, cluster.context);
}

/** loadConfig, then resolveClusters: kubeconfig servers from their files, and the account `ownAccount` tells. */
export async function loadResolvedConfig(path: string | undefined, env: NodeJS.ProcessEnv, ownAccount?: () => Promise<string | undefined>): Promise<Config> {
  const config = await loadConfig(path, env);
  return resolveClusters(config, path ?? env[configEnvironmentVariable] ?? '(none)', { kubeconfigServer, ...(ownAccount ? { ownAccount } : {}) });
}
