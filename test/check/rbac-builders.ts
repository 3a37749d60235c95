// RBAC objects as plain data for the judges of check/ (state-namespace-writers.ts, state-write-paths.ts), and the state
// namespace as `sts-volume-gitops rbac` and a real cluster's control plane leave it.
import type { BindingSubject, NamespaceGrants, RbacBinding, RbacRole, RbacRule } from '../../functions/domain/rbac-grants.ts';

export const state = 'sts-volume-gitops';
export const rule = (verbs: string[], resources: string[], apiGroups = [''], resourceNames: string[] = []): RbacRule => ({ verbs, apiGroups, resources, resourceNames });
export const role = (name: string, rules: RbacRule[], namespace = state): RbacRole => ({ kind: 'Role', name, namespace, rules });
export const clusterRole = (name: string, rules: RbacRule[]): RbacRole => ({ kind: 'ClusterRole', name, namespace: undefined, rules });
export const group = (name: string): BindingSubject => ({ kind: 'Group', name, namespace: undefined });
export const user = (name: string): BindingSubject => ({ kind: 'User', name, namespace: undefined });
export const serviceAccount = (name: string, namespace?: string): BindingSubject => ({ kind: 'ServiceAccount', name, namespace });
export const roleBinding = (name: string, roleRef: { kind: string; name: string }, subjects: BindingSubject[], namespace = state): RbacBinding => ({ kind: 'RoleBinding', name, namespace, roleRef, subjects });
export const clusterRoleBinding = (name: string, roleName: string, subjects: BindingSubject[]): RbacBinding => ({ kind: 'ClusterRoleBinding', name, namespace: undefined, roleRef: { kind: 'ClusterRole', name: roleName }, subjects });

/** What `sts-volume-gitops rbac` makes in the state namespace, and the control plane's own bindings, as on a real cluster. */
export function deployed(extra: Partial<NamespaceGrants> = {}): NamespaceGrants {
  return {
    namespace: state,
    roles: [role('sts-volume-gitops', [rule(['list', 'create', 'update', 'delete'], ['configmaps']), rule(['create'], ['leases'], ['coordination.k8s.io'])]), ...(extra.roles ?? [])],
    roleBindings: [roleBinding('sts-volume-gitops', { kind: 'Role', name: 'sts-volume-gitops' }, [group('sts-volume-gitops')]), ...(extra.roleBindings ?? [])],
    clusterRoles: [
      clusterRole('cluster-admin', [rule(['*'], ['*'], ['*'])]),
      clusterRole('system:controller:namespace-controller', [rule(['delete', 'deletecollection', 'get', 'list'], ['*'], ['*'])]),
      clusterRole('system:kube-controller-manager', [rule(['create'], ['leases'], ['coordination.k8s.io'])]),
      clusterRole('view', [rule(['get', 'list', 'watch'], ['configmaps', 'pods'])]),
      ...(extra.clusterRoles ?? []),
    ],
    clusterRoleBindings: [
      clusterRoleBinding('cluster-admin', 'cluster-admin', [group('system:masters')]),
      clusterRoleBinding('system:controller:namespace-controller', 'system:controller:namespace-controller', [serviceAccount('namespace-controller', 'kube-system')]),
      clusterRoleBinding('system:kube-controller-manager', 'system:kube-controller-manager', [user('system:kube-controller-manager')]),
      clusterRoleBinding('viewers', 'view', [group('everyone-reads')]),
      ...(extra.clusterRoleBindings ?? []),
    ],
  };
}

