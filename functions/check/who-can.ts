// Who may do what to a resource in one namespace, read from RBAC objects as `kubectl auth who-can` (kubectl-who-can)
// reads them: the RoleBindings of that namespace and every ClusterRoleBinding, each resolved to its Role or
// ClusterRole, whose rules match by verb, API group, resource and object name with RBAC's own wildcards (`*`). A
// SelfSubjectAccessReview answers for the identity asking only, so this is how check learns about everyone else.
// Pure. Not modelled: identities that may grant themselves more (bind, escalate, impersonate, create RoleBindings),
// and system:masters, which RBAC never consults.
import type { BindingSubject, NamespaceGrants, RbacBinding, RbacRole, RbacRule } from '../domain/rbac-grants.ts';

export interface ResourceRef {
  apiGroup: string;
  resource: string;
}

/** What one rule lets a subject do to a resource: verbs on every object, or on the named objects only. */
export interface Allowed {
  resource: ResourceRef;
  verbs: string[];
  /** Empty: every object; else only these (RBAC cannot restrict create or deletecollection by name). */
  names: string[];
}

export interface Grantee {
  /** A ServiceAccount's namespace resolved (a RoleBinding's subject without one is in the binding's namespace). */
  subject: BindingSubject;
  binding: Pick<RbacBinding, 'kind' | 'name' | 'namespace'>;
  role: { kind: string; name: string };
  allowed: Allowed[];
}

/** Verbs that need an object's name: a rule with resourceNames grants no other. */
const namelessVerbs = new Set(['create', 'deletecollection', 'list', 'watch']);

function ruleAllows(rule: RbacRule, resource: ResourceRef, verbs: readonly string[]): Allowed | undefined {
  if (!rule.apiGroups.some((g) => g === '*' || g === resource.apiGroup)) return undefined;
  if (!rule.resources.some((r) => r === '*' || r === resource.resource)) return undefined;
  const named = rule.resourceNames.length > 0;
  const granted = verbs.filter((verb) => rule.verbs.some((v) => v === '*' || v === verb) && !(named && namelessVerbs.has(verb)));
  return granted.length === 0 ? undefined : { resource, verbs: granted, names: [...rule.resourceNames] };
}

function roleOf(binding: RbacBinding, grants: NamespaceGrants): RbacRole | undefined {
  if (binding.roleRef.kind === 'Role') {
    return binding.kind === 'RoleBinding' ? grants.roles.find((r) => r.name === binding.roleRef.name && r.namespace === binding.namespace) : undefined;
  }
  return binding.roleRef.kind === 'ClusterRole' ? grants.clusterRoles.find((r) => r.name === binding.roleRef.name) : undefined;
}

/**
 * Every subject of every binding that lets it do any of `verbs` to any of `resources` in `grants.namespace`, one entry
 * per subject and binding, with what exactly it may do. A binding whose role does not exist grants nothing, as in RBAC.
 */
export function whoCan(grants: NamespaceGrants, resources: readonly ResourceRef[], verbs: readonly string[]): Grantee[] {
  const bindings = [...grants.roleBindings.filter((b) => b.namespace === grants.namespace), ...grants.clusterRoleBindings];
  const grantees: Grantee[] = [];
  for (const binding of bindings) {
    const role = roleOf(binding, grants);
    if (!role) continue;
    const allowed = role.rules.flatMap((rule) => resources.flatMap((resource) => ruleAllows(rule, resource, verbs) ?? []));
    if (allowed.length === 0) continue;
    for (const subject of binding.subjects) {
      grantees.push({
        subject: boundSubject(subject, binding),
        binding: { kind: binding.kind, name: binding.name, namespace: binding.namespace },
        role: { kind: role.kind, name: role.name },
        allowed,
      });
    }
  }
  return grantees;
}

/** A binding's subject as RBAC reads it: a ServiceAccount's namespace defaults to the binding's; others have none. */
export function boundSubject(subject: BindingSubject, binding: Pick<RbacBinding, 'namespace'>): BindingSubject {
  return { kind: subject.kind, name: subject.name, namespace: subject.kind === 'ServiceAccount' ? subject.namespace ?? binding.namespace : undefined };
}

/** `Group app-team`, `User alice`, `ServiceAccount argocd/argocd-application-controller`. */
export function describeSubject(subject: BindingSubject): string {
  return subject.kind === 'ServiceAccount' ? `ServiceAccount ${subject.namespace ?? '?'}/${subject.name}` : `${subject.kind} ${subject.name}`;
}

export function sameSubject(a: BindingSubject, b: BindingSubject): boolean {
  return a.kind === b.kind && a.name === b.name && (a.kind !== 'ServiceAccount' || a.namespace === b.namespace);
}
