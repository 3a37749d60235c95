// How an identity that may not write ConfigMaps or Leases in the state namespace can give itself that write (pure),
// by the paths Kubernetes leaves open (RBAC docs, "Privilege escalation prevention and bootstrapping"; RBAC good
// practices):
// - bind: a RoleBinding may be created or updated by whoever holds `bind` on the role it refers to (resource `roles`
//   or `clusterroles`, the role's name, asked in the binding's namespace), so `bind` with create (or update/patch of a
//   binding) on rolebindings there attaches a role that writes;
// - escalate: a Role or ClusterRole may be given rules one does not hold by whoever holds `escalate` on it (its name,
//   its namespace), so `escalate` with update/patch of a role bound to oneself, or create of a bound role that does not
//   exist, adds the write. `escalate` with rolebindings alone is no path: binding the new role still needs `bind`;
// - impersonate: users and groups at the cluster scope (a group only together with a user, or the server refuses),
//   ServiceAccounts in their namespace;
// - a pod in the state namespace (or a workload that makes pods, or a Secret of type service-account-token) runs as,
//   or is given a token of, any ServiceAccount there; `create` on serviceaccounts/token mints one for that account.
// What is gained is what the identity acted as (or the role bound) may write, so each path names it. Not followed:
// who is in which group (an identity's groups are the authenticator's to say), RoleBindings of other namespaces (not
// read: a ServiceAccount elsewhere is reached only through ClusterRoleBindings here), whether a ServiceAccount a
// binding names exists, a new ClusterRole joining an aggregated one (aggregationRule is not read), chains of steps.
import type { BindingSubject, NamespaceGrants } from '../domain/rbac-grants.ts';
import { count } from '../domain/spelling.ts';
import {
  boundGrants, describeSubject, permittedObjects, permittedOn, rulesAllow, sameSubject,
  type Allowed, type BoundGrant, type Grantee, type PermittedObjects, type ResourceRef,
} from './who-can.ts';

export const configMaps: ResourceRef = { apiGroup: '', resource: 'configmaps' };
export const leases: ResourceRef = { apiGroup: 'coordination.k8s.io', resource: 'leases' };
export const writeVerbs = ['create', 'update', 'patch', 'delete', 'deletecollection'];

const rbacGroup = 'rbac.authorization.k8s.io';
/** What a role one may write rules into grants: anything. */
const everyWrite: Allowed[] = [configMaps, leases].map((resource) => ({ resource, verbs: [...writeVerbs], names: [] }));

/** What makes a pod in the namespace it is created in, and so can run as any ServiceAccount there. */
const podMakers: ReadonlyArray<ResourceRef & { word: string }> = [
  { apiGroup: '', resource: 'pods', word: 'Pods' },
  { apiGroup: 'apps', resource: 'deployments', word: 'Deployments' },
  { apiGroup: 'apps', resource: 'statefulsets', word: 'StatefulSets' },
  { apiGroup: 'apps', resource: 'daemonsets', word: 'DaemonSets' },
  { apiGroup: 'apps', resource: 'replicasets', word: 'ReplicaSets' },
  { apiGroup: 'batch', resource: 'jobs', word: 'Jobs' },
  { apiGroup: 'batch', resource: 'cronjobs', word: 'CronJobs' },
  { apiGroup: '', resource: 'replicationcontrollers', word: 'ReplicationControllers' },
];

export type WritePathKind = 'bind' | 'escalate' | 'impersonate' | 'run-as' | 'token';

/** One way `holder` can give itself the write, and the bindings that open it. */
export interface WritePath {
  holder: BindingSubject;
  kind: WritePathKind;
  /** `can bind any ClusterRole in sts-volume-gitops and create RoleBindings there`. */
  can: string;
  /** How it then writes: `binding ClusterRole edit to itself`, `as them`. */
  then: string;
  /** What it would then write in the namespace. */
  allowed: Allowed[];
  /** The bindings that open the path, the holder's own first. */
  through: BoundGrant[];
  /** The verbs to take away: `` `impersonate` ``. */
  verbs: string;
}

