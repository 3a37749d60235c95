// The RBAC manifest for a configuration: exactly the permissions of functions/adapters/kube/permissions.ts, in the
// namespaces the targets name, bound to a Kubernetes group (by default `sts-volume-gitops`, the group the EKS access
// entry maps the function's role to), one binding per subject named after it, so that applying the manifest for one
// identity never takes the grants from another bound before (the deployed function's group among them). `sts-volume-gitops rbac --config FILE` prints it; infra/k8s/rbac.yaml is its
// output for infra/k8s/example-config.yaml (a test keeps the two equal), and the sandbox tests apply it too.
import { createHash } from 'node:crypto';
import { Document, isScalar, visit } from 'yaml';
import {
  clusterPermissions, leasePermissions, previousLeaseNamespacePermissions, whyText, workloadPermissions, type PermissionRule,
} from '../adapters/kube/permissions.ts';
import { leasePrefix } from '../engine/run-pass.ts';
import { defaultStateNamespace } from '../domain/config.ts';

export const defaultRbacGroup = 'sts-volume-gitops';
/**
 * The name of every Role and ClusterRole the manifest makes (with a suffix for the ClusterRole of `*`), and of the
 * default group's bindings; another subject's bindings add the subject to it (`bindingName`).
 */
export const rbacRoleName = 'sts-volume-gitops';
const rbacApiVersion = 'rbac.authorization.k8s.io/v1';
const labels = { 'app.kubernetes.io/name': 'sts-volume-gitops' };

export type RbacSubject =
  | { kind: 'Group'; name: string }
  | { kind: 'User'; name: string }
  | { kind: 'ServiceAccount'; name: string; namespace: string };

/** What the manifest needs of a target: its name (the Lease's) and its namespaces (`state`: the Lease's and the records'). */
export interface RbacTarget {
  name: string;
  namespaces: { default: string; state?: string; allow: readonly string[] };
}



export type RbacObject = Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string; labels: Record<string, string> } };

/**
 * The state namespace `sts-volume-gitops` when a target uses it (the default), a ClusterRole for the
 * cluster-scoped reads, and per namespace a Role with what that namespace needs (workloads in each allowed namespace,
 * the Lease and records in each target's state namespace, a read of the records older versions kept in the Lease
 * namespace they used, `namespaces.default`), each bound to `subjects`. An allow list with `*` gets the workload rules as
 * a ClusterRole bound cluster-wide instead.
 */
export function rbacObjects(targets: readonly RbacTarget[], subjects: readonly RbacSubject[] = [{ kind: 'Group', name: defaultRbacGroup }]): RbacObject[] {
  if (targets.length === 0) throw new Error('the configuration has no targets: no namespaces to grant');
  if (subjects.length === 0) throw new Error('no subject to bind the roles to');
  const boundTo = subjects.map((subject) => ({ subject: subjectOf(subject), suffix: bindingSuffix(subject) }));
  const anyNamespace = targets.some((t) => t.namespaces.allow.includes('*'));
  const workloadNamespaces = new Set(targets.flatMap((t) => t.namespaces.allow.filter((n) => n !== '*')));
  const leaseNames = new Map<string, string[]>();
  const previousLeaseNamespaces = new Set<string>();
  for (const target of targets) {
    const state = target.namespaces.state ?? target.namespaces.default;
    const names = leaseNames.get(state) ?? [];
    names.push(`${leasePrefix}${target.name}`);
    leaseNames.set(state, names);
    if (state !== target.namespaces.default) previousLeaseNamespaces.add(target.namespaces.default);
  }
  const covered = (namespace: string): boolean => anyNamespace || workloadNamespaces.has(namespace) || leaseNames.has(namespace);
  const upgradeReads = [...previousLeaseNamespaces].filter((n) => !covered(n));

  const objects: RbacObject[] = [];
  // Only the tool's own namespace is declared: a namespace someone else chose may hold more, and `kubectl delete -f` of
  // the manifest would delete it with everything in it.
  if (leaseNames.has(defaultStateNamespace)) objects.push(namespaceObject(defaultStateNamespace));
  objects.push(clusterRole(rbacRoleName, clusterPermissions), ...boundTo.map((b) => clusterRoleBinding(rbacRoleName, b)));
  if (anyNamespace) {
    objects.push(clusterRole(`${rbacRoleName}-workloads`, workloadPermissions), ...boundTo.map((b) => clusterRoleBinding(`${rbacRoleName}-workloads`, b)));
  }
  const namespaces = [...new Set([...(anyNamespace ? [] : workloadNamespaces), ...leaseNames.keys(), ...upgradeReads])].sort();
  for (const namespace of namespaces) {
    const rules = [
      ...(!anyNamespace && workloadNamespaces.has(namespace) ? workloadPermissions : []),
      ...(leaseNames.has(namespace) ? leasePermissions([...(leaseNames.get(namespace) ?? [])].sort()) : []),
      ...(upgradeReads.includes(namespace) ? previousLeaseNamespacePermissions : []),
    ];
    objects.push(role(namespace, rules), ...boundTo.map((b) => roleBinding(namespace, b)));
  }
  return objects;
}

