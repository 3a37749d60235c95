// The Kubernetes sandbox plays v1.34.9 (the default) or v1.26.5, each with its recorded /version, words and defaults
// (/work/shared/conformance/README.md, "What differs from v1.26.5"), through the real client-node.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { ApiException, AppsV1Api, CoreV1Api, PatchStrategy, setHeaderOptions, VersionApi } from '@kubernetes/client-node';
import { pgStatefulSet } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';
import { parseServerVersion } from '../../../sandbox/kube/server-version.ts';
import { SeedError } from '../../../sandbox/kube/seed.ts';
import { sandboxCommand } from '../../../functions/cli/sandbox-command.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);
const seed = { namespaces: ['db'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: [pgStatefulSet(1)] };

async function message(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (error) {
    assert.ok(error instanceof ApiException);
    return (JSON.parse((error as ApiException<string>).body) as { message: string }).message;
  }
  assert.fail('expected the call to fail');
}

describe('Kubernetes sandbox versions', () => {
  const sandboxes: Record<string, KubeSandbox> = {};
  before(async () => {
    sandboxes.default = await startKubeSandbox({ seed });
    sandboxes['1.26'] = await startKubeSandbox({ seed, version: '1.26' });
    sandboxes.seeded = await startKubeSandbox({ seed: { ...seed, version: '1.26' } });
  });
  after(async () => {
    for (const sandbox of Object.values(sandboxes)) await sandbox.close();
  });
  const api = <T>(name: string, type: new (...args: never[]) => T): T => {
    const sandbox = sandboxes[name];
    assert.ok(sandbox);
    return sandbox.kubeConfig().makeApiClient(type as never) as T;
  };

  it('answers /version as the recorded servers did: v1.34.9 by default, v1.26.5 when asked (flag or seed)', async () => {
    const newest = await api('default', VersionApi).getCode();
    assert.deepEqual([newest.gitVersion, newest.major, newest.minor], ['v1.34.9', '1', '34']);
    const old = await api('1.26', VersionApi).getCode();
    assert.deepEqual([old.gitVersion, old.major, old.minor], ['v1.26.5', '1', '26']);
    assert.equal((await api('seeded', VersionApi).getCode()).gitVersion, 'v1.26.5');
  });

  it('refuses a version it does not play, naming those it does', async () => {
    assert.throws(() => parseServerVersion('1.30'), /plays 1\.34 \(v1\.34\.9\) or 1\.26 \(v1\.26\.5\), not "1\.30"/);
    assert.throws(() => parseServerVersion('v1.34.2'), /not "v1\.34\.2"/);
    assert.equal(parseServerVersion('v1.26.5').name, '1.26');
    await assert.rejects(startKubeSandbox({ seed: { ...seed, version: '1.19' } }), (error: unknown) => error instanceof SeedError && /version: .*not "1\.19"/.test(error.message));
  });

  it('defaults the PVC retention policy on 1.34 only (StatefulSetAutoDeletePVC is alpha and off in 1.26)', async () => {
    const newest = await api('default', AppsV1Api).readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    assert.deepEqual({ ...newest.spec?.persistentVolumeClaimRetentionPolicy }, { whenDeleted: 'Retain', whenScaled: 'Retain' });
    const old = await api('1.26', AppsV1Api).readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
    assert.equal(old.spec?.persistentVolumeClaimRetentionPolicy, undefined);
  });

  it('words the StatefulSet spec refusal as each version does', async () => {
    const body = { spec: { volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '20Gi' } } } }] } };
    const refusal = (fields: string): string => `StatefulSet.apps "pg" is invalid: spec: Forbidden: updates to statefulset spec for fields other than ${fields} and 'minReadySeconds' are forbidden`;
    assert.equal(await message(api('default', AppsV1Api).patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body }, mergePatch)),
      refusal("'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy'"));
    assert.equal(await message(api('1.26', AppsV1Api).patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body }, mergePatch)),
      refusal("'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy'"));
    // revisionHistoryLimit became mutable in v1.27.
    await api('default', AppsV1Api).patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { spec: { revisionHistoryLimit: 3 } } }, mergePatch);
    assert.match(await message(api('1.26', AppsV1Api).patchNamespacedStatefulSet({ namespace: 'db', name: 'pg', body: { spec: { revisionHistoryLimit: 3 } } }, mergePatch)), /Forbidden: updates to statefulset spec/);
  });

  it('knows volumeAttributesClassName on 1.34 only: 1.26 drops it as an unknown field, with the warning, and leaves it out of its OpenAPI', async () => {
    const body = { metadata: { name: 'classy' }, spec: { accessModes: ['ReadWriteOnce'], volumeAttributesClassName: 'gold', resources: { requests: { storage: '1Gi' } } } };
    const send = async (name: string): Promise<{ warning: string | null; spec: Record<string, unknown> }> => {
      const sandbox = sandboxes[name];
      assert.ok(sandbox);
      const answer = await fetch(`${sandbox.url}/api/v1/namespaces/db/persistentvolumeclaims`, {
        method: 'POST', body: JSON.stringify(body),
        headers: { Authorization: `Bearer ${sandbox.kubeConfig().getCurrentUser()?.token ?? ''}`, 'Content-Type': 'application/json' },
      });
      assert.equal(answer.status, 201);
      return { warning: answer.headers.get('warning'), spec: ((await answer.json()) as { spec: Record<string, unknown> }).spec };
    };
    const newest = await send('default');
    assert.equal(newest.warning, null);
    assert.equal(newest.spec.volumeAttributesClassName, 'gold');
    const old = await send('1.26');
    assert.equal(old.warning, '299 - "unknown field \\"spec.volumeAttributesClassName\\""');
    assert.equal(old.spec.volumeAttributesClassName, undefined);
    const schemaProperties = async (name: string): Promise<string[]> => {
      const sandbox = sandboxes[name];
      assert.ok(sandbox);
      const auth = { Authorization: `Bearer ${sandbox.kubeConfig().getCurrentUser()?.token ?? ''}` };
      const index = await (await fetch(`${sandbox.url}/openapi/v3`, { headers: auth })).json() as { paths: Record<string, { serverRelativeURL: string }> };
      const document = await (await fetch(`${sandbox.url}${index.paths['api/v1']?.serverRelativeURL ?? ''}`, { headers: auth })).json() as { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };
      return Object.keys(document.components.schemas.V1PersistentVolumeClaimSpec?.properties ?? {});
    };
    assert.ok((await schemaProperties('default')).includes('volumeAttributesClassName'));
    const oldProperties = await schemaProperties('1.26');
    assert.ok(oldProperties.includes('storageClassName') && !oldProperties.includes('volumeAttributesClassName'));
  });

  it('sandbox --version: a version it does not play, or the flag on the GitHub sandbox alone, is a usage error (2)', async () => {
    const written: string[] = [];
    const write = process.stderr.write.bind(process.stderr);
    process.stderr.write = (chunk: string) => { written.push(chunk); return true; };
    try {
      assert.equal(await sandboxCommand(['kube', '--version', '1.30']), 2);
      assert.equal(await sandboxCommand(['github', '--version', '1.34']), 2);
    } finally {
      process.stderr.write = write;
    }
    assert.match(written[0] ?? '', /^--version: the Kubernetes sandbox plays 1\.34 \(v1\.34\.9\) or 1\.26 \(v1\.26\.5\), not "1\.30"/);
    assert.match(written[1] ?? '', /--version chooses the Kubernetes version/);
  });

  it('quotes a Go struct diff (1.26) or a unified JSON diff (1.34) when an unbound claim is resized', async () => {
    const claim = { metadata: { name: 'loose' }, spec: { storageClassName: 'nowhere', accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } };
    const grow = { spec: { resources: { requests: { storage: '2Gi' } } } };
    const newest = api('default', CoreV1Api);
    await newest.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim });
    assert.equal(await message(newest.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'loose', body: grow }, mergePatch)),
      'PersistentVolumeClaim "loose" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims\n'
      + '@@ -6,7 +6,7 @@\n  "Resources": {\n   "Limits": null,\n   "Requests": {\n-   "storage": "1Gi"\n+   "storage": "2Gi"\n   }\n  },\n  "VolumeName": "",\n');
    const old = api('1.26', CoreV1Api);
    await old.createNamespacedPersistentVolumeClaim({ namespace: 'db', body: claim });
    const text = await message(old.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'loose', body: grow }, mergePatch));
    assert.match(text, /^PersistentVolumeClaim "loose" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests for bound claims\n\u00a0\u00a0core.PersistentVolumeClaimSpec\{\n/);
    assert.match(text, /\n-\u00a0\t\t\ts"storage": \{i: resource.int64Amount\{value: 1073741824\}, s: "1Gi", Format: "BinarySI"\},\n/);
    assert.match(text, /\n\+\u00a0\t\t\ts"storage": \{i: resource.int64Amount\{value: 2147483648\}, s: "2Gi", Format: "BinarySI"\},\n/);
  });
});