/** Someone who may write there (the tool and the control plane included: acting as them is a way in). */
interface Writer {
  subject: BindingSubject;
  allowed: Allowed[];
}

interface Scene {
  grants: NamespaceGrants;
  namespace: string;
  writers: Writer[];
}

/** The writers, one per identity with everything its bindings allow; system:masters, which RBAC never asks, always writes. */
function writersOf(grantees: readonly Grantee[]): Writer[] {
  const writers: Writer[] = [];
  for (const grantee of grantees) {
    const known = writers.find((w) => sameSubject(w.subject, grantee.subject));
    if (known) known.allowed.push(...grantee.allowed);
    else writers.push({ subject: grantee.subject, allowed: [...grantee.allowed] });
  }
  const masters: BindingSubject = { kind: 'Group', name: 'system:masters', namespace: undefined };
  if (!writers.some((w) => sameSubject(w.subject, masters))) writers.push({ subject: masters, allowed: everyWrite });
  return writers;
}

/** Groups every identity of its kind is in: what they are granted, it is too. */
function everyoneGroupsOf(subject: BindingSubject): string[] {
  return ['system:authenticated', ...(subject.kind === 'ServiceAccount' ? ['system:serviceaccounts', `system:serviceaccounts:${subject.namespace ?? ''}`] : [])];
}

function first(permitted: PermittedObjects): BoundGrant | undefined {
  return permitted.all ?? permitted.named.values().next().value;
}

function bindPath(scene: Scene, held: readonly BoundGrant[]): Omit<WritePath, 'holder'> | undefined {
  const { grants, namespace } = scene;
  const roleBindings = { apiGroup: rbacGroup, resource: 'rolebindings' };
  const create = permittedOn(permittedObjects(held, { ...roleBindings, verb: 'create' }), undefined);
  const rewrite = ['update', 'patch'].map((verb) => permittedObjects(held, { ...roleBindings, verb }));
  // The roles it may attach itself to: any, with create; an existing binding's (its roleRef cannot change) with update.
  const attachable: Array<{ kind: string; name: string; via: BoundGrant; how: string }> = [];
  if (create) {
    for (const role of [...grants.roles.filter((r) => r.namespace === namespace), ...grants.clusterRoles]) {
      attachable.push({ kind: role.kind, name: role.name, via: create, how: 'create RoleBindings there' });
    }
  }
  for (const binding of grants.roleBindings.filter((b) => b.namespace === namespace)) {
    const via = rewrite.map((p) => permittedOn(p, binding.name)).find((g) => g !== undefined);
    if (via) attachable.push({ ...binding.roleRef, via, how: `update RoleBinding ${binding.name} there` });
  }
  const bindable = {
    Role: permittedObjects(held, { apiGroup: rbacGroup, resource: 'roles', verb: 'bind' }),
    ClusterRole: permittedObjects(held, { apiGroup: rbacGroup, resource: 'clusterroles', verb: 'bind' }),
  };
  for (const target of attachable) {
    if (target.kind !== 'Role' && target.kind !== 'ClusterRole') continue;
    const role = target.kind === 'Role'
      ? grants.roles.find((r) => r.name === target.name && r.namespace === namespace)
      : grants.clusterRoles.find((r) => r.name === target.name);
    const allowed = rulesAllow(role?.rules ?? [], [configMaps, leases], writeVerbs);
    const bind = permittedOn(bindable[target.kind], target.name);
    if (allowed.length === 0 || !bind) continue;
    return {
      kind: 'bind', can: `can bind ${bindable[target.kind].all ? `any ${target.kind}` : `${target.kind} ${target.name}`} in ${namespace} and ${target.how}`,
      then: `binding ${target.kind} ${target.name} to itself`, allowed, through: [bind, target.via],
      verbs: '`bind` on roles and clusterroles, or create, update and patch on rolebindings',
    };
  }
  return undefined;
}