/** The objects as one multi-document YAML file, after a header that says where it came from and why each verb. */
export function renderRbacManifest(objects: readonly RbacObject[], source: string, warnings: readonly string[] = []): string {
  const why = [...clusterPermissions, ...workloadPermissions, ...leasePermissions([]), ...previousLeaseNamespacePermissions]
    .map((p) => `#   ${p.verbs.join('/')} ${p.resource}: ${whyText(p)}`);
  const header = [
    `# Generated by \`npx sts-volume-gitops rbac --config ${source}\`: the permissions sts-volume-gitops needs, nothing more.`,
    '# Regenerate it for your own configuration rather than editing it (namespaces and Lease names come from the config).',
    ...bindingLines(objects),
    '# To bind a ServiceAccount or a user as well, generate with `--service-account NAMESPACE:NAME` or `--user NAME`',
    '# (repeatable; `--group NAME` names another group). Check an identity with kubectl, e.g.',
    `#   kubectl get storageclasses --as=system:serviceaccount:NAMESPACE:NAME   or   --as=someone --as-group=${defaultRbacGroup}`,
    ...namespaceLines(objects),
    ...warnings.map((w) => `# WARNING: ${w}`),
    '# Why each verb:',
    ...why,
  ];
  return `${header.join('\n')}\n${objects.map((o) => `---\n${toYaml(o)}`).join('')}`;
}

/**
 * What applying does to bindings: it binds these subjects, each by bindings of its own, and leaves every other
 * identity's bindings (from an earlier `rbac` for another subject) as they are; the roles are shared.
 */
function bindingLines(objects: readonly RbacObject[]): string[] {
  const bindings = objects.filter((o) => o.kind === 'RoleBinding' || o.kind === 'ClusterRoleBinding');
  const bySubject = new Map<string, Set<string>>();
  for (const binding of bindings) {
    for (const subject of binding.subjects as Array<Record<string, string>>) {
      const who = subject.kind === 'ServiceAccount' ? `ServiceAccount ${subject.namespace ?? ''}/${subject.name ?? ''}` : `${subject.kind ?? ''} "${subject.name ?? ''}"`;
      const names = bySubject.get(who) ?? new Set<string>();
      names.add(binding.metadata.name);
      bySubject.set(who, names);
    }
  }
  return [
    ...[...bySubject].map(([who, names]) => `# Binds ${who} with bindings named ${[...names].join(', ')}${who === `Group "${defaultRbacGroup}"` ? ' (the EKS access entry of infra/ maps the function\'s IAM role to this group)' : ''}.`),
    '# Applying it binds only these; identities bound by an earlier `rbac` for another subject keep their own bindings',
    '# (named after them). To take an identity\'s grants away, delete its bindings: `kubectl get clusterrolebindings,rolebindings',
    '# -A -l app.kubernetes.io/name=sts-volume-gitops` lists them. The roles are shared: applying sets their rules for all.',
  ];
}

/**
 * What the header says of namespaces, true for these objects: which state namespace the manifest creates, which it
 * does not (one the config names itself, created first by hand), and that every other Role's namespace must exist.
 */
function namespaceLines(objects: readonly RbacObject[]): string[] {
  const created = objects.filter((o) => o.kind === 'Namespace').map((o) => o.metadata.name);
  const roles = objects.filter((o) => o.kind === 'Role');
  const roleNamespaces = [...new Set(roles.flatMap((o) => (o.metadata.namespace === undefined ? [] : [o.metadata.namespace])))];
  const holdsLease = (o: RbacObject): boolean => ((o.rules ?? []) as Array<{ resources: string[] }>).some((r) => r.resources.includes('leases'));
  const states = [...new Set(roles.filter(holdsLease).flatMap((o) => (o.metadata.namespace === undefined ? [] : [o.metadata.namespace])))];
  const toCreate = states.filter((n) => !created.includes(n));
  const others = roleNamespaces.filter((n) => !states.includes(n) && !created.includes(n));
  return [
    '# The state namespace (namespaces.state) holds the Lease and the recreation records: grant nobody else write access',
    '# there (records are signed and checked, but a genuine one can be deleted).',
    ...(created.length > 0 ? [`# Created here: ${created.join(', ')} (the state namespace).`] : []),
    ...(toCreate.length > 0 ? [
      `# NOT created here: ${toCreate.join(', ')} (a namespace you named may hold more, and \`kubectl delete -f\` of this file`,
      '# would delete it with everything in it). Create it before applying this file, or its Role fails to apply:',
      ...toCreate.map((n) => `#   kubectl create namespace ${n}`),
    ] : []),
    ...(others.length > 0 ? [`# The other namespaces with a Role here must exist before \`kubectl apply -f\`: ${others.join(', ')}.`] : []),
  ];
}

