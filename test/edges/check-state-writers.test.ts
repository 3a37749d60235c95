// `check` names who besides the tool may write ConfigMaps or Leases in the state namespace (issue 28 item 6), read
// from the RBAC objects of the Kubernetes sandbox (which enforces them) through client-node: nobody on a cluster set
// up as the README says; a RoleBinding that lets a team write ConfigMaps there, and a ClusterRoleBinding of "*", named
// with their subjects; the tool's own identity, which may not list RBAC objects, told who can tell. Nothing is written.
import assert from 'node:assert/strict';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { KubeAccessProbe } from '../../functions/adapters/kube/access-probe.ts';
import { defaultRbacGroup, rbacObjects } from '../../functions/app/rbac-manifest.ts';
import { probeCluster } from '../../functions/check/probe-cluster.ts';
import type { CheckResult } from '../../functions/check/check-result.ts';
import { parseConfig, type TargetConfig } from '../../functions/domain/config.ts';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';

const configMapType = mustResourceType('v1', 'ConfigMap');

const state = 'sts-volume-gitops';
const rbacGroup = 'rbac.authorization.k8s.io';

function kubeConfigAt(path: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(path);
  return config;
}

describe('check: who else may write in the state namespace', () => {
  let dir: string;
  let kube: KubeSandbox;
  let target: TargetConfig;
  let toolKubeconfig: string;

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'sts-state-writers-'));
    kube = await startKubeSandbox({ seed: { namespaces: ['db'], storageClasses: [], statefulSets: [] }, workDir: join(dir, 'kube') });
    [target] = parseConfig(`targets:
  - name: prod
    source: { local: { directory: ./repo, paths: ["**/*.yaml"] } }
    cluster: { kubeconfig: { path: ${JSON.stringify(kube.kubeconfigPath)} } }
    namespaces: { allow: [db] }
`, 'config.yaml', dir).targets as [TargetConfig];
    await applyObjects(kube, rbacObjects([target]));
    toolKubeconfig = (await kube.addIdentity({ name: 'the-tool', groups: [defaultRbacGroup] })).kubeconfigPath;
  });
  after(async () => {
    await kube.close();
    await rm(dir, { recursive: true, force: true });
  });

  const stateWriters = async (kubeconfigPath: string): Promise<CheckResult[]> =>
    (await probeCluster(target, kubeConfigAt(kubeconfigPath), undefined)).filter((r) => r.id === 'cluster.state-writers');

  it('finds only the tool under the generated RBAC, and writes nothing', async () => {
    kube.requestLog.reset();
    const results = await stateWriters(kube.kubeconfigPath);
    assert.deepEqual(results.map((r) => [r.level, r.subject, r.message]), [
      ['ok', state, 'only the tool (Group sts-volume-gitops, RoleBinding sts-volume-gitops) may write ConfigMaps or Leases here, '
        + 'and nobody else can give itself that write (bind, escalate, impersonate, a pod or a token of a ServiceAccount that may)'],
    ]);
    assert.deepEqual(kube.requestLog.writes().filter((w) => w.resource !== 'selfsubjectaccessreviews'), []);
    assert.ok(kube.requestLog.entries.some((e) => e.resource === 'clusterrolebindings' && e.verb === 'list'));
  });

  it('warns naming a RoleBinding that lets a team write ConfigMaps there, and a ClusterRoleBinding of "*"', async () => {
    await applyObjects(kube, [
      { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'team-config', namespace: state }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'create', 'update', 'delete'] }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'app-team-config', namespace: state }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'team-config' }, subjects: [{ apiGroup: rbacGroup, kind: 'Group', name: 'app-team' }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name: 'deployer' }, rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'ci-deployer' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'deployer' }, subjects: [{ kind: 'ServiceAccount', name: 'ci', namespace: 'db' }] },
    ]);
    // What the judge claims, the sandbox's authorizer confirms: the team may create ConfigMaps in the state namespace.
    const team = await kube.addIdentity({ name: 'someone-in-app-team', groups: ['app-team'] });
    assert.deepEqual(await new KubeAccessProbe(kubeConfigAt(team.kubeconfigPath)).canI({ verb: 'create', apiGroup: '', resource: 'configmaps', namespace: state }),
      { allowed: true, reason: `RBAC: allowed by RoleBinding "app-team-config/${state}" of Role "team-config" to Group "app-team"` });
    const results = await stateWriters(kube.kubeconfigPath);
    assert.deepEqual(results.map((r) => [r.level, r.subject]), [['warning', 'Group app-team'], ['warning', 'ServiceAccount db/ci']]);
    assert.match(results[0]?.message ?? '', /^may create, update, delete ConfigMaps in sts-volume-gitops, the state namespace, through RoleBinding app-team-config of Role team-config: it can delete a genuine recreation record/);
    assert.match(results[0]?.fix ?? '', /^remove the grant: `kubectl -n sts-volume-gitops delete rolebinding app-team-config`/);
    assert.match(results[1]?.message ?? '', /^may create, update, patch, delete, deletecollection ConfigMaps; create, update, patch, delete, deletecollection Leases in sts-volume-gitops, the state namespace, through ClusterRoleBinding ci-deployer \(cluster-wide\) of ClusterRole deployer/);
  });

  it('warns naming who can give itself that write: a token of a ServiceAccount there that writes, bind, impersonate', async () => {
    const bind = { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name: 'rbac-helper' }, rules: [{ apiGroups: [rbacGroup], resources: ['clusterroles'], verbs: ['bind'] }, { apiGroups: [rbacGroup], resources: ['rolebindings'], verbs: ['create'] }] };
    await applyObjects(kube, [
      { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'backup', namespace: state } },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'backup-progress', namespace: state }, data: { at: 'never' } },
      { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'backup', namespace: state }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['get', 'update'] }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'backup', namespace: state }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'backup' }, subjects: [{ kind: 'ServiceAccount', name: 'backup' }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'Role', metadata: { name: 'token-minter', namespace: state }, rules: [{ apiGroups: [''], resources: ['serviceaccounts/token'], resourceNames: ['backup'], verbs: ['create'] }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'ci-tokens', namespace: state }, roleRef: { apiGroup: rbacGroup, kind: 'Role', name: 'token-minter' }, subjects: [{ apiGroup: rbacGroup, kind: 'User', name: 'ci-minter' }] },
      bind,
      { apiVersion: `${rbacGroup}/v1`, kind: 'RoleBinding', metadata: { name: 'rbac-helpers', namespace: state }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'rbac-helper' }, subjects: [{ apiGroup: rbacGroup, kind: 'Group', name: 'rbac-helpers' }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRole', metadata: { name: 'impersonator' }, rules: [{ apiGroups: [''], resources: ['users', 'groups'], verbs: ['impersonate'] }] },
      { apiVersion: `${rbacGroup}/v1`, kind: 'ClusterRoleBinding', metadata: { name: 'helpdesk' }, roleRef: { apiGroup: rbacGroup, kind: 'ClusterRole', name: 'impersonator' }, subjects: [{ apiGroup: rbacGroup, kind: 'User', name: 'helpdesk' }] },
    ]);
    const results = await stateWriters(kube.kubeconfigPath);
    const paths = results.filter((r) => r.message.startsWith('can ')).map((r) => `${r.level} ${r.subject}: ${r.message.replace(/, through .*$/, '')}`);
    assert.deepEqual(paths, [
      'warning User ci-minter: can create tokens for ServiceAccount sts-volume-gitops/backup',
      'warning Group rbac-helpers: can bind any ClusterRole in sts-volume-gitops and create RoleBindings there',
      'warning User helpdesk: can impersonate Group app-team, Group sts-volume-gitops, Group system:masters',
    ]);
    assert.match(results.find((r) => r.subject === 'User ci-minter')?.message ?? '', /through RoleBinding ci-tokens of Role token-minter: with one, it may update ConfigMaps in sts-volume-gitops, the state namespace; it can delete a genuine recreation record/);
    // What the judge claims, the sandbox's RBAC confirms: ci-minter, who may not touch ConfigMaps, gets a token of
    // backup and updates one with it.
    const minter = await kube.addIdentity({ name: 'ci-minter', groups: [] });
    const asMinter = kubeConfigAt(minter.kubeconfigPath);
    await assert.rejects(asMinter.makeApiClient(CoreV1Api).readNamespacedConfigMap({ name: 'backup-progress', namespace: state }), /HTTP-Code: 403/);
    const token = (await asMinter.makeApiClient(CoreV1Api).createNamespacedServiceAccountToken({ name: 'backup', namespace: state, body: { spec: { audiences: [] } } })).status?.token ?? '';
    const asBackup = new KubeConfig();
    asBackup.loadFromOptions({
      clusters: [{ name: 'sandbox', server: kube.url, skipTLSVerify: true }], users: [{ name: 'backup', token }],
      contexts: [{ name: 'backup', cluster: 'sandbox', user: 'backup' }], currentContext: 'backup',
    });
    const core = asBackup.makeApiClient(CoreV1Api);
    const planted = await core.readNamespacedConfigMap({ name: 'backup-progress', namespace: state });
    await core.replaceNamespacedConfigMap({ name: 'backup-progress', namespace: state, body: { ...planted, data: { at: 'whenever ci-minter says' } } });
    assert.deepEqual(kube.store.get(configMapType, state, 'backup-progress')?.data, { at: 'whenever ci-minter says' });
  });

  it('tells the tool\'s own identity, which may not list RBAC objects, who can tell: info, not a warning it could never clear (issue 37 item 11)', async () => {
    const results = await stateWriters(toolKubeconfig);
    assert.deepEqual(results.map((r) => r.level), ['info']);
    assert.equal(results[0]?.message, 'cannot tell who besides the tool may write ConfigMaps or Leases in sts-volume-gitops (recreation records and the Lease): this identity may not list '
      + 'roles in namespace sts-volume-gitops, rolebindings in namespace sts-volume-gitops, clusterroles, clusterrolebindings, and an access review answers only for the identity asking');
    assert.match(results[0]?.fix ?? '', /^run check as an identity that may list roles, rolebindings, clusterroles and clusterrolebindings \(a cluster administrator\).*do not grant them to it$/);
  });
});
