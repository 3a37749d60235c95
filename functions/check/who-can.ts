// Who may do what to a resource in one namespace, read from RBAC objects as `kubectl auth who-can` (kubectl-who-can)
// reads them: the RoleBindings of that namespace and every ClusterRoleBinding, each resolved to its Role or
// ClusterRole, whose rules match by verb, API group, resource (and subresource) and object name with RBAC's own
// wildcards (`*`, `*/subresource`). A SelfSubjectAccessReview answers for the identity asking only, so this is how
// check learns about everyone else. Pure. What a subject may do at the cluster scope (impersonate, write
// ClusterRoles) comes from ClusterRoleBindings alone, as RBAC reads it. Not modelled: system:masters, which RBAC never
// consults, and group membership (who is in a group is the authenticator's to say, not RBAC's).
import type { BindingSubject, NamespaceGrants, RbacBinding, RbacRole, RbacRule } from '../domain/rbac-grants.ts';

export interface ResourceRef {
  apiGroup: string;
  resource: string;
  /** `token` of `serviceaccounts/token`. */
  subresource?: string;
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

/** Verbs that need an object's name: a rule with resourceNames grants no other (a subresource's create names its object). */
const namelessVerbs = new Set(['create', 'deletecollection', 'list', 'watch']);

// RBAC's ResourceMatches: `*`, the resource (`serviceaccounts/token` with its subresource), or `*/token`.
function resourceMatches(rule: RbacRule, resource: ResourceRef): boolean {
  const combined = resource.subresource === undefined ? resource.resource : `${resource.resource}/${resource.subresource}`;
  return rule.resources.some((r) => r === '*' || r === combined || (resource.subresource !== undefined && r === `*/${resource.subresource}`));
}

function ruleIsFor(rule: RbacRule, resource: ResourceRef): boolean {
  return rule.apiGroups.some((g) => g === '*' || g === resource.apiGroup) && resourceMatches(rule, resource);
}

function ruleAllows(rule: RbacRule, resource: ResourceRef, verbs: readonly string[]): Allowed | undefined {
  if (!ruleIsFor(rule, resource)) return undefined;
  const named = rule.resourceNames.length > 0;
  const granted = verbs.filter((verb) => rule.verbs.some((v) => v === '*' || v === verb) && !(named && resource.subresource === undefined && namelessVerbs.has(verb)));
  return granted.length === 0 ? undefined : { resource, verbs: granted, names: [...rule.resourceNames] };
}

function roleOf(binding: RbacBinding, grants: NamespaceGrants): RbacRole | undefined {
  if (binding.roleRef.kind === 'Role') {
    return binding.kind === 'RoleBinding' ? grants.roles.find((r) => r.name === binding.roleRef.name && r.namespace === binding.namespace) : undefined;
  }
  return binding.roleRef.kind === 'ClusterRole' ? grants.clusterRoles.find((r) => r.name === binding.roleRef.name) : undefined;
}

/** What `rules` let a subject do to `resources`, one entry per rule and resource that grants any of `verbs`. */
export function rulesAllow(rules: readonly RbacRule[], resources: readonly ResourceRef[], verbs: readonly string[]): Allowed[] {
  return rules.flatMap((rule) => resources.flatMap((resource) => ruleAllows(rule, resource, verbs) ?? []));
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
    const allowed = rulesAllow(role.rules, resources, verbs);
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

/** One subject of one binding, with the rules the binding grants it (none when its role does not exist). */
export interface BoundGrant {
  subject: BindingSubject;
  binding: Pick<RbacBinding, 'kind' | 'name' | 'namespace'>;
  role: { kind: string; name: string };
  /** undefined: the role does not exist (yet); whoever may create it decides what the binding grants. */
  rules: RbacRule[] | undefined;
}

/** Every subject of every binding that grants anything in `grants.namespace` (its RoleBindings, every ClusterRoleBinding). */
export function boundGrants(grants: NamespaceGrants): BoundGrant[] {
  const bindings = [...grants.roleBindings.filter((b) => b.namespace === grants.namespace), ...grants.clusterRoleBindings];
  return bindings.flatMap((binding) => {
    const rules = roleOf(binding, grants)?.rules;
    return binding.subjects.map((subject) => ({
      subject: boundSubject(subject, binding), binding: { kind: binding.kind, name: binding.name, namespace: binding.namespace },
      role: { kind: binding.roleRef.kind, name: binding.roleRef.name }, rules,
    }));
  });
}

/** One request, as the authorizer sees it. */
export interface AskedAccess extends ResourceRef {
  verb: string;
  /** Only ClusterRoleBindings grant it: the object is cluster-scoped (users, groups, ClusterRoles) or in another namespace. */
  clusterWideOnly?: boolean;
}

/** Which objects `held` lets one do `asked` to: every one (`all`, a rule without resourceNames), or these names. */
export interface PermittedObjects {
  all: BoundGrant | undefined;
  named: Map<string, BoundGrant>;
}

export function permittedObjects(held: readonly BoundGrant[], asked: AskedAccess): PermittedObjects {
  const permitted: PermittedObjects = { all: undefined, named: new Map() };
  for (const grant of held) {
    if (asked.clusterWideOnly && grant.binding.kind !== 'ClusterRoleBinding') continue;
    for (const rule of grant.rules ?? []) {
      if (!rule.verbs.some((v) => v === '*' || v === asked.verb) || !ruleIsFor(rule, asked)) continue;
      if (rule.resourceNames.length === 0) permitted.all ??= grant;
      for (const name of rule.resourceNames) if (!permitted.named.has(name)) permitted.named.set(name, grant);
    }
  }
  return permitted;
}

/** The grant that permits `asked` on the object `name`, or on every object when `name` is undefined (a create, a list). */
export function permittedOn(permitted: PermittedObjects, name: string | undefined): BoundGrant | undefined {
  return permitted.all ?? (name === undefined ? undefined : permitted.named.get(name));
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
