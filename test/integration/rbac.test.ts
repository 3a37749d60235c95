// The engine under the shipped RBAC manifest: infra/k8s/rbac.yaml is what the generator prints for its config, and a
// verb taken away from the generated manifest becomes a clear error in the pass report naming what to grant.
import assert from 'node:assert/strict';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import {
  clusterPermissions, leasePermissions, previousLeaseNamespacePermissions, workloadPermissions, type PermissionRule,
} from '../../functions/adapters/kube/permissions.ts';
import { parseConfig } from '../../functions/domain/config.ts';
import { legacyRecreationRecordName, recreationRecordName } from '../../functions/engine/records/names.ts';
import { recordLabel, recordTargetLabel } from '../../functions/adapters/kube/map-objects.ts';
import { runTargets } from '../../functions/app/run-targets.ts';
import { parseSubject, rbacObjects, type RbacObject } from '../../functions/app/rbac-manifest.ts';
import { rbacCommand } from '../../functions/cli/rbac-command.ts';
import { renderPassReport } from '../../functions/cli/render-report.ts';
import { engineUser, startHarness, statefulSetReport, types } from './harness.ts';
import { eventRefreshMs } from '../../functions/engine/report/problem-events.ts';

const configMapType = types.configMap;

const repoRoot = new URL('../../', import.meta.url);

/** The generated objects with `verb` taken away from the rule on `resource` (in every role that has it). */
function without(verb: string, resource: string): (objects: RbacObject[]) => RbacObject[] {
  return (objects) => objects.map((object) => {
    const rules = object.rules as Array<{ resources: string[]; verbs: string[] }> | undefined;
    if (!rules) return object;
    return { ...object, rules: rules.map((rule) => (rule.resources.includes(resource) ? { ...rule, verbs: rule.verbs.filter((v) => v !== verb) } : rule)) };
  });
}

