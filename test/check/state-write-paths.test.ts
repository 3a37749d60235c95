// Who can give itself write on ConfigMaps or Leases in the state namespace without holding it: `bind` with
// rolebindings, `escalate` on a role bound to it, `impersonate`, a pod (or a workload, or a token Secret) that runs as
// a ServiceAccount of the namespace that writes, a token of such a ServiceAccount. Each as the RBAC docs ("Restrictions
// on role creation or update", "... role binding creation or update") and the API server's impersonation filter read
// them: what is no path (escalate with rolebindings alone, groups without a user, users through a RoleBinding) is no
// warning. Pure: plain objects in, check results out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { judgeStateNamespaceWriters } from '../../functions/check/state-namespace-writers.ts';
import type { NamespaceGrants } from '../../functions/domain/rbac-grants.ts';
import { clusterRole, clusterRoleBinding, deployed, group, role, roleBinding, rule, serviceAccount, user } from './rbac-builders.ts';

const rbac = 'rbac.authorization.k8s.io';
const everyWrite = 'create, update, patch, delete, deletecollection ConfigMaps; create, update, patch, delete, deletecollection Leases';

/** The warnings, as `subject: message` with the harm (said by the direct warnings' test) cut off. */
function warnings(grants: NamespaceGrants): string[] {
  return judgeStateNamespaceWriters(grants).filter((r) => r.level === 'warning').map((r) => `${r.subject}: ${r.message.replace(/, the state namespace[;,] .*$/, '')}`);
}

/** A user bound to one ClusterRole of `rules`: through a RoleBinding in the state namespace, or cluster-wide. */
function granted(name: string, rules: ReturnType<typeof rule>[], how: 'here' | 'cluster-wide' = 'cluster-wide'): Partial<NamespaceGrants> {
  return how === 'here'
    ? { clusterRoles: [clusterRole(name, rules)], roleBindings: [roleBinding(name, { kind: 'ClusterRole', name }, [user(name)])] }
    : { clusterRoles: [clusterRole(name, rules)], clusterRoleBindings: [clusterRoleBinding(name, name, [user(name)])] };
}

/** A ServiceAccount of the state namespace that may update ConfigMaps there (a backup job's, say). */
const backupWrites: Partial<NamespaceGrants> = {
  roles: [role('backup', [rule(['get', 'update'], ['configmaps'])])],
  roleBindings: [roleBinding('backup', { kind: 'Role', name: 'backup' }, [serviceAccount('backup')])],
};
const backupWarning = 'ServiceAccount sts-volume-gitops/backup: may update ConfigMaps in sts-volume-gitops';

function merged(...parts: Partial<NamespaceGrants>[]): NamespaceGrants {
  return deployed({
    roles: parts.flatMap((p) => p.roles ?? []), roleBindings: parts.flatMap((p) => p.roleBindings ?? []),
    clusterRoles: parts.flatMap((p) => p.clusterRoles ?? []), clusterRoleBindings: parts.flatMap((p) => p.clusterRoleBindings ?? []),
  });
}