function escalatePath(scene: Scene, holder: BindingSubject, held: readonly BoundGrant[]): Omit<WritePath, 'holder'> | undefined {
  for (const bound of held) {
    const { kind, name } = bound.role;
    if (kind !== 'Role' && kind !== 'ClusterRole') continue;
    // A Role is written in its namespace; a ClusterRole at the cluster scope, which only ClusterRoleBindings grant.
    const asked = { apiGroup: rbacGroup, resource: kind === 'Role' ? 'roles' : 'clusterroles', clusterWideOnly: kind === 'ClusterRole' };
    const exists = bound.rules !== undefined;
    // Creating names no object, so only an escalate without resourceNames covers it.
    const escalate = permittedOn(permittedObjects(held, { ...asked, verb: 'escalate' }), exists ? name : undefined);
    const write = (exists ? ['update', 'patch'] : ['create'])
      .map((verb) => permittedOn(permittedObjects(held, { ...asked, verb }), exists ? name : undefined)).find((g) => g !== undefined);
    if (!escalate || !write) continue;
    const where = kind === 'Role' ? ` in ${scene.namespace}` : '';
    const to = sameSubject(bound.subject, holder) ? 'it' : describeSubject(bound.subject);
    return {
      kind: 'escalate',
      can: exists ? `can escalate and update ${kind} ${name}${where}, which ${bound.binding.kind} ${bound.binding.name} binds to ${to}`
        : `can escalate and create ${kind} ${name}${where}, which does not exist and ${bound.binding.kind} ${bound.binding.name} binds to ${to}`,
      then: 'writing any rule into it', allowed: everyWrite, through: [escalate, write, bound], verbs: '`escalate` on roles and clusterroles',
    };
  }
  return undefined;
}

function impersonatePath(scene: Scene, holder: BindingSubject, held: readonly BoundGrant[]): Omit<WritePath, 'holder'> | undefined {
  const ask = (resource: string, clusterWideOnly: boolean): PermittedObjects => permittedObjects(held, { apiGroup: '', resource, verb: 'impersonate', clusterWideOnly });
  const users = ask('users', true);
  const groups = ask('groups', true);
  const accountsAnywhere = ask('serviceaccounts', true);
  const accountsHere = ask('serviceaccounts', false);
  // The server refuses groups asked for without a user (or a ServiceAccount) to act as.
  const someUser = first(users) ?? first(accountsAnywhere) ?? first(accountsHere);
  const actAs: Array<{ writer: Writer; via: BoundGrant[] }> = [];
  for (const writer of scene.writers) {
    const { kind, name, namespace } = writer.subject;
    if (sameSubject(writer.subject, holder)) continue;
    // A user named system:serviceaccount:NS:NAME is impersonated as that ServiceAccount (serviceaccounts, not users).
    const via = kind === 'User' && !name.startsWith('system:serviceaccount:') ? [permittedOn(users, name)]
      : kind === 'Group' ? [permittedOn(groups, name), someUser]
        : kind === 'ServiceAccount' ? [permittedOn(namespace === scene.namespace ? accountsHere : accountsAnywhere, name)]
          : [undefined];
    if (via.every((g) => g !== undefined)) actAs.push({ writer, via: via.filter((g) => g !== undefined) });
  }
  if (actAs.length === 0) return undefined;
  const named = actAs.slice(0, 3).map((a) => describeSubject(a.writer.subject));
  const more = actAs.length > named.length ? ` and ${actAs.length - named.length} more that may write there` : '';
  return {
    kind: 'impersonate', can: `can impersonate ${named.join(', ')}${more}`, then: actAs.length === 1 ? 'as it' : 'as them',
    allowed: actAs.flatMap((a) => a.writer.allowed), through: [...new Set(actAs.flatMap((a) => a.via))], verbs: '`impersonate`',
  };
}

