// The examples/ seed is written for 1.34 (VolumeAttributesClasses, a template naming one). The 1.26 sandbox starts from
// it as a real v1.26.5 would take those objects: no classes (the resource is not served), the template's
// volumeAttributesClassName dropped as an unknown field, each said in a warning; `sandbox --version 1.26` prints them.
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { AppsV1Api, CoreV1Api } from '@kubernetes/client-node';
import { startKubeSandbox } from '../../../sandbox/kube/index.ts';
import { SeedError } from '../../../sandbox/kube/seed.ts';
import { startSandboxCommand } from './fixtures.ts';

const examplesSeed = fileURLToPath(new URL('../../../examples/cluster-seed.yaml', import.meta.url));
const classWarnings = [
  'volumeAttributesClasses: VolumeAttributesClass is not served by v1.26.5 (GA in v1.34): silver, gold, extreme not seeded',
  'statefulSets[pg]: unknown field "spec.volumeClaimTemplates[0].spec.volumeAttributesClassName" dropped (v1.26.5 does not know it)',
];

describe('the examples seed on the 1.26 sandbox', () => {
  it('starts without the classes, drops the template\'s class as an unknown field, and says both', async () => {
    const kube = await startKubeSandbox({ version: '1.26', seedFile: examplesSeed });
    try {
      assert.deepEqual(kube.seedWarnings, classWarnings);
      const apps = kube.kubeConfig().makeApiClient(AppsV1Api);
      const pg = await apps.readNamespacedStatefulSet({ namespace: 'db', name: 'pg' });
      assert.equal(pg.spec?.volumeClaimTemplates?.[0]?.spec?.volumeAttributesClassName, undefined);
      assert.equal(pg.status?.readyReplicas, 3);
      const claims = await kube.kubeConfig().makeApiClient(CoreV1Api).listNamespacedPersistentVolumeClaim({ namespace: 'db' });
      assert.deepEqual(claims.items.map((c) => [c.metadata?.name, c.status?.phase, c.spec?.volumeAttributesClassName]).sort(),
        [['data-pg-0', 'Bound', undefined], ['data-pg-1', 'Bound', undefined], ['data-pg-2', 'Bound', undefined]]);
    } finally {
      await kube.close();
    }
    // The same seed on 1.34 has nothing to warn about.
    const newest = await startKubeSandbox({ seedFile: examplesSeed });
    await newest.close();
    assert.deepEqual(newest.seedWarnings, []);
  });

  it('still refuses a field no version knows (a typo in the seed)', async () => {
    const typo = { namespaces: ['db'], statefulSets: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'x', namespace: 'db' }, spec: { replicaz: 1 } }] };
    await assert.rejects(startKubeSandbox({ version: '1.26', seed: typo }), (error: unknown) => error instanceof SeedError && /statefulSets\[x\]: unknown field "spec\.replicaz"/.test(error.message));
  });

  it('`sts-volume-gitops sandbox --version 1.26` starts from the examples and prints the warnings', async () => {
    const sandbox = await startSandboxCommand(['--version', '1.26']);
    // Stopping on SIGINT is statefulset-controller.test.ts's to prove; here the child only has to be gone.
    await sandbox.stop();
    const { info } = sandbox;
    const errors = sandbox.stderr();
    assert.equal(info.kubernetesVersion, 'v1.26.5');
    assert.deepEqual(errors.split('\n').filter((line) => line.startsWith('warning: kube sandbox seed: ')),
      classWarnings.map((w) => `warning: kube sandbox seed: ${w}`));
  });
});
