// The simulated resizer and kubelet, driven through client-node: KEP-1790 user-flow cases 0-5, offline expansion and
// transient errors, each on its own sandbox.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { CoreV1Api, PatchStrategy, setHeaderOptions, type V1PersistentVolumeClaim } from '@kubernetes/client-node';
import { pgStatefulSet } from './fixtures.ts';
import { startKubeSandbox, type KubeSandbox } from '../../../sandbox/kube/index.ts';

const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

async function world(driver: Record<string, unknown>, quota?: Record<string, string>): Promise<{ kube: KubeSandbox; core: CoreV1Api }> {
  const kube = await startKubeSandbox({
    seed: {
      namespaces: ['db'],
      storageClasses: [{ name: 'disk', default: true, allowVolumeExpansion: true, driver: { name: 'disk.csi.test', ...driver } }],
      resourceQuotas: quota ? [{ name: 'q', namespace: 'db', hard: quota }] : [],
      statefulSets: [pgStatefulSet(1)],
    },
  });
  return { kube, core: kube.kubeConfig().makeApiClient(CoreV1Api) };
}

const read = (core: CoreV1Api): Promise<V1PersistentVolumeClaim> => core.readNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-0' });
const request = (core: CoreV1Api, storage: string) =>
  core.patchNamespacedPersistentVolumeClaim({ namespace: 'db', name: 'data-pg-0', body: { spec: { resources: { requests: { storage } } } } }, mergePatch);

function summary(pvc: V1PersistentVolumeClaim): string {
  return `request=${pvc.spec?.resources?.requests?.storage ?? ''} capacity=${pvc.status?.capacity?.storage ?? ''} allocated=${pvc.status?.allocatedResources?.storage ?? ''} status=${pvc.status?.allocatedResourceStatuses?.storage ?? ''}`;
}

