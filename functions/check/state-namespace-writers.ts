// Who besides the tool may write ConfigMaps or Leases in a target's state namespace (pure). The recreation records
// there are instructions to create StatefulSets: a forged one is refused, but whoever may write ConfigMaps there can
// delete a genuine one while its StatefulSet is absent, and whoever may write the Lease can stop passes or run beside
// them. The tool is whoever the RoleBindings `sts-volume-gitops rbac` generates there bind; the control plane (the
// group system:masters, system: users, kube-system's ServiceAccounts) is named but not warned about; everyone else
// with a write verb is a warning naming the subject, the binding and the role, and so is everyone else who can give
// itself that write (bind, escalate, impersonate, a pod or a token of a ServiceAccount that writes: state-write-paths.ts).
import { rbacRoleName } from '../app/rbac-manifest.ts';
import type { BindingSubject, NamespaceGrants } from '../domain/rbac-grants.ts';
import { ok, warning, type CheckResult } from './check-result.ts';
import { count } from '../domain/spelling.ts';
import { configMaps, leases, stateWritePaths, writeVerbs, type WritePath } from './state-write-paths.ts';
import { boundSubject, describeSubject, sameSubject, whoCan, type Allowed, type Grantee } from './who-can.ts';

export const stateWritersCheck = 'cluster.state-writers';

/** Groups every identity (or every ServiceAccount) is in: bound to the tool, they make everyone the tool. */
const everyoneGroups = /^system:(authenticated|unauthenticated|serviceaccounts(:.*)?)$/;

/** The cluster's own components: RBAC's bootstrap bindings grant them writes in every namespace (the namespace controller deletes, the garbage collector too). */
function isControlPlane(subject: BindingSubject): boolean {
  if (subject.kind === 'Group') return subject.name === 'system:masters';
  if (subject.kind === 'ServiceAccount') return subject.namespace === 'kube-system';
  if (subject.kind !== 'User') return false;
  if (subject.name.startsWith('system:serviceaccount:')) return subject.name.startsWith('system:serviceaccount:kube-system:');
  return subject.name.startsWith('system:') && subject.name !== 'system:anonymous';
}

/**
 * The subjects of the RoleBindings `sts-volume-gitops rbac` makes in the state namespace (one per subject: named
 * `sts-volume-gitops`, or after the subject, of Role `sts-volume-gitops`), each with its binding; undefined when none is there.
 */
function toolSubjects(grants: NamespaceGrants): Array<{ subject: BindingSubject; binding: string }> | undefined {
  const bindings = grants.roleBindings.filter((b) => b.namespace === grants.namespace && (b.name === rbacRoleName || b.name.startsWith(`${rbacRoleName}-`))
    && b.roleRef.kind === 'Role' && b.roleRef.name === rbacRoleName);
  if (bindings.length === 0) return undefined;
  return bindings.flatMap((binding) => binding.subjects.map((s) => ({ subject: boundSubject(s, binding), binding: binding.name })));
}

/** `create, update, delete ConfigMaps; update Leases "sts-volume-gitops-prod"`. */
function describeAllowed(allowed: readonly Allowed[]): string {
  const parts = new Map<string, Set<string>>();
  for (const grant of allowed) {
    const what = `${grant.resource.resource === 'configmaps' ? 'ConfigMaps' : 'Leases'}${grant.names.length > 0 ? ` ${grant.names.map((n) => `"${n}"`).join(', ')}` : ''}`;
    const verbs = parts.get(what) ?? new Set<string>();
    for (const verb of grant.verbs) verbs.add(verb);
    parts.set(what, verbs);
  }
  return [...parts].map(([what, verbs]) => `${writeVerbs.filter((v) => verbs.has(v)).join(', ')} ${what}`).join('; ');
}

function harmOf(allowed: readonly Allowed[]): string {
  const harms: string[] = [];
  if (allowed.some((a) => a.resource.resource === 'configmaps')) {
    harms.push('it can delete a genuine recreation record while its StatefulSet is absent (the set then stays absent until a person recreates it), or plant forged ones (refused and reported, every pass)');
  }
  if (allowed.some((a) => a.resource.resource === 'leases')) harms.push('it can take or delete a target\'s Lease (passes stop as busy, or run beside one another)');
  return harms.join('; ');
}

const rule = 'nobody but the tool may write ConfigMaps or Leases in the state namespace (README, "Recreation records")';

function fixFor(grantee: Grantee, namespace: string): string {
  const { binding, role } = grantee;
  if (binding.kind === 'RoleBinding') {
    return `remove the grant: \`kubectl -n ${namespace} delete rolebinding ${binding.name}\`, or bind a role without these verbs; ${rule}`;
  }
  return `ClusterRoleBinding ${binding.name} grants ${role.kind} ${role.name} in every namespace: bind it with RoleBindings in the namespaces it is meant for instead, `
    + `or take these verbs out of it; ${rule}`;
}

