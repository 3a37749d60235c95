// The fixes the tool prints (`kubectl create namespace NAME` before a named state namespace's RBAC manifest, a
// ServiceAccount to bind with `rbac --service-account`) and `kubectl create configmap` work on the Kubernetes sandbox
// as on a real server: kubectl's typed create commands send protobuf, which the sandbox answered 415. The bodies below
// are exactly what kubectl v1.32.4 sent (`-v=9`), replayed; with kubectl installed, kubectl itself runs them too.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { after, before, describe, it } from 'node:test';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { mustResourceType } from '../../../sandbox/kube/store.ts';
import { kubectlAvailable } from './fixtures.ts';

const run = promisify(execFile);
const hex = (text: string): Buffer => Buffer.from(text.replace(/\s+/g, ''), 'hex');

/** `kubectl create namespace foo`. */
const createNamespace = hex(`6b 38 73 00 0a 0f 0a 02 76 31 12 09 4e 61 6d 65 73 70 61 63 65 12 1b 0a 13 0a 03 66 6f 6f 12 00
  1a 00 22 00 2a 00 32 00 38 00 42 00 12 00 1a 02 0a 00 1a 00 22 00`);
/** `kubectl create serviceaccount bar -n db`. */
const createServiceAccount = hex(`6b 38 73 00 0a 14 0a 02 76 31 12 0e 53 65 72 76 69 63 65 41 63 63 6f 75 6e 74 12 17 0a 15 0a 03
  62 61 72 12 00 1a 02 64 62 22 00 2a 00 32 00 38 00 42 00 1a 00 22 00`);
/** `kubectl create configmap baz -n db --from-literal=a=b --from-literal=c=d`. */
const createConfigMap = hex(`6b 38 73 00 0a 0f 0a 02 76 31 12 09 43 6f 6e 66 69 67 4d 61 70 12 27 0a 15 0a 03 62 61 7a 12 00
  1a 02 64 62 22 00 2a 00 32 00 38 00 42 00 12 06 0a 01 61 12 01 62 12 06 0a 01 63 12 01 64 1a 00 22 00`);

describe('kubectl create on the Kubernetes sandbox (protobuf bodies)', () => {
  let kube: KubeSandbox;
  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['db'] } });
  });
  after(() => kube.close());

  const post = (path: string, body: Buffer): Promise<Response> => fetch(`${kube.url}${path}?fieldManager=kubectl-create&fieldValidation=Strict`, {
    method: 'POST', body,
    headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf', Accept: 'application/vnd.kubernetes.protobuf,application/json', Authorization: `Bearer ${kube.kubeConfig().getCurrentUser()?.token ?? ''}` },
  });

  it('creates the namespace, the ServiceAccount and the ConfigMap kubectl sends, as JSON clients would have', async () => {
    const namespace = await post('/api/v1/namespaces', createNamespace);
    assert.equal(namespace.status, 201, await namespace.clone().text());
    assert.equal(((await namespace.json()) as { metadata: { name: string } }).metadata.name, 'foo');
    const account = await post('/api/v1/namespaces/db/serviceaccounts', createServiceAccount);
    assert.equal(account.status, 201, await account.clone().text());
    const map = await post('/api/v1/namespaces/db/configmaps', createConfigMap);
    assert.equal(map.status, 201, await map.clone().text());
    assert.ok(kube.store.get(mustResourceType('v1', 'Namespace'), undefined, 'foo'));
    assert.equal(kube.store.get(mustResourceType('v1', 'ServiceAccount'), 'db', 'bar')?.metadata.name, 'bar');
    assert.deepEqual(kube.store.get(mustResourceType('v1', 'ConfigMap'), 'db', 'baz')?.data, { a: 'b', c: 'd' });
    assert.equal((await post('/api/v1/namespaces', createNamespace)).status, 409, 'a second create is AlreadyExists, as on a real server');
  });

  it('refuses a body of another kind than the URL\'s, and still answers 415 for protobuf it does not read', async () => {
    const mismatch = await post('/api/v1/namespaces/db/configmaps', createServiceAccount);
    assert.equal(mismatch.status, 400);
    assert.match(((await mismatch.json()) as { message: string }).message, /not a ConfigMap/);
    const pvc = await post('/api/v1/namespaces/db/persistentvolumeclaims', createConfigMap);
    assert.equal(pvc.status, 415);
  });

  it('kubectl create namespace, serviceaccount and configmap succeed (when kubectl is installed)', async (t) => {
    if (!await kubectlAvailable(t)) return;
    const env = { ...process.env, KUBECONFIG: kube.kubeconfigPath };
    assert.match((await run('kubectl', ['create', 'namespace', 'platform'], { env })).stdout, /namespace\/platform created/);
    assert.match((await run('kubectl', ['create', 'serviceaccount', 'gitops', '-n', 'platform'], { env })).stdout, /serviceaccount\/gitops created/);
    assert.match((await run('kubectl', ['create', 'configmap', 'settings', '-n', 'platform', '--from-literal=size=10Gi'], { env })).stdout, /configmap\/settings created/);
    assert.match((await run('kubectl', ['get', 'configmap', 'settings', '-n', 'platform', '-o', 'jsonpath={.data.size}'], { env })).stdout, /^10Gi$/);
  });
});
