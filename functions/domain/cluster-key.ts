// Which cluster a target talks to (pure): one key per cluster wherever it can be known. An EKS cluster is its account,
// region and name: the account of its `roleArn`, or without one the account the tool runs in (the same for every
// target without a roleArn; learnt at run time from STS GetCallerIdentity, app/resolve-clusters.ts). A kubeconfig
// cluster is its API server's URL, read from the file at run time; until then, its file and context. The target queue
// runs one pass per cluster at a time (its message group, app/target-messages.ts), and the rules between targets on one
// cluster (domain/cross-target-rules.ts) read this one key.

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

/** What only run time tells about a target's cluster (app/resolve-clusters.ts); absent, the key is what the file says. */
export interface ClusterFacts {
  /** The account the tool runs in, for an EKS cluster without a roleArn. */
  account?: string;
  /** The API server's URL of a kubeconfig cluster's context. */
  server?: string;
}

/** The account an EKS cluster is reached in: its role's, else the tool's own, `self` until run time says which. */
export function eksAccount(eks: EksCluster, facts: ClusterFacts | undefined): string {
  // A role in another account can see a cluster of the same name: the account is part of the identity.
  return /^arn:[^:]+:iam::(\d+):/.exec(eks.roleArn ?? '')?.[1] ?? facts?.account ?? 'self';
}

/** A server URL as one spelling: scheme and host in lower case, no default port, no trailing slash. */
export function normalServerUrl(server: string): string {
  try {
    const url = new URL(server);
    return `${url.protocol}//${url.host}${url.pathname.replace(/\/+$/, '')}`;
  } catch {
    return server;
  }
}

export function clusterKey(target: { cluster: ClusterConfig; clusterFacts?: ClusterFacts }): string {
  const facts = target.clusterFacts;
  if ('eks' in target.cluster) {
    const { eks } = target.cluster;
    return `eks:${eksAccount(eks, facts)}/${eks.region}/${eks.name}`;
  }
  if (facts?.server !== undefined) return `kubeconfig:${normalServerUrl(facts.server)}`;
  const { kubeconfig } = target.cluster;
  return `kubeconfig:${kubeconfig.path}${kubeconfig.context !== undefined ? `#${kubeconfig.context}` : ''}`;
}
