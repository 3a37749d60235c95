// The sandbox's OpenAPI v3 documents and server-side field validation: what kubectl reads before it writes, and how
// unknown fields in a write are dropped, warned about or refused, through client-node (and kubectl when installed).
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { ApiException, AppsV1Api, CoreV1Api, type V1Status } from '@kubernetes/client-node';
import { kubectlAvailable, pgStatefulSet } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { resourceTypes } from '../../../sandbox/kube/store.ts';

type Json = Record<string, unknown>;

const seed = {
  namespaces: ['db'],
  storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
  statefulSets: [pgStatefulSet(1)],
};

async function badRequest(promise: Promise<unknown>, code = 400): Promise<V1Status> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException, `expected an ApiException, got ${String(error)}`);
    const e = error as ApiException<string>;
    assert.equal(e.code, code);
    return JSON.parse(e.body) as V1Status;
  }
  assert.fail('expected the call to fail');
}

/** Runs a command with `input` on its standard input; resolves with its exit code and output. */
function runWithInput(command: string, args: string[], input: string, env: NodeJS.ProcessEnv): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = execFile(command, args, { env }, (error, stdout, stderr) => {
      if (error && typeof error.code !== 'number') reject(new Error(`${command} could not run: ${error.message}`));
      else resolve({ code: error ? Number(error.code) : 0, stdout, stderr });
    });
    child.stdin?.end(input);
  });
}

describe('Kubernetes sandbox OpenAPI v3 documents', () => {
  let kube: KubeSandbox;
  let get: (path: string) => Promise<Response>;

  before(async () => {
    kube = await startKubeSandbox({ seed });
    const token = kube.kubeConfig().getCurrentUser()?.token ?? '';
    get = (path) => fetch(`${kube.url}${path}`, { headers: { Authorization: `Bearer ${token}` } });
  });
  after(() => kube.close());

  it('indexes one document per group/version under a content-hash URL, and serves it with that ETag', async () => {
    const index = await (await get('/openapi/v3')).json() as { paths: Record<string, { serverRelativeURL: string }> };
    assert.deepEqual(Object.keys(index.paths).sort(), [
      'api/v1', 'apis/apps/v1', 'apis/authorization.k8s.io/v1', 'apis/coordination.k8s.io/v1', 'apis/events.k8s.io/v1',
      'apis/rbac.authorization.k8s.io/v1', 'apis/storage.k8s.io/v1',
    ]);
    for (const [key, { serverRelativeURL }] of Object.entries(index.paths)) {
      const match = /^\/openapi\/v3\/(.+)\?hash=([0-9A-F]{128})$/.exec(serverRelativeURL);
      assert.ok(match, serverRelativeURL);
      assert.equal(match[1], key);
      const response = await get(serverRelativeURL);
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('etag'), `"${match[2] ?? ''}"`);
    }
    assert.equal((await get('/openapi/v3/apis/nope/v1')).status, 404);
  });

  it('offers fieldValidation on the PATCH of every served kind, as kubectl checks before it leaves validation to the server', async () => {
    for (const type of resourceTypes) {
      const key = type.group === '' ? `api/${type.version}` : `apis/${type.group}/${type.version}`;
      const document = await (await get(`/openapi/v3/${key}`)).json() as { paths: Record<string, Json>; components: { schemas: Record<string, Json> } };
      // kubectl's QueryParamVerifierV3: the first PATCH whose x-kubernetes-group-version-kind is the kind decides.
      const patch = Object.values(document.paths).map((p) => p.patch as Json | undefined)
        .find((op) => JSON.stringify(op?.['x-kubernetes-group-version-kind']) === JSON.stringify({ group: type.group, version: type.version, kind: type.kind }));
      assert.ok(patch, `${type.kind} in ${key} has a PATCH operation`);
      const parameters = patch.parameters as Array<{ name: string; in: string }>;
      assert.ok(parameters.some((p) => p.name === 'fieldValidation' && p.in === 'query'), `${type.kind} PATCH takes fieldValidation`);
      // Strategic merge patch is left out on purpose (no patch-merge-key metadata): kubectl then uses its own.
      assert.deepEqual(Object.keys((patch.requestBody as { content: Json }).content).sort(), ['application/json-patch+json', 'application/merge-patch+json']);
      // Every $ref resolves within the document, and the kind's schema names its GVK for `kubectl explain`.
      const text = JSON.stringify(document);
      for (const [, name] of text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)) assert.ok(document.components.schemas[name ?? ''], `${key}: ${name ?? ''} resolves`);
      const kindSchema = Object.values(document.components.schemas).find((s) => JSON.stringify(s['x-kubernetes-group-version-kind']) === JSON.stringify([{ group: type.group, version: type.version, kind: type.kind }]));
      assert.ok(kindSchema, `${key} describes ${type.kind}`);
    }
  });

  it('describes the fields this project reads, down to the PVC resize status', async () => {
    const core = await (await get('/openapi/v3/api/v1')).json() as { components: { schemas: Record<string, { properties: Record<string, Json> }> } };
    const status = core.components.schemas.V1PersistentVolumeClaimStatus?.properties;
    assert.deepEqual(status?.allocatedResourceStatuses, { type: 'object', additionalProperties: { type: 'string' } });
    assert.deepEqual(status?.conditions, { type: 'array', items: { allOf: [{ $ref: '#/components/schemas/V1PersistentVolumeClaimCondition' }] } });
    const apps = await (await get('/openapi/v3/apis/apps/v1')).json() as { components: { schemas: Record<string, { properties: Record<string, Json> }> } };
    assert.deepEqual(apps.components.schemas.V1StatefulSetSpec?.properties.volumeClaimTemplates, { type: 'array', items: { allOf: [{ $ref: '#/components/schemas/V1PersistentVolumeClaim' }] } });
  });
});