describe('RBAC manifest', () => {
  it('infra/k8s/rbac.yaml is the generator\'s output for infra/k8s/example-config.yaml', async () => {
    const cwd = process.cwd();
    process.chdir(new URL('.', repoRoot).pathname);
    let printed = '';
    try {
      assert.equal(await rbacCommand(['--config', 'infra/k8s/example-config.yaml'], (text) => { printed += text; }), 0);
    } finally {
      process.chdir(cwd);
    }
    const committed = await readFile(new URL('infra/k8s/rbac.yaml', repoRoot), 'utf8');
    assert.equal(committed, printed, 'regenerate: npm run -s cli -- rbac --config infra/k8s/example-config.yaml > infra/k8s/rbac.yaml');
  });

  it('grants workloads cluster-wide for `allow: ["*"]`, keeps the Lease to its namespace, and binds any subject asked for', () => {
    const objects = rbacObjects(
      [{ name: 'all', namespaces: { default: 'ops', allow: ['*'] } }],
      [parseSubject('service-account', 'ops:gitops'), parseSubject('user', 'alice')],
    );
    // One binding per subject, named after it: applying it for one never takes the grants from another.
    assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`), [
      'ClusterRole//sts-volume-gitops', 'ClusterRoleBinding//sts-volume-gitops-sa-ops.gitops', 'ClusterRoleBinding//sts-volume-gitops-user-alice',
      'ClusterRole//sts-volume-gitops-workloads', 'ClusterRoleBinding//sts-volume-gitops-workloads-sa-ops.gitops', 'ClusterRoleBinding//sts-volume-gitops-workloads-user-alice',
      'Role/ops/sts-volume-gitops', 'RoleBinding/ops/sts-volume-gitops-sa-ops.gitops', 'RoleBinding/ops/sts-volume-gitops-user-alice',
    ]);
    assert.deepEqual([objects[1]?.subjects, objects[2]?.subjects], [
      [{ kind: 'ServiceAccount', name: 'gitops', namespace: 'ops' }],
      [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'alice' }],
    ]);
    const leaseRole = objects[6]?.rules as Array<{ resources: string[]; verbs: string[]; resourceNames?: string[] }>;
    assert.deepEqual(leaseRole.map((r) => [r.resources, r.verbs, r.resourceNames]), [
      [['leases'], ['create'], undefined], [['leases'], ['get', 'update', 'patch'], ['sts-volume-gitops-all']],
      [['configmaps'], ['list', 'create', 'update', 'delete'], undefined], [['events'], ['create'], undefined],
    ]);
    const workloadRole = objects[3]?.rules as Array<{ resources: string[]; verbs: string[] }>;
    assert.deepEqual(workloadRole.find((r) => r.resources.includes('configmaps'))?.verbs, ['list'], 'only what finding older versions\' records (to report them) needs');
    assert.throws(() => parseSubject('service-account', 'gitops'), /--service-account must be NAMESPACE:NAME/);
  });

  it('creates the state namespace, keeps the Lease and records there, and only reads records where older versions kept them', () => {
    const objects = rbacObjects([{ name: 'prod', namespaces: { default: 'ops', state: 'sts-volume-gitops', allow: ['db'] } }]);
    assert.deepEqual(objects.map((o) => `${o.kind}/${o.metadata.namespace ?? ''}/${o.metadata.name}`), [
      'Namespace//sts-volume-gitops', 'ClusterRole//sts-volume-gitops', 'ClusterRoleBinding//sts-volume-gitops',
      'Role/db/sts-volume-gitops', 'RoleBinding/db/sts-volume-gitops',
      'Role/ops/sts-volume-gitops', 'RoleBinding/ops/sts-volume-gitops',
      'Role/sts-volume-gitops/sts-volume-gitops', 'RoleBinding/sts-volume-gitops/sts-volume-gitops',
    ]);
    const rulesOf = (namespace: string): string[] => ((objects.find((o) => o.kind === 'Role' && o.metadata.namespace === namespace)?.rules ?? []) as Array<{ resources: string[]; verbs: string[] }>)
      .map((r) => `${r.verbs.join(',')} ${r.resources.join(',')}`);
    assert.deepEqual(rulesOf('ops'), ['list configmaps'], 'the namespace the Lease was in before: a read of the records left there, nothing else');
    assert.ok(rulesOf('sts-volume-gitops').includes('list,create,update,delete configmaps'));
    assert.ok(!rulesOf('db').some((r) => r.includes('leases')));
    assert.deepEqual(rbacObjects([{ name: 'prod', namespaces: { default: 'ops', state: 'platform', allow: ['db'] } }]).filter((o) => o.kind === 'Namespace'), [],
      'never declares a namespace someone else chose (`kubectl delete -f` would delete it with all it holds)');
  });
});

describe('the engine under RBAC', () => {
  it('without "patch" on persistentvolumeclaims: the dry run is refused and the report names the grant', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 2, templates: { data: '10Gi' } }], rbac: without('patch', 'persistentvolumeclaims') });
    try {
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
      const report = await h.pass();
      const pg = statefulSetReport(report, 'pg');
      assert.equal(pg.outcome, 'blocked');
      const expected = `the cluster refused: grant "patch" on "persistentvolumeclaims" in namespace "db" (\`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -\` grants what the configuration needs): User "${engineUser}" may not patch persistentvolumeclaims "data-pg-0"`;
      assert.equal(pg.templates[0]?.reasons[0], `dry run of the patch to data-pg-0 was rejected: ${expected}`);
      const rendered = renderPassReport(report);
      process.stdout.write(`# ${rendered.split('\n').join('\n# ')}\n`);
      assert.match(rendered, /blocked: dry run of the patch to data-pg-0 was rejected: the cluster refused: grant "patch" on "persistentvolumeclaims" in namespace "db"/);
      assert.doesNotMatch(rendered, /\n\s+at /, 'no stack trace');
      assert.deepEqual(h.kube.requestLog.writes().filter((w) => w.resource === 'persistentvolumeclaims'), [], 'no PVC was written');
      assert.deepEqual(h.pvcs().map((p) => (p.spec as { resources: { requests: { storage: string } } }).resources.requests.storage), ['10Gi', '10Gi']);
    } finally {
      await h.close();
    }
  });

  it('without "list" on storageclasses: the target\'s run fails with the grant to make, not a stack trace', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }], rbac: without('list', 'storageclasses') });
    try {
      const dir = await mkdtemp(join(tmpdir(), 'sts-rbac-config-'));
      const configText = `targets:
  - name: test
    source: { local: { directory: ${JSON.stringify(h.repoDir)}, paths: ["**/*.yaml"] } }
    cluster: { kubeconfig: { path: ${JSON.stringify(h.engineKubeconfigPath)} } }
    namespaces: { default: default, allow: [db] }
`;
      await writeFile(join(dir, 'config.yaml'), configText);
      const [run] = await runTargets(parseConfig(configText, 'config.yaml', dir), { mode: 'plan', holderIdentity: 'test' });
      process.stdout.write(`# target ${run?.target ?? ''}: error: ${run?.error ?? ''}\n`);
      assert.equal(run?.report, undefined);
      assert.equal(run?.error, `the cluster refused: grant "list" on "storageclasses" (API group "storage.k8s.io") at the cluster scope (\`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -\` grants what the configuration needs): User "${engineUser}" may not list storageclasses`);
      await rm(dir, { recursive: true, force: true });
    } finally {
      await h.close();
    }
  });

  it('without "create" on leases: the first write of a pass stops with the grant to make, before anything else is written', async () => {
    const h = await startHarness({ statefulSets: [{ name: 'pg', replicas: 1, templates: { data: '10Gi' } }], rbac: without('create', 'leases') });
    try {
      await h.writeManifest({ name: 'pg', replicas: 1, templates: { data: '20Gi' } });
      await assert.rejects(h.pass(), (error: Error) => {
        assert.equal(error.message, `the cluster refused: grant "create" on "leases" (API group "coordination.k8s.io") in namespace "${h.stateNamespace}" (\`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -\` grants what the configuration needs): User "${engineUser}" may not create leases`);
        return true;
      });
      assert.deepEqual(h.kube.requestLog.writes().filter((w) => w.status < 400), [], 'nothing was written');
    } finally {
      await h.close();
    }
  });
});