describe('who can give itself write in the state namespace', () => {
  it('bind with create on rolebindings: binds a role that writes, naming the subject, the binding, the path and the fix', () => {
    const results = judgeStateNamespaceWriters(merged(granted('rbac-helper', [rule(['bind'], ['clusterroles'], [rbac]), rule(['create'], ['rolebindings'], [rbac])], 'here')));
    assert.deepEqual(results.map((r) => [r.level, r.subject]), [['warning', 'User rbac-helper']]);
    assert.equal(results[0]?.message, `can bind any ClusterRole in sts-volume-gitops and create RoleBindings there, through RoleBinding rbac-helper of ClusterRole rbac-helper: `
      + `binding ClusterRole cluster-admin to itself, it may ${everyWrite} in sts-volume-gitops, the state namespace; it can delete a genuine recreation record while its `
      + 'StatefulSet is absent (the set then stays absent until a person recreates it), or plant forged ones (refused and reported, every pass); it can take or delete '
      + 'a target\'s Lease (passes stop as busy, or run beside one another)');
    assert.equal(results[0]?.fix, 'remove `bind` on roles and clusterroles, or create, update and patch on rolebindings from what User rbac-helper is granted: '
      + '`kubectl -n sts-volume-gitops delete rolebinding rbac-helper`, or bind a role without these verbs; nobody but the tool may write ConfigMaps or Leases '
      + 'in the state namespace (README, "Recreation records"), nor give itself that write');
    const clusterWide = judgeStateNamespaceWriters(merged(granted('helpdesk', [rule(['impersonate'], ['users'], [''], ['system:kube-controller-manager'])])));
    assert.equal(clusterWide[0]?.fix, 'remove `impersonate` from what User helpdesk is granted: take these verbs out of ClusterRole helpdesk, which ClusterRoleBinding '
      + 'helpdesk grants cluster-wide; nobody but the tool may write ConfigMaps or Leases in the state namespace (README, "Recreation records"), nor give itself that write');
  });

  it('bind: by name, with wildcards, through two bindings, or updating a binding whose role writes; not without both verbs, nor for a role that does not write', () => {
    const helper = (rules: ReturnType<typeof rule>[], how: 'here' | 'cluster-wide' = 'cluster-wide') => warnings(merged(granted('helper', rules, how)));
    const createBindings = rule(['create'], ['rolebindings'], [rbac]);
    assert.deepEqual(helper([rule(['bind'], ['clusterroles'], [rbac], ['view', 'cluster-admin']), createBindings]), [
      `User helper: can bind ClusterRole cluster-admin in sts-volume-gitops and create RoleBindings there, through ClusterRoleBinding helper (cluster-wide) of ClusterRole helper: binding ClusterRole cluster-admin to itself, it may ${everyWrite} in sts-volume-gitops`,
    ]);
    assert.deepEqual(helper([rule(['*'], ['roles', 'rolebindings'], ['*'])]), [
      'User helper: can bind any Role in sts-volume-gitops and create RoleBindings there, through ClusterRoleBinding helper (cluster-wide) of ClusterRole helper: '
      + 'binding Role sts-volume-gitops to itself, it may create, update, delete ConfigMaps; create Leases in sts-volume-gitops',
    ]);
    assert.deepEqual(helper([rule(['bind'], ['clusterroles'], [rbac], ['view']), createBindings]), [], 'view writes nothing');
    assert.deepEqual(helper([rule(['bind'], ['clusterroles'], [rbac])]), [], 'bind alone');
    assert.deepEqual(helper([createBindings]), [], 'rolebindings alone: binding needs bind or the role\'s own permissions');
    assert.deepEqual(helper([rule(['escalate'], ['roles', 'clusterroles'], [rbac]), createBindings]), [], 'escalate with rolebindings alone: the binding still needs bind');
    // Two bindings of one user, one granting each verb.
    const split = warnings(merged(
      granted('binder', [rule(['bind'], ['clusterroles'], [rbac])]), granted('binder-bindings', [createBindings], 'here'),
      { roleBindings: [roleBinding('binder-bindings', { kind: 'ClusterRole', name: 'binder-bindings' }, [user('binder')])] },
    ));
    assert.deepEqual(split, [`User binder: can bind any ClusterRole in sts-volume-gitops and create RoleBindings there, through ClusterRoleBinding binder (cluster-wide) of ClusterRole binder and RoleBinding binder-bindings of ClusterRole binder-bindings: binding ClusterRole cluster-admin to itself, it may ${everyWrite} in sts-volume-gitops`]);
    // Updating an existing binding adds oneself to its subjects (its roleRef cannot change): bind is still needed on its role.
    const update = merged(backupWrites, granted('joiner', [rule(['patch'], ['rolebindings'], [rbac], ['backup']), rule(['bind'], ['roles'], [rbac], ['backup'])]));
    assert.deepEqual(warnings(update), [backupWarning, 'User joiner: can bind Role backup in sts-volume-gitops and update RoleBinding backup there, through ClusterRoleBinding joiner (cluster-wide) of ClusterRole joiner: binding Role backup to itself, it may update ConfigMaps in sts-volume-gitops']);
  });

  it('escalate with update of a role bound to it, or create of a bound role that does not exist; a ClusterRole only cluster-wide', () => {
    const selfEditing = merged({
      roles: [role('alice', [rule(['get', 'update', 'escalate'], ['roles'], [rbac], ['alice'])])],
      roleBindings: [roleBinding('alice', { kind: 'Role', name: 'alice' }, [user('alice')])],
    });
    assert.deepEqual(warnings(selfEditing), [`User alice: can escalate and update Role alice in sts-volume-gitops, which RoleBinding alice binds to it, through RoleBinding alice of Role alice: writing any rule into it, it may ${everyWrite} in sts-volume-gitops`]);
    const dangling = merged(granted('bob', [rule(['create', 'escalate'], ['roles'], [rbac])]), { roleBindings: [roleBinding('future', { kind: 'Role', name: 'not-yet' }, [user('bob')])] });
    assert.deepEqual(warnings(dangling), [`User bob: can escalate and create Role not-yet in sts-volume-gitops, which does not exist and RoleBinding future binds to it, through ClusterRoleBinding bob (cluster-wide) of ClusterRole bob and RoleBinding future of Role not-yet: writing any rule into it, it may ${everyWrite} in sts-volume-gitops`]);
    // A ClusterRole is written at the cluster scope: escalate granted through a RoleBinding does not reach it.
    assert.deepEqual(warnings(merged(granted('carol', [rule(['update', 'escalate'], ['clusterroles'], [rbac])], 'here'))), []);
    assert.match(warnings(merged(granted('carol', [rule(['update', 'escalate'], ['clusterroles'], [rbac])])))[0] ?? '', /^User carol: can escalate and update ClusterRole carol, which ClusterRoleBinding carol binds to it, through ClusterRoleBinding carol \(cluster-wide\) of ClusterRole carol:/);
    // Escalate by name on another role, or update without escalate, is no path.
    assert.deepEqual(warnings(merged({ roles: [role('dave', [rule(['update'], ['roles'], [rbac]), rule(['escalate'], ['roles'], [rbac], ['other'])])], roleBindings: [roleBinding('dave', { kind: 'Role', name: 'dave' }, [user('dave')])] })), []);
  });

  it('impersonate: any identity that may write (the tool and the control plane too); groups only with a user; users only cluster-wide', () => {
    assert.deepEqual(warnings(merged(granted('helpdesk', [rule(['impersonate'], ['users', 'groups'])]))), [
      `User helpdesk: can impersonate Group sts-volume-gitops, Group system:masters, User system:kube-controller-manager, through ClusterRoleBinding helpdesk (cluster-wide) of ClusterRole helpdesk: as them, it may ${everyWrite} in sts-volume-gitops`,
    ]);
    assert.deepEqual(warnings(merged(granted('groupie', [rule(['impersonate'], ['groups'])]))), [], 'the server refuses groups without a user');
    assert.deepEqual(warnings(merged(granted('here', [rule(['impersonate'], ['users', 'groups'])], 'here'))), [], 'users and groups are cluster-scoped: a RoleBinding grants nothing on them');
    assert.deepEqual(warnings(merged(granted('named', [rule(['impersonate'], ['users'], [''], ['alice'])]))), [], 'alice may not write there');
    assert.deepEqual(warnings(merged(backupWrites, granted('sa-user', [rule(['impersonate'], ['serviceaccounts'], [''], ['backup'])], 'here'))), [
      backupWarning, 'User sa-user: can impersonate ServiceAccount sts-volume-gitops/backup, through RoleBinding sa-user of ClusterRole sa-user: as it, it may update ConfigMaps in sts-volume-gitops',
    ]);
  });

  it('a pod, a workload or a token Secret in the namespace runs as a ServiceAccount there that writes; none without one', () => {
    const deployer = granted('deployer', [rule(['create'], ['deployments'], ['apps'])], 'here');
    assert.deepEqual(warnings(merged(backupWrites, deployer)), [backupWarning,
      'User deployer: can create Deployments in sts-volume-gitops, through RoleBinding deployer of ClusterRole deployer: running a pod there as ServiceAccount sts-volume-gitops/backup, it may update ConfigMaps in sts-volume-gitops']);
    assert.deepEqual(warnings(merged(deployer)), [], 'no ServiceAccount there may write');
    const elsewhere = { clusterRoles: [clusterRole('cm-writer', [rule(['update'], ['configmaps'])])], clusterRoleBindings: [clusterRoleBinding('ci', 'cm-writer', [serviceAccount('ci', 'ci')])] };
    assert.deepEqual(warnings(merged(elsewhere, deployer)).slice(1), [], 'a pod in the state namespace cannot run as a ServiceAccount of another');
    assert.match(warnings(merged(backupWrites, granted('anything', [rule(['*'], ['pods'], ['*'])], 'here')))[1] ?? '', /^User anything: can create Pods in sts-volume-gitops, /);
    assert.match(warnings(merged(backupWrites, granted('secrets', [rule(['create'], ['secrets'])], 'here')))[1] ?? '',
      /^User secrets: can create Secrets in sts-volume-gitops, .*: with a Secret of type kubernetes.io\/service-account-token for ServiceAccount sts-volume-gitops\/backup, which the control plane fills with its token, it may update ConfigMaps/);
  });

  it('a token of a ServiceAccount that writes, by name or with */token; serviceaccounts/* is no match, and another namespace needs a ClusterRoleBinding', () => {
    const token = (rules: ReturnType<typeof rule>[], how: 'here' | 'cluster-wide' = 'here') => warnings(merged(backupWrites, granted('minter', rules, how))).slice(1);
    const path = 'User minter: can create tokens for ServiceAccount sts-volume-gitops/backup, through RoleBinding minter of ClusterRole minter: with one, it may update ConfigMaps in sts-volume-gitops';
    assert.deepEqual(token([rule(['create'], ['serviceaccounts/token'], [''], ['backup'])]), [path]);
    assert.deepEqual(token([rule(['create'], ['*/token'])]), [path]);
    assert.deepEqual(token([rule(['create'], ['serviceaccounts/token'], [''], ['other'])]), []);
    assert.deepEqual(token([rule(['create'], ['serviceaccounts/*'])]), [], 'RBAC matches */token, not serviceaccounts/*');
    assert.deepEqual(token([rule(['create'], ['serviceaccounts'])]), [], 'the subresource is not the resource');
    const ci = { clusterRoles: [clusterRole('cm-writer', [rule(['update'], ['configmaps'])])], clusterRoleBindings: [clusterRoleBinding('ci', 'cm-writer', [serviceAccount('ci', 'ci')])] };
    const tokenFor = (how: 'here' | 'cluster-wide') => warnings(merged(ci, granted('minter', [rule(['create'], ['serviceaccounts/token'], [''], ['ci'])], how))).slice(1);
    assert.deepEqual(tokenFor('here'), [], 'a RoleBinding in the state namespace grants nothing on ServiceAccounts of another');
    assert.match(tokenFor('cluster-wide')[0] ?? '', /^User minter: can create tokens for ServiceAccount ci\/ci, through ClusterRoleBinding minter/);
    // The control plane's ServiceAccounts write too: a token of kube-system's namespace controller deletes records.
    assert.match(warnings(merged(granted('minter', [rule(['create'], ['serviceaccounts/token'])])))[0] ?? '',
      /^User minter: can create tokens for ServiceAccount kube-system\/namespace-controller, .*: with one, it may delete, deletecollection ConfigMaps; delete, deletecollection Leases/);
  });

  it('passes over the tool and the control plane, says nothing more of a writer whose path is its own write binding, and follows grants of everyone', () => {
    // The tool's group and kube-system's ServiceAccounts may create pods there: they are not warned about.
    const quiet = merged({
      clusterRoles: [clusterRole('pod-maker', [rule(['create'], ['pods'])])],
      clusterRoleBindings: [clusterRoleBinding('pod-makers', 'pod-maker', [group('sts-volume-gitops'), serviceAccount('replicaset-controller', 'kube-system')])],
    }, backupWrites);
    assert.deepEqual(warnings(quiet), [backupWarning]);
    // cluster-admin bound to a user: told once, for the write itself.
    assert.deepEqual(warnings(merged({ clusterRoleBindings: [clusterRoleBinding('root', 'cluster-admin', [user('root')])] })).map((w) => w.replace(/ in sts-volume-gitops.*$/, '')),
      [`User root: may ${everyWrite}`]);
    // Everyone may create RoleBindings there; one user may bind: that user is warned, through both bindings.
    const everyone = warnings(merged(
      { roleBindings: [roleBinding('everyone-binds', { kind: 'ClusterRole', name: 'binding-writer' }, [group('system:authenticated')])], clusterRoles: [clusterRole('binding-writer', [rule(['create'], ['rolebindings'], [rbac])])] },
      granted('eve', [rule(['bind'], ['clusterroles'], [rbac], ['edit', 'cluster-admin'])]),
    ));
    assert.deepEqual(everyone, [`User eve: can bind ClusterRole cluster-admin in sts-volume-gitops and create RoleBindings there, through ClusterRoleBinding eve (cluster-wide) of ClusterRole eve and RoleBinding everyone-binds of ClusterRole binding-writer: binding ClusterRole cluster-admin to itself, it may ${everyWrite} in sts-volume-gitops`]);
  });
});
