// What `namespaces.allow: ["*"]` costs in grants, said plainly by `rbac` (on stderr and in the manifest) and by
// `check` (a warning): the manifest then grants the workload verbs through a ClusterRole bound cluster-wide, and with
// them `list` on ConfigMaps in every namespace, which the tool uses only to report recreation records that versions
// before the state namespace kept beside their StatefulSets (adapters/kube/permissions.ts). RBAC cannot leave one
// namespace out of a cluster-wide grant: the engine keeps "*" off the state namespace (engine/plan/allowed-namespaces.ts).
import { rbacRoleName, type RbacTarget } from './rbac-manifest.ts';

export interface AllowAllWarning {
  target: string;
  message: string;
  fix: string;
}

export function allowAllWarnings(targets: readonly RbacTarget[]): AllowAllWarning[] {
  return targets.filter((t) => t.namespaces.allow.includes('*')).map((t) => ({
    target: t.name,
    message: `target ${t.name} has namespaces.allow "*": the RBAC manifest grants the tool's workload verbs in every namespace (ClusterRole `
      + `${rbacRoleName}-workloads, bound cluster-wide), delete and create of StatefulSets included, and list on ConfigMaps, so its identity may read `
      + 'every ConfigMap in the cluster (kube-system\'s too); it lists them outside its state namespace only to report recreation records '
      + `older versions kept beside their StatefulSets. "*" never covers the state namespace (${t.namespaces.state ?? t.namespaces.default})`,
    fix: 'list the namespaces the tool is meant to resize in namespaces.allow instead of "*", and apply the regenerated manifest',
  }));
}
