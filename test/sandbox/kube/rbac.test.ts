// The sandbox enforces RBAC for identities other than its admin, with kube-apiserver's 403 texts, honours
// impersonation, and serves the rbac.authorization.k8s.io objects so the shipped manifest applies with kubectl.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it, before, after } from 'node:test';
import { promisify } from 'node:util';
import { ApiException, CoordinationV1Api, CoreV1Api, KubeConfig, RbacAuthorizationV1Api, StorageV1Api } from '@kubernetes/client-node';
import { loadAll } from 'js-yaml';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { decodeAccessReview } from '../../../sandbox/kube/access-review-protobuf.ts';
import { applyObjects } from '../../../sandbox/kube/apply-objects.ts';
import { rbacCommand } from '../../../functions/cli/rbac-command.ts';
import { kubectlAvailable } from './fixtures.ts';

const run = promisify(execFile);
const manifestPath = new URL('../../../infra/k8s/rbac.yaml', import.meta.url);
const seed = { namespaces: ['db', 'cache', 'analytics'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }] };

async function shippedObjects(): Promise<Array<Record<string, unknown>>> {
  return loadAll(await readFile(manifestPath, 'utf8')) as Array<Record<string, unknown>>;
}

function configFor(kubeconfigPath: string): KubeConfig {
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  return config;
}

async function refusal(promise: Promise<unknown>): Promise<{ code: number; status: Record<string, unknown> }> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof ApiException) {
      const body = error.body as unknown;
      return { code: error.code, status: (typeof body === 'string' ? JSON.parse(body) : body) as Record<string, unknown> };
    }
    throw error;
  }
  assert.fail('the request was allowed');
}

