// Who besides the tool may write ConfigMaps or Leases in the state namespace (issue 28 item 6), judged from RBAC
// objects as `kubectl auth who-can` does: verbs, API groups, resources and names with RBAC's wildcards, Roles and
// ClusterRoles through RoleBindings and ClusterRoleBindings. Pure: plain objects in, check results out.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { NamespaceGrants } from '../../functions/domain/rbac-grants.ts';
import { judgeStateNamespaceWriters } from '../../functions/check/state-namespace-writers.ts';
import { whoCan } from '../../functions/check/who-can.ts';
import { clusterRole, clusterRoleBinding, deployed, group, role, roleBinding, rule, serviceAccount, user } from './rbac-builders.ts';

const levels = (grants: NamespaceGrants): string[][] => judgeStateNamespaceWriters(grants).map((r) => [r.level, r.subject]);

describe('who may write in the state namespace', () => {
  it('is the tool alone on a cluster set up as the README says; the control plane is named, readers are not', () => {
    const [result, ...rest] = judgeStateNamespaceWriters(deployed());
    assert.deepEqual(rest, []);
    assert.equal(result?.level, 'ok');
    assert.equal(result?.message, 'only the tool (Group sts-volume-gitops, RoleBinding sts-volume-gitops) may write ConfigMaps or Leases here, besides the control plane '
      + '(Group system:masters, ServiceAccount kube-system/namespace-controller, User system:kube-controller-manager), and nobody else can give itself that write '
      + '(bind, escalate, impersonate, a pod or a token of a ServiceAccount that may)');
  });

  it('counts every binding `rbac` makes for a subject of its own (issue 37 item 5) as the tool\'s', () => {
    const [result, ...rest] = judgeStateNamespaceWriters(deployed({
      roleBindings: [roleBinding('sts-volume-gitops-user-alice', { kind: 'Role', name: 'sts-volume-gitops' }, [user('alice')])],
    }));
    assert.deepEqual(rest, []);
    assert.match(result?.message ?? '', /^only the tool \(Group sts-volume-gitops, RoleBinding sts-volume-gitops; User alice, RoleBinding sts-volume-gitops-user-alice\) may write/);
  });

  it('warns about a RoleBinding of a Role that lets a team write ConfigMaps, naming the subject, the binding, the role and the fix', () => {
    const results = judgeStateNamespaceWriters(deployed({
      roles: [role('team-config', [rule(['get', 'create', 'update'], ['configmaps'])])],
      roleBindings: [roleBinding('app-team-config', { kind: 'Role', name: 'team-config' }, [group('app-team'), serviceAccount('deployer')])],
    }));
    assert.deepEqual(results.map((r) => [r.level, r.subject]), [['warning', 'Group app-team'], ['warning', 'ServiceAccount sts-volume-gitops/deployer']]);
    assert.equal(results[0]?.message, 'may create, update ConfigMaps in sts-volume-gitops, the state namespace, through RoleBinding app-team-config of Role team-config: '
      + 'it can delete a genuine recreation record while its StatefulSet is absent (the set then stays absent until a person recreates it), or plant forged ones (refused and reported, every pass)');
    assert.match(results[0]?.fix ?? '', /^remove the grant: `kubectl -n sts-volume-gitops delete rolebinding app-team-config`, or bind a role without these verbs; nobody but the tool/);
  });

  it('follows ClusterRoles bound in the namespace or cluster-wide, with wildcards and the API group', () => {
    const results = judgeStateNamespaceWriters(deployed({
      clusterRoles: [
        clusterRole('edit', [rule(['create', 'delete', 'deletecollection', 'patch', 'update'], ['configmaps', 'secrets'])]),
        clusterRole('argocd-application-controller', [rule(['*'], ['*'], ['*'])]),
        clusterRole('lease-writer', [rule(['update'], ['leases'], ['*'])]),
        clusterRole('wrong-group', [rule(['update'], ['leases'], [''])]),
      ],
      roleBindings: [roleBinding('ci-edit', { kind: 'ClusterRole', name: 'edit' }, [user('ci-bot')])],
      clusterRoleBindings: [
        clusterRoleBinding('argocd-application-controller', 'argocd-application-controller', [serviceAccount('argocd-application-controller', 'argocd')]),
        clusterRoleBinding('leases', 'lease-writer', [group('ops')]),
        clusterRoleBinding('not-leases', 'wrong-group', [group('core-leases-do-not-exist')]),
      ],
    }));
    assert.deepEqual(results.map((r) => [r.subject, r.message.replace(/ in sts-volume-gitops.*? through /, ' through ').replace(/:.*$/, '')]), [
      ['User ci-bot', 'may create, update, patch, delete, deletecollection ConfigMaps through RoleBinding ci-edit of ClusterRole edit'],
      ['ServiceAccount argocd/argocd-application-controller', 'may create, update, patch, delete, deletecollection ConfigMaps; create, update, patch, delete, deletecollection Leases through ClusterRoleBinding argocd-application-controller (cluster-wide) of ClusterRole argocd-application-controller'],
      ['Group ops', 'may update Leases through ClusterRoleBinding leases (cluster-wide) of ClusterRole lease-writer'],
    ]);
    assert.match(results[2]?.message ?? '', /it can take or delete a target's Lease/);
    assert.match(results[1]?.fix ?? '', /^ClusterRoleBinding argocd-application-controller grants ClusterRole argocd-application-controller in every namespace: bind it with RoleBindings/);
  });

  it('reads resourceNames as RBAC does (no create by name), and ignores bindings of other namespaces and missing roles', () => {
    const results = judgeStateNamespaceWriters(deployed({
      roles: [
        role('named', [rule(['create', 'update', 'delete'], ['configmaps'], [''], ['sts-volume-gitops-recreate.prod.db.pg'])]),
        role('create-by-name', [rule(['create'], ['configmaps'], [''], ['anything'])]),
        role('elsewhere', [rule(['create'], ['configmaps'])], 'db'),
      ],
      roleBindings: [
        roleBinding('named', { kind: 'Role', name: 'named' }, [user('alice')]),
        roleBinding('create-by-name', { kind: 'Role', name: 'create-by-name' }, [user('bob')]),
        roleBinding('elsewhere', { kind: 'Role', name: 'elsewhere' }, [user('carol')], 'db'),
        roleBinding('dangling', { kind: 'Role', name: 'no-such-role' }, [user('dave')]),
      ],
    }));
    assert.deepEqual(results.map((r) => [r.subject, r.message.replace(/ in sts-volume-gitops.*$/, '')]), [
      ['User alice', 'may update, delete ConfigMaps "sts-volume-gitops-recreate.prod.db.pg"'],
    ]);
  });

  it('treats whoever the tool\'s RoleBinding binds as the tool, warns when that is everyone, and says when it is missing', () => {
    const everyone = deployed();
    everyone.roleBindings[0] = roleBinding('sts-volume-gitops', { kind: 'Role', name: 'sts-volume-gitops' }, [serviceAccount('sts-volume-gitops', 'ops'), group('system:authenticated')]);
    assert.deepEqual(levels(everyone), [['warning', 'Group system:authenticated']]);
    const missing = deployed();
    missing.roleBindings = [];
    assert.deepEqual(levels(missing), [['warning', 'RoleBinding sts-volume-gitops']]);
    assert.match(judgeStateNamespaceWriters(missing)[0]?.fix ?? '', /apply the manifest `npx sts-volume-gitops rbac --config FILE` generates/);
    // It says what follows it, never "listed below" with nothing below (issue 37 item 14).
    assert.match(judgeStateNamespaceWriters(missing)[0]?.message ?? '', /the tool's identity is not bound there, so it may not write there either$/);
    const others = deployed({ roles: [role('team', [rule(['create'], ['configmaps'])])], roleBindings: [roleBinding('team', { kind: 'Role', name: 'team' }, [group('app-team')])] });
    others.roleBindings = others.roleBindings.filter((b) => b.name !== 'sts-volume-gitops');
    assert.match(judgeStateNamespaceWriters(others)[0]?.message ?? '', /is said after this as another \(1 line\)$/);
    // The same ServiceAccount bound elsewhere is still the tool; another of the same name in another namespace is not.
    const sa = deployed({ clusterRoles: [clusterRole('cm-writer', [rule(['update'], ['configmaps'])])], clusterRoleBindings: [clusterRoleBinding('cm', 'cm-writer', [serviceAccount('tool', 'ops'), serviceAccount('tool', 'apps')])] });
    sa.roleBindings[0] = roleBinding('sts-volume-gitops', { kind: 'Role', name: 'sts-volume-gitops' }, [serviceAccount('tool', 'ops')]);
    assert.deepEqual(levels(sa), [['warning', 'ServiceAccount apps/tool']]);
  });

  it('is what whoCan returns for one resource: one entry per subject and binding', () => {
    const grants = deployed({ roleBindings: [roleBinding('two', { kind: 'ClusterRole', name: 'cluster-admin' }, [user('a'), user('b')])] });
    const found = whoCan(grants, [{ apiGroup: '', resource: 'configmaps' }], ['delete']).map((g) => `${g.subject.name} ${g.binding.kind}/${g.binding.name}`);
    assert.deepEqual(found, ['sts-volume-gitops RoleBinding/sts-volume-gitops', 'a RoleBinding/two', 'b RoleBinding/two', 'system:masters ClusterRoleBinding/cluster-admin', 'namespace-controller ClusterRoleBinding/system:controller:namespace-controller']);
  });
});