describe('Kubernetes sandbox field validation', () => {
  let kube: KubeSandbox;
  let core: CoreV1Api;
  let apps: AppsV1Api;

  before(async () => {
    kube = await startKubeSandbox({ seed });
    core = kube.kubeConfig().makeApiClient(CoreV1Api);
    apps = kube.kubeConfig().makeApiClient(AppsV1Api);
  });
  after(() => kube.close());

  const withTypo = (name: string): Json => ({
    apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, namespace: 'db', labelz: { a: 'b' } }, data: { k: 'v' }, spec: { x: 1 },
  });

  async function post(path: string, body: Json, query = ''): Promise<Response> {
    const token = kube.kubeConfig().getCurrentUser()?.token ?? '';
    return fetch(`${kube.url}${path}${query}`, { method: 'POST', body: JSON.stringify(body), headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' } });
  }

  it('by default (Warn) drops unknown fields and names each in a Warning header', async () => {
    const response = await post('/api/v1/namespaces/db/configmaps', withTypo('warned'));
    assert.equal(response.status, 201);
    assert.equal(response.headers.get('warning'), '299 - "unknown field \\"metadata.labelz\\"", 299 - "unknown field \\"spec\\""');
    const stored = await core.readNamespacedConfigMap({ namespace: 'db', name: 'warned' });
    assert.deepEqual(stored.data, { k: 'v' });
    const raw = await (await fetch(`${kube.url}/api/v1/namespaces/db/configmaps/warned`, { headers: { Authorization: `Bearer ${kube.kubeConfig().getCurrentUser()?.token ?? ''}` } })).json() as Json;
    assert.equal(raw.spec, undefined);
    assert.equal((raw.metadata as Json).labelz, undefined);
  });

  it('with Strict refuses a create naming every unknown field with its path, as the real server words it', async () => {
    const response = await post('/apis/apps/v1/namespaces/db/statefulsets', {
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'web' },
      spec: { replica: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx', imagee: 'x' }] } } },
    }, '?fieldValidation=Strict');
    assert.equal(response.status, 400);
    const status = await response.json() as V1Status;
    assert.equal(status.reason, 'BadRequest');
    assert.equal(status.message, 'StatefulSet in version "v1" cannot be handled as a StatefulSet: strict decoding error: unknown field "spec.replica", unknown field "spec.template.spec.containers[0].imagee"');
    await assert.rejects(apps.readNamespacedStatefulSet({ namespace: 'db', name: 'web' }), (e: unknown) => e instanceof ApiException && e.code === 404);
  });

  it('with Strict refuses a patch that adds an unknown field, and Ignore drops it silently', async () => {
    const status = await badRequest(core.patchNamespacedPersistentVolumeClaim(
      { namespace: 'db', name: 'data-pg-0', body: [{ op: 'add', path: '/spec/sizee', value: '20Gi' }], fieldValidation: 'Strict' },
    ), 422);
    // A patched object that does not decode is a 422 quoting the whole object, as kube-apiserver v1.26 answers.
    assert.match(status.message ?? '', /^ "" is invalid: patch: Invalid value: "\{.*\}": strict decoding error: unknown field "spec.sizee"$/s);
    const ignored = await core.patchNamespacedPersistentVolumeClaim(
      { namespace: 'db', name: 'data-pg-0', body: [{ op: 'add', path: '/spec/sizee', value: '20Gi' }], fieldValidation: 'Ignore' },
    );
    assert.equal(ignored.spec?.resources?.requests?.storage, '10Gi');
    assert.equal(JSON.stringify(ignored).includes('sizee'), false);
  });

  it('refuses an unknown directive with the real 422 text', async () => {
    const response = await post('/api/v1/namespaces/db/configmaps', withTypo('bogus'), '?fieldValidation=Loose');
    assert.equal(response.status, 422);
    const status = await response.json() as V1Status;
    assert.equal(status.message, 'CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loose": supported values: "", "Ignore", "Strict", "Warn"');
  });

  it('refuses a body in a format it cannot decode (protobuf, as kubectl\'s typed clients send) with 415', async () => {
    const token = kube.kubeConfig().getCurrentUser()?.token ?? '';
    // A kind whose protobuf the sandbox does not read (it reads only the creates kubectl's typed commands send).
    const response = await fetch(`${kube.url}/api/v1/namespaces/db/persistentvolumeclaims`, {
      method: 'POST', body: 'k8s\u0000', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/vnd.kubernetes.protobuf' },
    });
    assert.equal(response.status, 415);
    const status = await response.json() as V1Status;
    assert.equal(status.reason, 'UnsupportedMediaType');
    assert.equal(status.message, 'the body of the request was in an unknown format - accepted media types include: application/json');
  });

  it('accepts every field client-node sends for a full object, so the project loses nothing on a round trip', async () => {
    const live = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    const replaced = await apps.replaceNamespacedStatefulSetWithHttpInfo({ namespace: 'db', name: 'pg', body: live, fieldValidation: 'Strict' });
    assert.equal(replaced.httpStatusCode, 200);
    assert.equal(replaced.headers.warning, undefined);
  });

  it('checks a manifest through kubectl apply with validation on (when kubectl is installed)', async (t) => {
    const env = { ...process.env, KUBECONFIG: kube.kubeconfigPath, KUBECACHEDIR: await mkdtemp(join(tmpdir(), 'kubectl-cache-')) };
    if (!await kubectlAvailable(t)) return;
    const manifest = (spec: Json): string => JSON.stringify({ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'kubectl-web', namespace: 'db' }, spec });
    const good = { replicas: 2, serviceName: 'web', selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'web', image: 'nginx' }] } } };
    const typo = { ...good, replicas: undefined, replica: 2 };

    const refused = await runWithInput('kubectl', ['apply', '-f', '-'], manifest(typo), env);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, /Error from server \(BadRequest\): error when creating "STDIN": StatefulSet in version "v1" cannot be handled as a StatefulSet: strict decoding error: unknown field "spec\.replica"/);

    const created = await runWithInput('kubectl', ['apply', '-f', '-'], manifest(good), env);
    assert.equal(created.code, 0, created.stderr);
    assert.match(created.stdout, /statefulset\.apps\/kubectl-web created/);
    const scaled = await runWithInput('kubectl', ['apply', '-f', '-'], manifest({ ...good, replicas: 3 }), env);
    assert.equal(scaled.code, 0, scaled.stderr);
    assert.match(scaled.stdout, /statefulset\.apps\/kubectl-web configured/);
    assert.equal((await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'kubectl-web' })).spec?.replicas, 3);

    const warned = await runWithInput('kubectl', ['apply', '--validate=warn', '-f', '-'], manifest({ ...typo, replica: 4, replicas: 3 }), env);
    assert.equal(warned.code, 0, warned.stderr);
    assert.match(warned.stderr, /Warning: unknown field "spec\.replica"/);

    const explained = await runWithInput('kubectl', ['explain', 'statefulset.spec.volumeClaimTemplates'], '', env);
    assert.equal(explained.code, 0, explained.stderr);
    assert.match(explained.stdout, /KIND:\s+StatefulSet/);
    assert.match(explained.stdout, /FIELD: volumeClaimTemplates/);
  });
});