describe('Kubernetes sandbox: RBAC for a non-admin identity', () => {
  let kube: KubeSandbox;
  let asTool: KubeConfig;

  before(async () => {
    kube = await startKubeSandbox({ seed });
    await applyObjects(kube, await shippedObjects());
    asTool = configFor((await kube.addIdentity({ name: 'lambda-role', groups: ['sts-volume-gitops'] })).kubeconfigPath);
  });
  after(() => kube.close());

  it('allows what infra/k8s/rbac.yaml grants the group sts-volume-gitops', async () => {
    const classes = await asTool.makeApiClient(StorageV1Api).listStorageClass();
    assert.deepEqual(classes.items.map((c) => c.metadata?.name), ['standard']);
    const pvcs = await asTool.makeApiClient(CoreV1Api).listNamespacedPersistentVolumeClaim({ namespace: 'db' });
    assert.deepEqual(pvcs.items, []);
    const lease = await asTool.makeApiClient(CoordinationV1Api).createNamespacedLease({ namespace: 'sts-volume-gitops', body: { metadata: { name: 'sts-volume-gitops-prod-eu' } } });
    assert.equal(lease.metadata?.name, 'sts-volume-gitops-prod-eu');
    const read = await asTool.makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace: 'sts-volume-gitops', name: 'sts-volume-gitops-prod-eu' });
    assert.equal(read.metadata?.uid, lease.metadata?.uid);
  });

  it('refuses the rest with the real texts: cluster scope, namespace, a name outside resourceNames', async () => {
    const pvs = await refusal(asTool.makeApiClient(CoreV1Api).listPersistentVolume());
    assert.equal(pvs.code, 403);
    assert.deepEqual(pvs.status, {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'persistentvolumes is forbidden: User "lambda-role" cannot list resource "persistentvolumes" in API group "" at the cluster scope',
      details: { kind: 'persistentvolumes' },
    });
    const get = await refusal(asTool.makeApiClient(CoreV1Api).readNamespacedConfigMap({ namespace: 'db', name: 'anything' }));
    assert.equal(get.status.message, 'configmaps "anything" is forbidden: User "lambda-role" cannot get resource "configmaps" in API group "" in the namespace "db"');
    assert.deepEqual(get.status.details, { name: 'anything', kind: 'configmaps' });
    const elsewhere = await refusal(asTool.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'kube-system' }));
    assert.equal(elsewhere.status.message, 'pods is forbidden: User "lambda-role" cannot list resource "pods" in API group "" in the namespace "kube-system"');
    const otherLease = await refusal(asTool.makeApiClient(CoordinationV1Api).readNamespacedLease({ namespace: 'sts-volume-gitops', name: 'someone-else' }));
    assert.equal(otherLease.status.message, 'leases.coordination.k8s.io "someone-else" is forbidden: User "lambda-role" cannot get resource "leases" in API group "coordination.k8s.io" in the namespace "sts-volume-gitops"');
    assert.deepEqual(otherLease.status.details, { name: 'someone-else', group: 'coordination.k8s.io', kind: 'leases' });
    const namespace = await refusal(asTool.makeApiClient(CoreV1Api).readNamespace({ name: 'db' }));
    assert.equal(namespace.status.message, 'namespaces "db" is forbidden: User "lambda-role" cannot get resource "namespaces" in API group "" in the namespace "db"');
    const roles = await refusal(asTool.makeApiClient(RbacAuthorizationV1Api).listNamespacedRole({ namespace: 'db' }));
    assert.equal(roles.status.message, 'roles.rbac.authorization.k8s.io is forbidden: User "lambda-role" cannot list resource "roles" in API group "rbac.authorization.k8s.io" in the namespace "db"');
  });

  it('follows changes to roles at once: a verb taken away is refused on the next request', async () => {
    const admin = kube.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    const role = await admin.readClusterRole({ name: 'sts-volume-gitops' });
    await admin.replaceClusterRole({ name: 'sts-volume-gitops', body: { ...role, rules: [] } });
    try {
      const refused = await refusal(asTool.makeApiClient(StorageV1Api).listStorageClass());
      assert.equal(refused.status.message, 'storageclasses.storage.k8s.io is forbidden: User "lambda-role" cannot list resource "storageclasses" in API group "storage.k8s.io" at the cluster scope');
      assert.deepEqual(refused.status.details, { group: 'storage.k8s.io', kind: 'storageclasses' });
    } finally {
      await admin.replaceClusterRole({ name: 'sts-volume-gitops', body: { ...role, metadata: { ...role.metadata, resourceVersion: undefined } } });
    }
    await asTool.makeApiClient(StorageV1Api).listStorageClass();
  });

  it('says when a binding names a role that does not exist, as RBAC does', async () => {
    const admin = kube.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await admin.createNamespacedRoleBinding({
      namespace: 'cache', body: {
        metadata: { name: 'dangling' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'missing' },
        subjects: [{ kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'sts-volume-gitops' }],
      },
    });
    const refused = await refusal(asTool.makeApiClient(CoreV1Api).readNamespacedPod({ namespace: 'cache', name: 'p' }));
    assert.equal(refused.status.message, 'pods "p" is forbidden: User "lambda-role" cannot get resource "pods" in API group "" in the namespace "cache": RBAC: role.rbac.authorization.k8s.io "missing" not found');
  });

  it('rejects an unknown token with 401', async () => {
    const response = await fetch(`${kube.url}/api/v1/namespaces`, { headers: { Authorization: 'Bearer not-a-token' } });
    assert.equal(response.status, 401);
    assert.equal(((await response.json()) as { reason: string }).reason, 'Unauthorized');
  });

  it('honours impersonation: the admin acts as a ServiceAccount bound by subject; others may not impersonate', async () => {
    const admin = kube.kubeConfig().makeApiClient(RbacAuthorizationV1Api);
    await admin.createClusterRoleBinding({
      body: {
        metadata: { name: 'sa-reads-classes' }, roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: 'sts-volume-gitops' },
        subjects: [{ kind: 'ServiceAccount', name: 'gitops', namespace: 'ops' }],
      },
    });
    const adminToken = kube.kubeConfig().getCurrentUser()?.token ?? '';
    const as = (user: string, token = adminToken, groups: string[] = []): Promise<Response> => fetch(`${kube.url}/apis/storage.k8s.io/v1/storageclasses`, {
      headers: { Authorization: `Bearer ${token}`, 'Impersonate-User': user, ...(groups.length ? { 'Impersonate-Group': groups.join(', ') } : {}) },
    });
    assert.equal((await as('system:serviceaccount:ops:gitops')).status, 200);
    const stranger = await as('system:serviceaccount:ops:other');
    assert.equal(stranger.status, 403);
    assert.equal(((await stranger.json()) as { message: string }).message,
      'storageclasses.storage.k8s.io is forbidden: User "system:serviceaccount:ops:other" cannot list resource "storageclasses" in API group "storage.k8s.io" at the cluster scope');
    assert.equal((await as('someone', adminToken, ['sts-volume-gitops'])).status, 200);
    const toolToken = asTool.getCurrentUser()?.token ?? '';
    const escalation = await as('sandbox-admin', toolToken);
    assert.equal(escalation.status, 403);
    assert.deepEqual(await escalation.json(), {
      kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403,
      message: 'users "sandbox-admin" is forbidden: User "lambda-role" cannot impersonate resource "users" in API group "" at the cluster scope',
      details: { name: 'sandbox-admin', kind: 'users' },
    });
  });

  it('applies infra/k8s/rbac.yaml with kubectl, and kubectl --as shows what the identity may do (when kubectl is installed)', async (t) => {
    if (!await kubectlAvailable(t)) return;
    const fresh = await startKubeSandbox({ seed });
    try {
      const env = { ...process.env, KUBECONFIG: fresh.kubeconfigPath };
      const applied = await run('kubectl', ['apply', '-f', manifestPath.pathname], { env });
      assert.match(applied.stdout, /clusterrole\.rbac\.authorization\.k8s\.io\/sts-volume-gitops created/);
      assert.match(applied.stdout, /role\.rbac\.authorization\.k8s\.io\/sts-volume-gitops created/);
      const again = await run('kubectl', ['apply', '-f', manifestPath.pathname], { env });
      assert.doesNotMatch(again.stdout, /created|configured/);
      const allowed = await run('kubectl', ['get', 'storageclasses', '-o', 'name', '--as=someone', '--as-group=sts-volume-gitops'], { env });
      assert.match(allowed.stdout, /storageclass\.storage\.k8s\.io\/standard/);
      const refused = await run('kubectl', ['get', 'pvc', '-n', 'kube-system', '--as=someone', '--as-group=sts-volume-gitops'], { env }).then(() => undefined, (error: { stderr: string }) => error.stderr);
      assert.match(refused ?? '', /Error from server \(Forbidden\): persistentvolumeclaims is forbidden: User "someone" cannot list resource "persistentvolumeclaims" in API group "" in the namespace "kube-system"/);
    } finally {
      await fresh.close();
    }
  });
});