/** Block YAML, with lists of plain words on one line (`verbs: [get, list]`) as Kubernetes' own manifests write them. */
function toYaml(object: RbacObject): string {
  const document = new Document(object);
  visit(document, {
    Seq: (_key, node) => {
      if (node.items.every((item) => isScalar(item))) node.flow = true;
    },
  });
  return document.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** `group:NAME`, `user:NAME`, `serviceaccount:NAMESPACE:NAME` (CLI flags) as RBAC subjects. */
export function parseSubject(kind: 'group' | 'user' | 'service-account', value: string): RbacSubject {
  if (value.trim() === '') throw new Error(`--${kind} needs a name`);
  if (kind === 'group') return { kind: 'Group', name: value };
  if (kind === 'user') return { kind: 'User', name: value };
  const match = /^([a-z0-9]([-a-z0-9]*[a-z0-9])?):([a-z0-9]([-.a-z0-9]*[a-z0-9])?)$/.exec(value);
  if (!match) throw new Error(`--service-account must be NAMESPACE:NAME, not ${JSON.stringify(value)}`);
  return { kind: 'ServiceAccount', namespace: match[1] ?? '', name: match[3] ?? '' };
}

/**
 * What a subject's bindings add to the role's name: nothing for the default group (the names every earlier version
 * and infra/k8s/rbac.yaml use), else `-group-NAME`, `-user-NAME` or `-sa-NAMESPACE.NAME`, in the characters a name may
 * hold, with a hash of the subject when they had to change it (two subjects never share a binding).
 */
export function bindingSuffix(subject: RbacSubject): string {
  if (subject.kind === 'Group' && subject.name === defaultRbacGroup) return '';
  const exact = subject.kind === 'ServiceAccount' ? `sa-${subject.namespace}.${subject.name}` : `${subject.kind.toLowerCase()}-${subject.name}`;
  const slug = exact.toLowerCase().replace(/[^a-z0-9.-]+/g, '-').replace(/-+/g, '-').replace(/[-.]+$/, '').slice(0, 180);
  if (slug === exact) return `-${slug}`;
  return `-${slug}-${createHash('sha256').update(`${subject.kind}\0${subject.kind === 'ServiceAccount' ? subject.namespace : ''}\0${subject.name}`).digest('hex').slice(0, 8)}`;
}

function subjectOf(subject: RbacSubject): Record<string, string> {
  if (subject.kind === 'ServiceAccount') return { kind: 'ServiceAccount', name: subject.name, namespace: subject.namespace };
  return { kind: subject.kind, apiGroup: 'rbac.authorization.k8s.io', name: subject.name };
}

function rulesOf(permissions: readonly PermissionRule[]): Array<Record<string, unknown>> {
  return permissions.map((p) => ({
    apiGroups: [p.apiGroup], resources: [p.resource], ...(p.resourceNames ? { resourceNames: [...p.resourceNames] } : {}), verbs: [...p.verbs],
  }));
}

function namespaceObject(name: string): RbacObject {
  return { apiVersion: 'v1', kind: 'Namespace', metadata: { name, labels } };
}

function clusterRole(name: string, permissions: readonly PermissionRule[]): RbacObject {
  return { apiVersion: rbacApiVersion, kind: 'ClusterRole', metadata: { name, labels }, rules: rulesOf(permissions) };
}

interface BoundSubject {
  subject: Record<string, string>;
  suffix: string;
}

function clusterRoleBinding(role: string, bound: BoundSubject): RbacObject {
  return {
    apiVersion: rbacApiVersion, kind: 'ClusterRoleBinding', metadata: { name: `${role}${bound.suffix}`, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: role }, subjects: [bound.subject],
  };
}

function role(namespace: string, permissions: readonly PermissionRule[]): RbacObject {
  return { apiVersion: rbacApiVersion, kind: 'Role', metadata: { name: rbacRoleName, namespace, labels }, rules: rulesOf(permissions) };
}

function roleBinding(namespace: string, bound: BoundSubject): RbacObject {
  return {
    apiVersion: rbacApiVersion, kind: 'RoleBinding', metadata: { name: `${rbacRoleName}${bound.suffix}`, namespace, labels },
    roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: rbacRoleName }, subjects: [bound.subject],
  };
}
