// The Kubernetes permissions KubeCluster's calls need, verb by verb: the single source of infra/k8s/rbac.yaml (see
// functions/app/rbac-manifest.ts). A call added to kube-cluster.ts needs its verb here; the integration tests run the
// engine under the generated manifest in the sandbox, which enforces RBAC, so a forgotten verb fails them.

export interface PermissionRule {
  apiGroup: string;
  resource: string;
  verbs: readonly string[];
  /** Restricts the rule to these object names (RBAC cannot restrict `create` or `list` by name). */
  resourceNames?: readonly string[];
  /**
   * Why the tool needs each verb, in words for the manifest's reader and `check`'s (never the code's names): `to ...`,
   * so `check` can say `needed to ...` of a refused verb alone.
   */
  why: Readonly<Record<string, string>>;
}

/** The manifest header's words for a rule: `list: to ...; patch: to ...`, verbs that share a reason together. */
export function whyText(rule: Pick<PermissionRule, 'verbs' | 'why'>): string {
  const byReason = new Map<string, string[]>();
  for (const verb of rule.verbs) {
    const reason = rule.why[verb] ?? 'to do what `npx sts-volume-gitops rbac` grants it for';
    byReason.set(reason, [...(byReason.get(reason) ?? []), verb]);
  }
  if (byReason.size === 1) return [...byReason.keys()][0] ?? '';
  return [...byReason].map(([reason, verbs]) => `${verbs.join(' and ')}: ${reason}`).join('; ');
}

/** Cluster-scoped reads, once per pass. */
export const clusterPermissions: readonly PermissionRule[] = [
  { apiGroup: 'storage.k8s.io', resource: 'storageclasses', verbs: ['list'], why: { list: 'to tell, on every pass, whether each StorageClass allows volume expansion' } },
  {
    apiGroup: 'storage.k8s.io', resource: 'volumeattributesclasses', verbs: ['list'],
    why: { list: 'to tell whether the VolumeAttributesClass a template asks for exists and belongs to its StorageClass\'s driver (only when a class changes)' },
  },
];

/** In every namespace whose StatefulSets the tool may resize (the target's `namespaces.allow`). */
export const workloadPermissions: readonly PermissionRule[] = [
  {
    apiGroup: 'apps', resource: 'statefulsets', verbs: ['get', 'list', 'create', 'update', 'patch', 'delete'],
    why: {
      get: 'to read a StatefulSet again after its template update',
      list: 'to read the StatefulSets on every pass',
      create: 'to update a template by orphan delete and recreate (pods untouched)',
      delete: 'to update a template by orphan delete and recreate (pods untouched)',
      update: 'to update a template in place (and to dry-run that update)',
      patch: 'to write a StatefulSet\'s status annotation',
    },
  },
  {
    apiGroup: '', resource: 'persistentvolumeclaims', verbs: ['list', 'patch'],
    why: {
      list: 'to read the PVCs on every pass',
      patch: 'to raise a PVC\'s storage request (and to dry-run it), and to write the status annotation of a set an operator writes',
    },
  },
  { apiGroup: '', resource: 'pods', verbs: ['list'], why: { list: 'to tell which replicas run at the current revision' } },
  { apiGroup: '', resource: 'resourcequotas', verbs: ['list'], why: { list: 'to tell how much room the storage quota has' } },
  {
    apiGroup: '', resource: 'configmaps', verbs: ['list'],
    why: { list: 'to find recreation records older versions kept beside their StatefulSets, only while the Lease carries no records mark, and report them (unsigned, never acted on)' },
  },
  {
    apiGroup: '', resource: 'events', verbs: ['list', 'create', 'patch'],
    why: {
      list: 'to say why a PVC\'s expansion failed (the attempt\'s Events), and to find the Warning Event a blocked or failed change already has',
      create: 'to write Events on the StatefulSet', patch: 'to count a blocked or failed change again on its Warning Event (its count and last time seen) rather than write a new one',
    },
  },
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
      why: { create: 'to create the target\'s Lease, on the first pass that writes (or that finds no recreation record, to say so)' },
    },
    {
      apiGroup: 'coordination.k8s.io', resource: 'leases', verbs: ['get', 'update', 'patch'], resourceNames: [...leaseNames],
      why: {
        get: 'to tell whether another pass is running and whether recreation records may be outstanding',
        update: 'to take or renew the Lease, or to mark it free of records',
        patch: 'to release the Lease',
      },
    },
    {
      apiGroup: '', resource: 'configmaps', verbs: ['list', 'create', 'update', 'delete'],
      why: {
        list: 'to find the recreation records in the state namespace (every apply pass lists them all: it acts on those in progress and reports any other)',
        create: 'to save the recreation record that makes a template update crash-safe',
        update: 'to rewrite its own recreation record while that template update is in progress',
        delete: 'to remove a recreation record once its template update is done',
      },
    },
    { apiGroup: '', resource: 'events', verbs: ['create'], why: { create: 'to write a Warning Event on a recreation record refused as not authentic' } },
  ];
}

/** In a target's `namespaces.default` when its state namespace is another: where versions before it kept the Lease and records. */
export const previousLeaseNamespacePermissions: readonly PermissionRule[] = [
  {
    apiGroup: '', resource: 'configmaps', verbs: ['list'],
    why: { list: 'to find recreation records versions before the state namespace kept in namespaces.default, only while the Lease carries no records mark, and report them' },
  },
];