/** `RoleBinding x of Role y`, `ClusterRoleBinding x (cluster-wide) of ClusterRole y`. */
function describeThrough(grant: Pick<Grantee, 'binding' | 'role'>): string {
  return `${grant.binding.kind} ${grant.binding.name}${grant.binding.kind === 'RoleBinding' ? '' : ' (cluster-wide)'} of ${grant.role.kind} ${grant.role.name}`;
}

function pathFix(path: WritePath, namespace: string): string {
  const ways = path.through.map(({ binding, role }) => (binding.kind === 'RoleBinding'
    ? `\`kubectl -n ${namespace} delete rolebinding ${binding.name}\`, or bind a role without these verbs`
    : `take these verbs out of ${role.kind} ${role.name}, which ClusterRoleBinding ${binding.name} grants cluster-wide`));
  return `remove ${path.verbs} from what ${describeSubject(path.holder)} is granted: ${ways.join('; or ')}; ${rule}, nor give itself that write`;
}

/** One warning per identity and binding that lets someone other than the tool write there; an ok line when none does. */
export function judgeStateNamespaceWriters(grants: NamespaceGrants): CheckResult[] {
  const namespace = grants.namespace;
  const tool = toolSubjects(grants);
  const grantees = whoCan(grants, [configMaps, leases], writeVerbs);
  const isTool = (subject: BindingSubject): boolean => (tool ?? []).some((t) => sameSubject(t.subject, subject));
  const results: CheckResult[] = [];
  // Said once the others are known, so that it says how many follow (none, maybe).
  const unbound = (others: number): CheckResult => warning(stateWritersCheck, `RoleBinding ${rbacRoleName}`,
    `not in namespace ${namespace}: the tool's identity is not bound there, so ${others === 0 ? 'it may not write there either' : `every identity that may write there is said after this as another (${count(others, 'line')})`}`,
    'apply the manifest `npx sts-volume-gitops rbac --config FILE` generates (it binds the tool in the state namespace)');
  for (const { subject, binding } of (tool ?? []).filter((t) => t.subject.kind === 'Group' && everyoneGroups.test(t.subject.name))) {
    results.push(warning(stateWritersCheck, describeSubject(subject), `RoleBinding ${binding} in ${namespace} binds the tool's role to ${describeSubject(subject)}: every identity in it may write the recreation records and the Lease`,
      `bind the tool's own identity (\`npx sts-volume-gitops rbac --config FILE --group NAME\`, \`--user\` or \`--service-account\`, applied: it adds bindings of its own), then delete the bindings of ${describeSubject(subject)} (RoleBinding ${binding} here; \`kubectl get clusterrolebindings,rolebindings -A -l app.kubernetes.io/name=sts-volume-gitops -o wide\` lists them all with their subjects)`));
  }
  const skipped = (subject: BindingSubject): boolean => isTool(subject) || isControlPlane(subject);
  for (const grantee of grantees.filter((g) => !skipped(g.subject))) {
    results.push(warning(stateWritersCheck, describeSubject(grantee.subject),
      `may ${describeAllowed(grantee.allowed)} in ${namespace}, the state namespace, through ${describeThrough(grantee)}: ${harmOf(grantee.allowed)}`,
      fixFor(grantee, namespace)));
  }
  for (const path of stateWritePaths(grants, grantees, skipped)) {
    results.push(warning(stateWritersCheck, describeSubject(path.holder),
      `${path.can}, through ${path.through.map(describeThrough).join(' and ')}: ${path.then}, it may ${describeAllowed(path.allowed)} in ${namespace}, `
      + `the state namespace; ${harmOf(path.allowed)}`,
      pathFix(path, namespace)));
  }
  if (!tool) results.unshift(unbound(results.length));
  if (results.length === 0) {
    const controlPlane = [...new Set(grantees.filter((g) => isControlPlane(g.subject)).map((g) => describeSubject(g.subject)))];
    results.push(ok(stateWritersCheck, namespace, `only the tool (${(tool ?? []).map((t) => `${describeSubject(t.subject)}, RoleBinding ${t.binding}`).join('; ')}) may write ConfigMaps or Leases here`
      + (controlPlane.length > 0 ? `, besides the control plane (${controlPlane.join(', ')})` : '')
      + ', and nobody else can give itself that write (bind, escalate, impersonate, a pod or a token of a ServiceAccount that may)'));
  }
  return results;
}
