// Which namespaces a target may resize StatefulSets in: those `namespaces.allow` lists, or with `*` every namespace but
// the target's state namespace. The state namespace holds the Lease and the recreation records, and is never a
// workload namespace: the configuration refuses it in `allow` (domain/config.ts), and `*` does not reach it, so no
// plan, dry run or record of this target ever concerns a StatefulSet there. Pure; the one test the plan and check use.

export interface NamespaceScope {
  /** `namespaces.allow`: names, or `*`. */
  allow: readonly string[];
  /** `namespaces.state`: where the Lease and the recreation records live; undefined in plans made without a target. */
  state: string | undefined;
}

export function isNamespaceAllowed(namespace: string, scope: NamespaceScope): boolean {
  if (namespace === scope.state) return false;
  return scope.allow.includes('*') || scope.allow.includes(namespace);
}

/** Why a StatefulSet in `namespace` is not this target's to resize (isNamespaceAllowed said no). */
export function namespaceNotAllowedReason(namespace: string, scope: NamespaceScope): string {
  if (namespace === scope.state) {
    return `namespace ${namespace} is this target's state namespace (its Lease and recreation records): never a workload namespace, `
      + 'whatever namespaces.allow says ("*" means every namespace but this one); deploy the StatefulSet to another namespace';
  }
  return `namespace ${namespace} is not in this target's allowlist (${scope.allow.join(', ')})`;
}
