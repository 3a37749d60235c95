// Strategic merge patches as kube-apiserver applies them: a list merges only where its Go type declares a merge
// key (containers by name, ports by containerPort, conditions by type, finalizers as a set); any other list is
// replaced. `kubectl apply` relies on it: the PATCH it sends for a RoleBinding carries the new `subjects` whole.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { strategicMergePatch } from '../../../sandbox/kube/patch.ts';

describe('strategic merge patch', () => {
  it('replaces lists without a merge key and merges those with one, at any depth', () => {
    const sts = {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'pg', finalizers: ['a'] },
      spec: {
        template: { spec: { containers: [{ name: 'pg', image: 'postgres:16', ports: [{ containerPort: 5432, name: 'sql' }, { containerPort: 9187 }] }, { name: 'exporter', image: 'e:1' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'] } }, { metadata: { name: 'wal' } }],
      },
    };
    const patched = strategicMergePatch(sts, {
      metadata: { finalizers: ['b', 'a'] },
      spec: {
        template: { spec: { containers: [{ name: 'pg', image: 'postgres:17', ports: [{ containerPort: 5432, protocol: 'TCP' }] }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' } }],
      },
    }) as typeof sts;
    assert.deepEqual(patched.metadata.finalizers, ['a', 'b'], 'finalizers merge as a set');
    assert.deepEqual(patched.spec.template.spec.containers.map((c) => `${c.name}:${c.image}`), ['pg:postgres:17', 'exporter:e:1']);
    assert.deepEqual(patched.spec.template.spec.containers[0]?.ports, [{ containerPort: 5432, name: 'sql', protocol: 'TCP' }, { containerPort: 9187 }]);
    assert.deepEqual(patched.spec.volumeClaimTemplates, [{ metadata: { name: 'data' } }], 'volumeClaimTemplates have no patch strategy: replaced');
  });

  it('honours $patch: delete and replace in merged lists, and $deleteFromPrimitiveList', () => {
    const pod = { kind: 'Pod', metadata: { finalizers: ['a', 'b'] }, spec: { containers: [{ name: 'a' }, { name: 'b' }] } };
    assert.deepEqual((strategicMergePatch(pod, { spec: { containers: [{ name: 'a', $patch: 'delete' }] } }) as typeof pod).spec.containers, [{ name: 'b' }]);
    assert.deepEqual((strategicMergePatch(pod, { spec: { containers: [{ $patch: 'replace' }, { name: 'c' }] } }) as typeof pod).spec.containers, [{ name: 'c' }]);
    assert.deepEqual((strategicMergePatch(pod, { metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }) as typeof pod).metadata.finalizers, ['b']);
  });
});

describe('kubectl apply of a RoleBinding (client-side apply: create, then a strategic merge PATCH)', () => {
  let kube: KubeSandbox;
  const path = '/apis/rbac.authorization.k8s.io/v1/namespaces/db/rolebindings';
  const lastApplied = 'kubectl.kubernetes.io/last-applied-configuration';

  function binding(users: string[]): Record<string, unknown> {
    return {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'readers', namespace: 'db' },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'reader' },
      subjects: users.map((name) => ({ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name })),
    };
  }

  const send = (method: string, url: string, body?: unknown, headers: Record<string, string> = {}): Promise<Response> => fetch(`${kube.url}${url}`, {
    method, headers: { 'Content-Type': 'application/json', ...headers }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'] } });
    const role = { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'reader', namespace: 'db' }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: ['list'] }] };
    assert.equal((await send('POST', '/apis/rbac.authorization.k8s.io/v1/namespaces/db/roles', role)).status, 201);
    // The first `kubectl apply`: a create carrying the applied configuration in the annotation.
    const first = binding(['alice', 'bob']);
    const created = { ...first, metadata: { name: 'readers', namespace: 'db', annotations: { [lastApplied]: `${JSON.stringify(first)}\n` } } };
    assert.equal((await send('POST', `${path}?fieldManager=kubectl-client-side-apply&fieldValidation=Strict`, created)).status, 201);
  });
  after(() => kube.close());

  it('replaces subjects with the applied list, so a user taken out of the file loses the grant', async () => {
    const asBob = { 'Impersonate-User': 'bob' };
    assert.equal((await send('GET', '/api/v1/namespaces/db/configmaps', undefined, asBob)).status, 200, 'bob is granted before');
    // The second `kubectl apply` with bob removed: kubectl's three-way patch sends the new list whole (no merge key).
    const applied = binding(['alice']);
    const patch = { metadata: { annotations: { [lastApplied]: `${JSON.stringify(applied)}\n` } }, subjects: applied.subjects };
    const response = await send('PATCH', `${path}/readers?fieldManager=kubectl-client-side-apply&fieldValidation=Strict`, patch, { 'Content-Type': 'application/strategic-merge-patch+json' });
    assert.equal(response.status, 200);
    const live = await (await send('GET', `${path}/readers`)).json() as { subjects: Array<{ name: string }> };
    assert.deepEqual(live.subjects.map((s) => s.name), ['alice']);
    const denied = await send('GET', '/api/v1/namespaces/db/configmaps', undefined, asBob);
    assert.equal(denied.status, 403);
    assert.match((await denied.json() as { message: string }).message, /^configmaps is forbidden: User "bob" cannot list resource "configmaps" in API group "" in the namespace "db"$/);
  });
});
