// The simulated StatefulSet controller through client-node: creation order per pod management policy, PVC naming,
// scale-down that leaves PVCs behind; and the `sandbox` command starting both sandboxes.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { readFile } from 'node:fs/promises';
import { AppsV1Api, CoreV1Api, KubeConfig, PatchStrategy, setHeaderOptions } from '@kubernetes/client-node';
import { startKubeSandbox } from '../../../sandbox/kube/index.ts';
import { startSandboxCommand } from './fixtures.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

function statefulSet(name: string, policy: 'OrderedReady' | 'Parallel') {
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace: 'default' },
    spec: {
      replicas: 3, serviceName: name, podManagementPolicy: policy, selector: { matchLabels: { app: name } },
      template: { metadata: { labels: { app: name } }, spec: { containers: [{ name: 'main', image: 'busybox:1.36' }] } },
      volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '1Gi' } } } }],
    },
  };
}

describe('StatefulSet controller in the sandbox', () => {
  it('creates pods one at a time for OrderedReady and all at once for Parallel, with <template>-<set>-<ordinal> PVCs', async () => {
    const kube = await startKubeSandbox({ seed: { storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }] } });
    try {
      const config = kube.kubeConfig();
      const apps = config.makeApiClient(AppsV1Api);
      const core = config.makeApiClient(CoreV1Api);
      await apps.createNamespacedStatefulSet({ namespace: 'default', body: statefulSet('ordered', 'OrderedReady') });
      await apps.createNamespacedStatefulSet({ namespace: 'default', body: statefulSet('burst', 'Parallel') });
      kube.tick();
      const names = async (app: string) => (await core.listNamespacedPod({ namespace: 'default', labelSelector: `app=${app}` })).items.map((p) => p.metadata?.name).sort();
      assert.deepEqual(await names('ordered'), ['ordered-0']);
      assert.deepEqual(await names('burst'), ['burst-0', 'burst-1', 'burst-2']);
      kube.tick(1);
      assert.deepEqual(await names('ordered'), ['ordered-0', 'ordered-1'], 'the next pod only once the previous one is Running and Ready');
      kube.tick(1);
      assert.deepEqual(await names('ordered'), ['ordered-0', 'ordered-1', 'ordered-2']);
      const pvcs = await core.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: 'app=ordered' });
      assert.deepEqual(pvcs.items.map((p) => p.metadata?.name), ['data-ordered-0', 'data-ordered-1', 'data-ordered-2']);
      assert.ok(pvcs.items.every((p) => p.status?.phase === 'Bound' && p.spec?.storageClassName === 'standard'));

      await apps.patchNamespacedStatefulSet({ namespace: 'default', name: 'ordered', body: { spec: { replicas: 1 } } }, mergePatch);
      kube.tick(3);
      assert.deepEqual(await names('ordered'), ['ordered-0']);
      const left = await core.listNamespacedPersistentVolumeClaim({ namespace: 'default', labelSelector: 'app=ordered' });
      assert.equal(left.items.length, 3, 'scale-down leaves PVCs behind');
      const sts = await apps.readNamespacedStatefulSet({ namespace: 'default', name: 'ordered' });
      assert.equal(sts.status?.replicas, 1);
    } finally {
      await kube.close();
    }
  });

  it('rolls pods when the pod template changes (a new revision), one at a time from the highest ordinal', async () => {
    const kube = await startKubeSandbox({ seed: { storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }], statefulSets: [statefulSet('web', 'OrderedReady')] } });
    try {
      const config = kube.kubeConfig();
      const apps = config.makeApiClient(AppsV1Api);
      const core = config.makeApiClient(CoreV1Api);
      const before = await apps.readNamespacedStatefulSet({ namespace: 'default', name: 'web' });
      await apps.patchNamespacedStatefulSet({ namespace: 'default', name: 'web', body: { spec: { template: { metadata: { annotations: { restartedAt: 'now' } } } } } }, mergePatch);
      kube.tick();
      const after = await apps.readNamespacedStatefulSet({ namespace: 'default', name: 'web' });
      assert.notEqual(after.status?.updateRevision, before.status?.updateRevision);
      kube.tick(20);
      const pods = await core.listNamespacedPod({ namespace: 'default' });
      assert.ok(pods.items.every((p) => p.metadata?.labels?.['controller-revision-hash'] === after.status?.updateRevision));
    } finally {
      await kube.close();
    }
  });

  it('`sts-volume-gitops sandbox --json` starts both sandboxes, prints how to reach them, and stops on SIGINT', async () => {
    const sandbox = await startSandboxCommand([]);
    const { info } = sandbox;
    const version = await fetch(`${info.kubernetesUrl ?? ''}/version`);
    assert.equal(((await version.json()) as { major: string }).major, '1');
    const repo = await fetch(`${info.githubUrl ?? ''}/repos/${info.repository ?? ''}`, { headers: { Authorization: `Bearer ${info.githubToken ?? ''}` } });
    assert.equal(repo.status, 200);
    assert.match(info.config ?? '', /config\.yaml$/);
    // The config hands the tool a restricted identity, granted only the RBAC manifest, not the admin kubeconfig.
    const config = await readFile(info.config ?? '', 'utf8');
    assert.ok(info.toolKubeconfig && config.includes(JSON.stringify(info.toolKubeconfig)), config);
    assert.ok(!config.includes(JSON.stringify(info.kubeconfig)));
    // The Prometheus API over the volumes' usage: printed, and in the config the target reads usage from.
    assert.ok(info.prometheusUrl && config.includes(`usage: { prometheus: { url: ${JSON.stringify(info.prometheusUrl)} } }`), config);
    const query = 'max by (namespace, persistentvolumeclaim) (kubelet_volume_stats_used_bytes{namespace=~"db"})';
    const answer = await fetch(`${info.prometheusUrl}/api/v1/query?${new URLSearchParams({ query }).toString()}`);
    assert.equal(((await answer.json()) as { data: { result: unknown[] } }).data.result.length, 3, 'db/pg\'s three volumes');
    const asTool = new KubeConfig();
    asTool.loadFromFile(info.toolKubeconfig);
    const apps = asTool.makeApiClient(AppsV1Api);
    assert.ok((await apps.listNamespacedStatefulSet({ namespace: 'db' })).items.length > 0);
    await assert.rejects(apps.listNamespacedStatefulSet({ namespace: 'kube-system' }), (e: { code?: number }) => e.code === 403);
    assert.equal(await sandbox.stop(), 0);
  });
});