describe('KEP-1790 user flows against the sandbox', () => {
  it('case 0: a new PVC is provisioned, bound and at its requested capacity', async () => {
    const { kube, core } = await world({});
    try {
      assert.equal(summary(await read(core)), 'request=10Gi capacity=10Gi allocated= status=');
      assert.equal((await read(core)).status?.phase, 'Bound');
    } finally {
      await kube.close();
    }
  });

  it('case 1: controller expansion fails terminally at 100Gi, quota keeps counting 100Gi, a lower request recovers', async () => {
    const { kube, core } = await world({ maxVolumeSize: '50Gi' }, { 'requests.storage': '200Gi' });
    try {
      await request(core, '100Gi');
      kube.tick();
      assert.equal(summary(await read(core)), 'request=100Gi capacity=10Gi allocated=100Gi status=ControllerResizeInProgress');
      kube.tick();
      const failed = await read(core);
      assert.equal(summary(failed), 'request=100Gi capacity=10Gi allocated=100Gi status=ControllerResizeInfeasible');
      assert.equal(failed.status?.conditions?.find((c) => c.type === 'ControllerResizeError')?.status, 'True');
      const events = await core.listNamespacedEvent({ namespace: 'db', fieldSelector: 'involvedObject.name=data-pg-0,reason=VolumeResizeFailed' });
      assert.match(events.items[0]?.message ?? '', /^resize volume "pvc-.*" by resizer "disk\.csi\.test" failed: rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 53687091200$/);
      kube.tick(3);
      assert.equal(summary(await read(core)), 'request=100Gi capacity=10Gi allocated=100Gi status=ControllerResizeInfeasible', 'a terminal failure is not retried');
      await request(core, '20Gi');
      const quota = await core.readNamespacedResourceQuota({ namespace: 'db', name: 'q' });
      assert.equal(quota.status?.used?.['requests.storage'], '100Gi', 'max(request, allocatedResources) until the resizer moves on');
      kube.tick(6);
      assert.equal(summary(await read(core)), 'request=20Gi capacity=20Gi allocated=20Gi status=');
      kube.tick();
      assert.equal((await core.readNamespacedResourceQuota({ namespace: 'db', name: 'q' })).status?.used?.['requests.storage'], '20Gi');
    } finally {
      await kube.close();
    }
  });

  it('case 2: a node-only driver fails on the node (NodeResizeInfeasible, reset by the resizer for another try), then a lower request succeeds', async () => {
    const { kube, core } = await world({ expansion: 'node-only', maxVolumeSize: '30Gi' });
    try {
      await request(core, '100Gi');
      const seen: string[] = [];
      for (let i = 0; i < 7; i++) {
        kube.tick();
        seen.push((await read(core)).status?.allocatedResourceStatuses?.storage ?? '');
      }
      // The kubelet's NodeExpandVolume fails; the external-resizer at once marks the node step pending again (its
      // "case 3": a driver without controller expansion is asked nothing), and the kubelet tries again.
      assert.deepEqual(seen, ['ControllerResizeInProgress', 'NodeResizePending', 'NodeResizeInProgress', 'NodeResizeInfeasible', 'NodeResizePending', 'NodeResizeInProgress', 'NodeResizeInfeasible']);
      const failed = await read(core);
      assert.equal(summary(failed), 'request=100Gi capacity=10Gi allocated=100Gi status=NodeResizeInfeasible');
      assert.equal(failed.status?.conditions?.find((c) => c.type === 'NodeResizeError')?.message, 'failed to expand pvc with rpc error: code = OutOfRange desc = Requested capacity 107374182400 exceeds maximum allowed 32212254720');
      await request(core, '20Gi');
      kube.tick(8);
      assert.equal(summary(await read(core)), 'request=20Gi capacity=20Gi allocated=20Gi status=');
      assert.equal((await read(core)).status?.conditions, undefined, 'the node step done, no resize condition is left');
    } finally {
      await kube.close();
    }
  });

  for (const [name, steps] of [
    ['case 3: a lower request during ControllerResizeInProgress is not attempted; 100Gi completes', ['100Gi', '20Gi']],
    ['case 4: the same after the controller lost its state: it still expands to allocatedResources', ['100Gi', '10.5Gi']],
    ['case 5: rapid 100Gi, 200Gi, then 20Gi: only the first size in flight completes', ['100Gi', '200Gi', '20Gi']],
  ] as const) {
    it(name, async () => {
      const { kube, core } = await world({ ticksPerPhase: 4 });
      try {
        await request(core, steps[0]);
        kube.tick(2);
        for (const size of steps.slice(1)) await request(core, size);
        kube.tick(20);
        const pvc = await read(core);
        assert.equal(pvc.status?.capacity?.storage, '100Gi');
        assert.equal(pvc.status?.allocatedResources?.storage, '100Gi');
        // The server stores the request in canonical form: 10.5Gi reads back as 10752Mi, the same size.
        assert.equal(pvc.spec?.resources?.requests?.storage, steps.at(-1) === '10.5Gi' ? '10752Mi' : steps.at(-1));
      } finally {
        await kube.close();
      }
    });
  }

  it('offline node expansion waits for the pod to be restarted', async () => {
    const { kube, core } = await world({ nodeExpansion: 'offline' });
    try {
      await request(core, '20Gi');
      kube.tick(8);
      assert.equal(summary(await read(core)), 'request=20Gi capacity=10Gi allocated=20Gi status=NodeResizePending');
      await core.deleteNamespacedPod({ namespace: 'db', name: 'pg-0' });
      kube.tick(8);
      assert.equal(summary(await read(core)), 'request=20Gi capacity=20Gi allocated=20Gi status=');
    } finally {
      await kube.close();
    }
  });

  it('offline node expansion finishes in a pod restarted right after the controller step, before the kubelet looked', async () => {
    const { kube, core } = await world({ nodeExpansion: 'offline', ticksPerPhase: 1 });
    try {
      await request(core, '20Gi');
      for (let i = 0; i < 8 && (await read(core)).status?.allocatedResourceStatuses?.storage !== 'NodeResizePending'; i++) kube.tick();
      assert.equal(summary(await read(core)), 'request=20Gi capacity=10Gi allocated=20Gi status=NodeResizePending');
      await core.deleteNamespacedPod({ namespace: 'db', name: 'pg-0' });
      kube.tick(8);
      assert.equal(summary(await read(core)), 'request=20Gi capacity=20Gi allocated=20Gi status=');
    } finally {
      await kube.close();
    }
  });

  it('transient driver errors show as ControllerResizeError and are retried until success', async () => {
    const { kube, core } = await world({ transientErrorRate: 0.6 });
    try {
      await request(core, '20Gi');
      let sawError = false;
      for (let i = 0; i < 40 && (await read(core)).status?.capacity?.storage !== '20Gi'; i++) {
        kube.tick();
        sawError ||= (await read(core)).status?.conditions?.some((c) => c.type === 'ControllerResizeError' || c.type === 'NodeResizeError') ?? false;
      }
      assert.ok(sawError, 'a transient error was reported on the way');
      assert.equal(summary(await read(core)), 'request=20Gi capacity=20Gi allocated=20Gi status=');
    } finally {
      await kube.close();
    }
  });
});
