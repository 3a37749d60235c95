// Which cluster a target talks to, as far as the configuration can tell (pure): the same kubeconfig file and context,
// or the same EKS cluster seen from the same account. The target queue runs one pass per cluster at a time (its
// message group, app/target-messages.ts), and a target's state namespace may be no other target's workload namespace
// on the same cluster (config.ts): both read this one key.

export interface KubeconfigCluster {
  path: string;
  context?: string;
}

export interface EksCluster {
  name: string;
  region: string;
  /** A role (often in the cluster's account) assumed through STS before calling EKS, with its external ID. */
  roleArn?: string;
  externalId?: string;
}

/** A target's `cluster`: the types live here, beside the one reading of them, so config.ts imports this file and not back. */
export type ClusterConfig = { kubeconfig: KubeconfigCluster } | { eks: EksCluster };

export function clusterKey(target: { cluster: ClusterConfig }): string {
  if ('eks' in target.cluster) {
    const { eks } = target.cluster;
    // A role in another account can see a cluster of the same name: the account is part of the identity.
    const account = /^arn:[^:]+:iam::(\d+):/.exec(eks.roleArn ?? '')?.[1];
    return `eks:${account !== undefined ? `${account}/` : ''}${eks.region}/${eks.name}`;
  }
  const { kubeconfig } = target.cluster;
  return `kubeconfig:${kubeconfig.path}${kubeconfig.context !== undefined ? `#${kubeconfig.context}` : ''}`;
}