function runAsPath(scene: Scene, holder: BindingSubject, held: readonly BoundGrant[]): Omit<WritePath, 'holder'> | undefined {
  const accounts = scene.writers.filter((w) => w.subject.kind === 'ServiceAccount' && w.subject.namespace === scene.namespace && !sameSubject(w.subject, holder));
  const account = accounts[0];
  if (!account) return undefined;
  const others = accounts.length > 1 ? ` (or ${count(accounts.length - 1, 'other ServiceAccount')} there that may write)` : '';
  for (const maker of podMakers) {
    const via = permittedOn(permittedObjects(held, { ...maker, verb: 'create' }), undefined);
    if (!via) continue;
    return {
      kind: 'run-as', can: `can create ${maker.word} in ${scene.namespace}`, then: `running a pod there as ${describeSubject(account.subject)}${others}`,
      allowed: account.allowed, through: [via], verbs: '`create` on pods and on the workloads that make pods (Deployments, Jobs...)',
    };
  }
  const secret = permittedOn(permittedObjects(held, { apiGroup: '', resource: 'secrets', verb: 'create' }), undefined);
  if (!secret) return undefined;
  return {
    kind: 'run-as', can: `can create Secrets in ${scene.namespace}`,
    then: `with a Secret of type kubernetes.io/service-account-token for ${describeSubject(account.subject)}${others}, which the control plane fills with its token`,
    allowed: account.allowed, through: [secret], verbs: '`create` on secrets',
  };
}

function tokenPath(scene: Scene, holder: BindingSubject, held: readonly BoundGrant[]): Omit<WritePath, 'holder'> | undefined {
  for (const writer of scene.writers) {
    const { kind, name, namespace } = writer.subject;
    if (kind !== 'ServiceAccount' || sameSubject(writer.subject, holder)) continue;
    const asked = { apiGroup: '', resource: 'serviceaccounts', subresource: 'token', verb: 'create', clusterWideOnly: namespace !== scene.namespace };
    const via = permittedOn(permittedObjects(held, asked), name);
    if (!via) continue;
    return {
      kind: 'token', can: `can create tokens for ${describeSubject(writer.subject)}`, then: 'with one', allowed: writer.allowed, through: [via],
      verbs: '`create` on serviceaccounts/token',
    };
  }
  return undefined;
}

/** Bindings as one key each, to compare the bindings of paths. */
const bindingKey = (grant: Pick<BoundGrant, 'binding'>): string => `${grant.binding.kind}/${grant.binding.namespace ?? ''}/${grant.binding.name}`;

/**
 * Every path by which an identity other than those `skip` passes over can give itself write on ConfigMaps or Leases in
 * `grants.namespace`. `writers` are those who may write there already (whoCan): acting as one of them is a path, and a
 * writer whose path goes only through the bindings that already let it write is not told twice.
 */
export function stateWritePaths(grants: NamespaceGrants, writers: readonly Grantee[], skip: (subject: BindingSubject) => boolean): WritePath[] {
  const scene: Scene = { grants, namespace: grants.namespace, writers: writersOf(writers) };
  const all = boundGrants(grants);
  const holders: BindingSubject[] = [];
  for (const grant of all) {
    if (!skip(grant.subject) && !holders.some((h) => sameSubject(h, grant.subject))) holders.push(grant.subject);
  }
  const paths: WritePath[] = [];
  for (const holder of holders) {
    const own = all.filter((g) => sameSubject(g.subject, holder));
    const everyone = everyoneGroupsOf(holder);
    const held = [...own, ...all.filter((g) => g.subject.kind === 'Group' && everyone.includes(g.subject.name) && !own.includes(g))];
    const direct = new Set(writers.filter((w) => sameSubject(w.subject, holder)).map(bindingKey));
    const found = [bindPath(scene, held), escalatePath(scene, holder, held), impersonatePath(scene, holder, held), runAsPath(scene, holder, held), tokenPath(scene, holder, held)];
    for (const path of found) {
      if (!path) continue;
      // A path through bindings of everyone alone is everyone's to report; one through its own write bindings alone is said already.
      if (!path.through.some((g) => own.includes(g)) || path.through.every((g) => direct.has(bindingKey(g)))) continue;
      const through = [...path.through.filter((g) => own.includes(g)), ...path.through.filter((g) => !own.includes(g))];
      paths.push({ holder, ...path, through: through.filter((g, i) => through.findIndex((o) => bindingKey(o) === bindingKey(g)) === i) });
    }
  }
  return paths;
}
