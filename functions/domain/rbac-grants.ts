// RBAC objects as plain data, for judging who may do what in a namespace as `kubectl auth who-can` does
// (check/state-namespace-writers.ts); read from the server's JSON by adapters/kube/rbac-reads.ts. A ClusterRole's
// rules are read as the API serves them: an aggregated ClusterRole's are filled in by the cluster's aggregation
// controller, so they are already resolved here.

export interface RbacRule {
  verbs: string[];
  apiGroups: string[];
  resources: string[];
  /** Empty: every object of the resources. */
  resourceNames: string[];
}

export interface RbacRole {
  kind: 'Role' | 'ClusterRole';
  name: string;
  /** A Role's namespace; undefined for a ClusterRole. */
  namespace: string | undefined;
  rules: RbacRule[];
}

export interface BindingSubject {
  /** `User`, `Group` or `ServiceAccount`, as written (another kind matches nobody). */
  kind: string;
  name: string;
  /** A ServiceAccount's namespace as written (a RoleBinding's may leave it out: the binding's namespace then). */
  namespace: string | undefined;
}

export interface RbacBinding {
  kind: 'RoleBinding' | 'ClusterRoleBinding';
  name: string;
  /** A RoleBinding's namespace; undefined for a ClusterRoleBinding. */
  namespace: string | undefined;
  roleRef: { kind: string; name: string };
  subjects: BindingSubject[];
}

/** What grants anything in one namespace: its Roles and RoleBindings, and every ClusterRole and ClusterRoleBinding. */
export interface NamespaceGrants {
  namespace: string;
  roles: RbacRole[];
  roleBindings: RbacBinding[];
  clusterRoles: RbacRole[];
  clusterRoleBindings: RbacBinding[];
}
