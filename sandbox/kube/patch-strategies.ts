// Which lists a strategic merge patch merges, as the Go types of the kinds the sandbox serves declare them
// (`patchStrategy:"merge" patchMergeKey:"..."` struct tags in k8s.io/api). Every other list is replaced whole, as a
// real server replaces it: a RoleBinding's `subjects`, a Role's `rules`, a StatefulSet's `volumeClaimTemplates`,
// `accessModes`, tolerations.

/** How a list at a path is patched: merged by the key of its items, merged as a set of primitives, or replaced. */
export type ListStrategy = { mergeKey: string } | 'merge-primitives' | 'replace';

type Strategies = Record<string, { mergeKey: string } | 'merge-primitives'>;

/** A container's lists (core/v1 Container, used for containers, initContainers and ephemeralContainers). */
const containerLists: Strategies = {
  env: { mergeKey: 'name' },
  ports: { mergeKey: 'containerPort' },
  volumeMounts: { mergeKey: 'mountPath' },
  volumeDevices: { mergeKey: 'devicePath' },
};

/** core/v1 PodSpec. */
const podSpecLists: Strategies = {
  volumes: { mergeKey: 'name' },
  imagePullSecrets: { mergeKey: 'name' },
  hostAliases: { mergeKey: 'ip' },
  topologySpreadConstraints: { mergeKey: 'topologyKey' },
  resourceClaims: { mergeKey: 'name' },
  schedulingGates: { mergeKey: 'name' },
  ...Object.fromEntries(['containers', 'initContainers', 'ephemeralContainers'].flatMap((list) => [
    [list, { mergeKey: 'name' }],
    ...Object.entries(containerLists).map(([field, strategy]) => [`${list}.${field}`, strategy]),
  ])) as Strategies,
};

function under(prefix: string, strategies: Strategies): Strategies {
  return Object.fromEntries(Object.entries(strategies).map(([path, strategy]) => [`${prefix}.${path}`, strategy]));
}

/** metav1.ObjectMeta, on every kind. */
const metadataLists: Strategies = {
  'metadata.ownerReferences': { mergeKey: 'uid' },
  'metadata.finalizers': 'merge-primitives',
};

const byKind: Record<string, Strategies> = {
  Pod: {
    ...under('spec', podSpecLists),
    'status.conditions': { mergeKey: 'type' },
    'status.podIPs': { mergeKey: 'ip' },
    'status.hostIPs': { mergeKey: 'ip' },
  },
  StatefulSet: { ...under('spec.template.spec', podSpecLists), 'status.conditions': { mergeKey: 'type' } },
  PersistentVolumeClaim: { 'status.conditions': { mergeKey: 'type' } },
  Namespace: { 'status.conditions': { mergeKey: 'type' } },
  ServiceAccount: { secrets: { mergeKey: 'name' } },
};

/** The strategy for the list at `path` (field names from the object's root, list indexes left out) of a `kind`. */
export function listStrategyAt(kind: string | undefined, path: readonly string[]): ListStrategy {
  const key = path.join('.');
  return metadataLists[key] ?? (kind === undefined ? undefined : byKind[kind]?.[key]) ?? 'replace';
}
