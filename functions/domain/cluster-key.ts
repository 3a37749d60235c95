// Which cluster a target talks to, as far as the configuration can tell (pure): the same kubeconfig file and context,
// or the same EKS cluster seen from the same account. The target queue runs one pass per cluster at a time (its
// message group, app/target-messages.ts), and a target's state namespace may be no other target's workload namespace
// on the same cluster (config.ts): both read this one key.
import type { TargetConfig } from './config.ts';

export function clusterKey(target: Pick<TargetConfig, 'cluster'>): string {
  if ('eks' in target.cluster) {
    const { eks } = target.cluster;
    // A role in another account can see a cluster of the same name: the account is part of the identity.
    const account = /^arn:[^:]+:iam::(\d+):/.exec(eks.roleArn ?? '')?.[1];
    return `eks:${account !== undefined ? `${account}/` : ''}${eks.region}/${eks.name}`;
  }
  const { kubeconfig } = target.cluster;
  return `kubeconfig:${kubeconfig.path}${kubeconfig.context !== undefined ? `#${kubeconfig.context}` : ''}`;
}
