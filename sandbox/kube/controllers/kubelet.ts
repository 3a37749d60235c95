// The kubelet's part in pod lifecycle: a Pending pod whose PVCs are all Bound starts Running and Ready, every container
// running and ready.
import { mustResourceType } from '../store.ts';
import type { World } from './world.ts';

const podType = mustResourceType('v1', 'Pod');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

export function startPods(world: World): void {
  for (const pod of world.store.peekList(podType)) {
    if (pod.status?.phase !== 'Pending' || pod.metadata.deletionTimestamp) continue;
    const claims = ((pod.spec?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>)
      .flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));
    const bound = claims.every((name) => world.store.peek(pvcType, pod.metadata.namespace, name)?.status?.phase === 'Bound');
    if (!bound) continue;
    const now = world.store.timestamp();
    world.store.replace(podType, {
      ...pod,
      status: {
        phase: 'Running', startTime: now, podIP: '10.0.0.1',
        conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
        containerStatuses: ((pod.spec?.containers ?? []) as Array<{ name: string; image?: string }>).map((c) => ({
          name: c.name, image: c.image ?? '', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } },
        })),
      },
    });
  }
}
