// What two targets on one cluster may not do to each other (pure), over the cluster keys of domain/cluster-key.ts: the
// file's keys when the configuration is read, the keys run time resolves (app/resolve-clusters.ts) before any pass or
// message. One target's workload namespaces never include another's state namespace (`*` included: it reaches every
// namespace but its own target's state namespace), and no namespace is a workload namespace of two targets: from
// whatever files, each could name the same StatefulSet (its manifests are any file its paths match, in any repository),
// and the two would resize, recreate and report it against each other, under two Leases.
import { clusterKey, type ClusterConfig, type ClusterFacts } from './cluster-key.ts';

export interface TargetOnCluster {
  name: string;
  cluster: ClusterConfig;
  clusterFacts?: ClusterFacts;
  namespaces: { state: string; allow: readonly string[] };
}

/** Why a state namespace must not be a workload namespace, said by every refusal of one. */
export const stateNamespaceWhy = 'it holds the Lease and the recreation records (each an instruction to create a StatefulSet), and application '
  + 'teams usually may write ConfigMaps in the namespaces they deploy to: whoever may write ConfigMaps there can plant records '
  + '(refused and reported) or delete a genuine one while its StatefulSet is absent';

/** How a cluster key reads in a sentence: `EKS cluster prod in eu-west-1 (account 1234)`, `the cluster at https://...`. */
function sameClusterWords(target: TargetOnCluster): string {
  const key = clusterKey(target);
  if ('eks' in target.cluster) {
    const account = /^eks:([^/]+)\//.exec(key)?.[1];
    return `EKS cluster ${target.cluster.eks.name} in ${target.cluster.eks.region}${account === 'self' ? '' : ` (account ${account})`}`;
  }
  return key.startsWith('kubeconfig:/') ? `the cluster of ${key.slice('kubeconfig:'.length)}` : `the cluster at ${key.slice('kubeconfig:'.length)}`;
}

/** The namespaces both targets may resize StatefulSets in (`*` on one side: every one the other lists). */
function sharedWorkloadNamespaces(a: TargetOnCluster, b: TargetOnCluster): string[] {
  const aAll = a.namespaces.allow.includes('*');
  const bAll = b.namespaces.allow.includes('*');
  if (aAll && bAll) return ['*'];
  if (aAll) return b.namespaces.allow.filter((n) => n !== a.namespaces.state);
  if (bAll) return a.namespaces.allow.filter((n) => n !== b.namespaces.state);
  return a.namespaces.allow.filter((n) => b.namespaces.allow.includes(n));
}

/** Each problem names the target it is about first (`targets[i]...`), then the other target by name. */
export function crossTargetProblems(targets: readonly TargetOnCluster[]): string[] {
  const problems: string[] = [];
  const keys = targets.map((t) => clusterKey(t));
  for (const [index, target] of targets.entries()) {
    for (const [otherIndex, other] of targets.entries()) {
      if (otherIndex === index || keys[otherIndex] !== keys[index]) continue;
      const state = other.namespaces.state;
      const where = sameClusterWords(target);
      if (target.namespaces.allow.includes(state)) {
        problems.push(`targets[${index}].namespaces.allow lists ${JSON.stringify(state)}, the state namespace of target ${other.name} `
          + `on the same cluster (${where}): ${stateNamespaceWhy}; give target ${other.name} another namespaces.state, or take it out of this allow`);
      } else if (target.namespaces.allow.includes('*') && state !== target.namespaces.state) {
        problems.push(`targets[${index}].namespaces.allow is "*", which covers ${JSON.stringify(state)}, the state namespace of target ${other.name} `
          + `on the same cluster (${where}): ${stateNamespaceWhy}; list this target's namespaces instead of "*"`);
      }
      // Said once per pair, by the first of the two.
      const shared = otherIndex > index ? sharedWorkloadNamespaces(target, other) : [];
      if (shared.length > 0) {
        const which = shared[0] === '*' ? 'every namespace (both allow "*")' : `namespace${shared.length > 1 ? 's' : ''} ${shared.join(', ')}`;
        problems.push(`targets[${index}] and targets[${otherIndex}] both resize StatefulSets in ${which} on the same cluster (${where}): `
          + 'each could find the same StatefulSet in its Git paths, and the two would resize, recreate and report it against each other; '
          + `give each namespace to one target (merge the two targets' paths into one target, or split their namespaces.allow)`);
      }
    }
  }
  return problems;
}
