// The Kubernetes permissions KubeCluster's calls need, verb by verb: the single source of infra/k8s/rbac.yaml (see
// functions/app/rbac-manifest.ts). A call added to kube-cluster.ts needs its verb here; the integration tests run the
// engine under the generated manifest in the sandbox, which enforces RBAC, so a forgotten verb fails them.

export interface PermissionRule {
  apiGroup: string;
  resource: string;
  verbs: readonly string[];
  /** Restricts the rule to these object names (RBAC cannot restrict `create` or `list` by name). */
  resourceNames?: readonly string[];
  /** Which calls need it, for the manifest's reader. */
  why: string;
}

/** Cluster-scoped reads, once per pass. */
export const clusterPermissions: readonly PermissionRule[] = [
  { apiGroup: 'storage.k8s.io', resource: 'storageclasses', verbs: ['list'], why: 'readSnapshot: whether each class allows volume expansion' },
  {
    apiGroup: 'storage.k8s.io', resource: 'volumeattributesclasses', verbs: ['list'],
    why: 'listVolumeAttributesClasses: whether the class a template asks for exists and names its StorageClass\'s driver (only when a class changes)',
  },
];

/** In every namespace whose StatefulSets the tool may resize (the target's `namespaces.allow`). */
export const workloadPermissions: readonly PermissionRule[] = [
  {
    apiGroup: 'apps', resource: 'statefulsets', verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
    why: 'list: readSnapshot; get: after a template update; update: in-place template update (and its dry run); delete + create: orphan delete and recreate; patch: the status annotation',
  },
  { apiGroup: '', resource: 'persistentvolumeclaims', verbs: ['list', 'patch'], why: 'list: readSnapshot; patch: the storage request (and its server-side dry run), and the status annotation of a set an operator writes' },
  { apiGroup: '', resource: 'pods', verbs: ['list'], why: 'readSnapshot: which replicas run at the current revision' },
  { apiGroup: '', resource: 'resourcequotas', verbs: ['list'], why: 'readSnapshot: storage quota headroom' },
  {
    apiGroup: '', resource: 'configmaps', verbs: ['list'],
    why: 'recreation records older versions kept beside their StatefulSet: looked for only while the Lease carries no records mark, to report them (unsigned, never acted on)',
  },
  { apiGroup: '', resource: 'events', verbs: ['list', 'create'], why: 'list: why a PVC expansion failed; create: Events on the StatefulSet' },
];

/**
 * In the target's state namespace (`namespaces.state`); the Lease names are known, so reads and writes are tied to
 * them. The recreation records live there too (their names come from the StatefulSets, so they cannot be listed here).
 * Nobody else may write ConfigMaps there: a record is an instruction to create a StatefulSet (signed, and checked).
 */
export function leasePermissions(leaseNames: readonly string[]): PermissionRule[] {
  return [
    {
      apiGroup: 'coordination.k8s.io', resource: 'leases', verbs: ['create'],
      why: 'the first pass that writes creates the target\'s Lease (or, finding no recreation record, one that says so)',
    },
    {
      apiGroup: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'update', 'patch'], resourceNames: [...leaseNames],
      why: 'get: is another pass running, may recreation records be outstanding; update: take or renew it, or mark it free of records; patch: release it',
    },
    {
      apiGroup: '', resource: 'configmaps', verbs: ['list', 'create', 'update', 'delete'],
      why: 'the recreation record that makes a template update crash-safe: list (every apply pass, to check what is there), create (save), update (a pass rewriting its own record), delete (done)',
    },
    { apiGroup: '', resource: 'events', verbs: ['create'], why: 'the Warning Event on a recreation record refused as not authentic' },
  ];
}

/** In a target's `namespaces.default` when its state namespace is another: where versions before it kept the Lease and records. */
export const previousLeaseNamespacePermissions: readonly PermissionRule[] = [
  {
    apiGroup: '', resource: 'configmaps', verbs: ['list'],
    why: 'recreation records versions before the state namespace kept in namespaces.default: looked for only while the Lease carries no records mark, to report them',
  },
];