describe('the manifest grants nothing the engine does not use', () => {
  it('every verb granted is used by a pass, where it is granted: recreation, PVC patches, a class change, a terminal expansion failure, a stale record, an older version\'s record and a forged one (refused), the Lease', async () => {
    const h = await startHarness({
      // A driver refuses a class without parameters to modify to (csi-driver-host-path: "Mutable parameters cannot be empty").
      volumeAttributesClasses: [{ name: 'silver', storageClass: 'standard', parameters: { iops: '3000' } }, { name: 'gold', storageClass: 'standard', parameters: { iops: '6000' } }],
      storageClasses: [
        { name: 'standard', default: true, allowVolumeExpansion: true, driver: { ticksPerPhase: 1 } },
        { name: 'capped', allowVolumeExpansion: true, driver: { maxVolumeSize: '15Gi', ticksPerPhase: 1 } },
      ],
      statefulSets: [
        { name: 'pg', replicas: 2, templates: { data: '10Gi' }, volumeAttributesClass: 'silver' },
        { name: 'ch', replicas: 1, templates: { data: '10Gi' }, storageClass: 'capped' },
      ],
    });
    try {
      // A record nobody signed in the state namespace: refused, with a Warning Event there.
      h.kube.store.create(configMapType, {
        apiVersion: 'v1', kind: 'ConfigMap',
        metadata: { name: recreationRecordName('test', 'db', 'gone'), namespace: h.stateNamespace, labels: { [recordLabel]: 'true', [recordTargetLabel]: 'test' } },
        data: { namespace: 'db', statefulSet: 'gone', oldUid: 'uid-of-gone', target: '{}' },
      });
      // An older version's record beside its set (unsigned): found where older versions kept it, refused, reported.
      h.kube.store.create(configMapType, {
        apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: legacyRecreationRecordName('ch'), namespace: 'db', labels: { [recordLabel]: 'true' } },
        data: { statefulSet: 'ch', oldUid: 'uid-of-an-older-ch', target: '{}' },
      });
      await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' }, volumeAttributesClass: 'gold' });
      await h.writeManifest({ name: 'ch', replicas: 1, templates: { data: '30Gi' }, storageClass: 'capped' });
      // pg's record is saved and its old object orphan-deleted; edited while it is being deleted, its record is then
      // rewritten (replaced) from the object as it is now.
      await h.pass({ maxWaitMs: 0 });
      const deleting = h.kube.store.get(types.sts, 'db', 'pg');
      assert.ok(deleting?.metadata.deletionTimestamp, 'being deleted');
      h.kube.store.replace(types.sts, { ...deleting, metadata: { ...deleting.metadata, labels: { ...deleting.metadata.labels, team: 'payments' } } });
      await h.converge((report) => statefulSetReport(report, 'pg').outcome === 'converged' && statefulSetReport(report, 'ch').outcome === 'failed', { ticks: 3 });
      // ch's failure half an hour on: counted again on its Warning Event (patch), not recorded anew.
      await h.pass({ now: () => new Date(Date.now() + eventRefreshMs) });
      // Authorized is what counts: the in-place template update's dry run is authorized, then refused by validation (422).
      const scopeOf = (namespace: string | undefined): string => (namespace === undefined ? 'cluster'
        : namespace === h.stateNamespace ? 'state namespace' : namespace === 'default' ? 'previous lease namespace' : 'workload namespace');
      // /version (logged as discovery) is open to every authenticated user (system:public-info-viewer): no grant.
      const used = new Set(h.kube.requestLog.entries.filter((e) => e.status !== 401 && e.status !== 403 && e.resource !== 'discovery').map((e) => `${scopeOf(e.namespace)}: ${e.verb} ${e.resource}`));
      const grants = (scope: string, rules: readonly PermissionRule[]): string[] => rules.flatMap((p) => p.verbs.map((v) => `${scope}: ${v} ${p.resource}`));
      const granted = new Set([
        ...grants('cluster', clusterPermissions), ...grants('workload namespace', workloadPermissions), ...grants('state namespace', leasePermissions([])),
        ...grants('previous lease namespace', previousLeaseNamespacePermissions),
      ]);
      assert.deepEqual([...granted].filter((g) => !used.has(g)).sort(), [], 'granted but never used');
      assert.deepEqual([...used].filter((u) => !granted.has(u)).sort(), [], 'used but not granted');
    } finally {
      await h.close();
    }
  });
});