describe('Kubernetes sandbox: a manifest bound to a ServiceAccount', () => {
  it('`rbac --service-account` binds it, and kubectl --as=system:serviceaccount:NS:NAME acts as it (when kubectl is installed)', async (t) => {
    if (!await kubectlAvailable(t)) return;
    const kube = await startKubeSandbox({ seed });
    const dir = await mkdtemp(join(tmpdir(), 'sts-rbac-sa-'));
    try {
      let manifest = '';
      const configPath = fileURLToPath(new URL('../../../infra/k8s/example-config.yaml', import.meta.url));
      assert.equal(await rbacCommand(['--config', configPath, '--service-account', 'ops:gitops'], (text) => { manifest += text; }), 0);
      await writeFile(join(dir, 'rbac.yaml'), manifest);
      const env = { ...process.env, KUBECONFIG: kube.kubeconfigPath };
      await run('kubectl', ['apply', '-f', join(dir, 'rbac.yaml')], { env });
      const allowed = await run('kubectl', ['get', 'pvc', '-n', 'db', '--as=system:serviceaccount:ops:gitops'], { env });
      assert.match(allowed.stderr, /No resources found in db namespace/, 'kubectl exited 0: the list was authorized');
      const refused = await run('kubectl', ['get', 'storageclasses', '--as=system:serviceaccount:ops:other'], { env }).then(() => '', (error: { stderr: string }) => error.stderr);
      assert.match(refused, /Error from server \(Forbidden\): storageclasses\.storage\.k8s\.io is forbidden: User "system:serviceaccount:ops:other" cannot list resource "storageclasses" in API group "storage\.k8s\.io" at the cluster scope/);
    } finally {
      await kube.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('Kubernetes sandbox: what an identity may do', () => {
  it('answers SelfSubjectAccessReviews with RBAC\'s reasons, for the requester or whom it impersonates', async () => {
    const kube = await startKubeSandbox({ seed });
    try {
      await applyObjects(kube, await shippedObjects());
      const adminToken = kube.kubeConfig().getCurrentUser()?.token ?? '';
      const review = async (attributes: Record<string, string>, impersonate: Record<string, string>): Promise<unknown> => {
        const response = await fetch(`${kube.url}/apis/authorization.k8s.io/v1/selfsubjectaccessreviews`, {
          method: 'POST', headers: { Authorization: `Bearer ${adminToken}`, 'Content-Type': 'application/json', ...impersonate },
          body: JSON.stringify({ apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview', spec: { resourceAttributes: attributes } }),
        });
        assert.equal(response.status, 201);
        return ((await response.json()) as { status: unknown }).status;
      };
      const asTool = { 'Impersonate-User': 'someone', 'Impersonate-Group': 'sts-volume-gitops' };
      assert.deepEqual(await review({ verb: 'patch', resource: 'persistentvolumeclaims', namespace: 'db' }, asTool), {
        allowed: true, reason: 'RBAC: allowed by RoleBinding "sts-volume-gitops/db" of Role "sts-volume-gitops" to Group "sts-volume-gitops"',
      });
      assert.deepEqual(await review({ verb: 'list', group: 'storage.k8s.io', resource: 'storageclasses' }, asTool), {
        allowed: true, reason: 'RBAC: allowed by ClusterRoleBinding "sts-volume-gitops" of ClusterRole "sts-volume-gitops" to Group "sts-volume-gitops"',
      });
      assert.deepEqual(await review({ verb: 'delete', resource: 'persistentvolumeclaims', namespace: 'db' }, asTool), { allowed: false });
      assert.deepEqual(await review({ verb: 'delete', resource: 'persistentvolumeclaims', namespace: 'db' }, {}), { allowed: true });
    } finally {
      await kube.close();
    }
  });
});

describe('Kubernetes sandbox: kubectl auth can-i', () => {
  it('answers kubectl\'s protobuf SelfSubjectAccessReviews: yes and no for the tool\'s identity (when kubectl is installed)', async (t) => {
    if (!await kubectlAvailable(t)) return;
    const kube = await startKubeSandbox({ seed });
    try {
      await applyObjects(kube, await shippedObjects());
      const env = { ...process.env, KUBECONFIG: kube.kubeconfigPath };
      const canI = (...args: string[]): Promise<string> => run('kubectl', ['auth', 'can-i', ...args, '--as=someone', '--as-group=sts-volume-gitops'], { env })
        .then((r) => r.stdout.trim(), (error: { stdout: string; stderr: string }) => `${error.stdout.trim()}${error.stderr.includes('Error') ? error.stderr : ''}`);
      assert.equal(await canI('patch', 'pvc', '-n', 'db'), 'yes');
      assert.equal(await canI('list', 'storageclasses'), 'yes');
      assert.equal(await canI('delete', 'pvc', '-n', 'db'), 'no');
      assert.equal(await canI('patch', 'pvc', '-n', 'kube-system'), 'no');
      assert.equal(await canI('get', 'leases/sts-volume-gitops-prod-eu', '-n', 'sts-volume-gitops'), 'yes');
      assert.equal(await canI('get', 'leases/another', '-n', 'sts-volume-gitops'), 'no');
    } finally {
      await kube.close();
    }
  });
});

describe('reading a protobuf SelfSubjectAccessReview', () => {
  const field = (number: number, value: string | Buffer): Buffer => {
    const bytes = typeof value === 'string' ? Buffer.from(value, 'utf8') : value;
    return Buffer.concat([Buffer.from([(number << 3) | 2, bytes.length]), bytes]);
  };
  it('takes the resource attributes out of the k8s envelope, and refuses what is not one', () => {
    const attributes = Buffer.concat([field(1, 'db'), field(2, 'patch'), field(3, ''), field(4, 'v1'), field(5, 'persistentvolumeclaims')]);
    const review = Buffer.concat([field(1, Buffer.alloc(0)), field(2, field(1, attributes))]);
    const envelope = Buffer.concat([Buffer.from('k8s\0', 'latin1'), field(1, field(1, 'authorization.k8s.io/v1')), field(2, review)]);
    assert.deepEqual(decodeAccessReview(envelope), {
      spec: { resourceAttributes: { namespace: 'db', verb: 'patch', group: '', version: 'v1', resource: 'persistentvolumeclaims' } },
    });
    assert.throws(() => decodeAccessReview(Buffer.from('{"spec":{}}')), /not a Kubernetes protobuf envelope/);
  });
});
