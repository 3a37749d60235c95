// The kubelet of the sandbox's one node: a Pending pod whose PVCs are all Bound is placed on the node and starts
// Running and Ready, every container running and ready; and each running pod is synced, as the kubelet's pod workers
// do: when it starts, then again every `--sync-frequency` (jittered up to 1.5 times). A sync is when the kubelet
// looks at the volumes of a running pod again (node-expansion.ts).
import { mustResourceType } from '../store.ts';
import { isRunningAndReady } from './statefulset.ts';
import type { World } from './world.ts';

const podType = mustResourceType('v1', 'Pod');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

/** Starts the pods that can start; returns their uids. */
export function startPods(world: World): Set<string> {
  const started = new Set<string>();
  for (const pod of world.store.peekList(podType)) {
    if (pod.status?.phase !== 'Pending' || pod.metadata.deletionTimestamp) continue;
    const claims = ((pod.spec?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>)
      .flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));
    const bound = claims.every((name) => world.store.peek(pvcType, pod.metadata.namespace, name)?.status?.phase === 'Bound');
    if (!bound) continue;
    const now = world.store.timestamp();
    world.store.replace(podType, {
      ...pod,
      // The scheduler's binding, which the sandbox has no scheduler to make: the pod runs on the one node.
      spec: { ...pod.spec, nodeName: world.kubelet.nodeName },
      status: {
        phase: 'Running', startTime: now, podIP: '10.0.0.1',
        conditions: ['PodScheduled', 'Initialized', 'ContainersReady', 'Ready'].map((type) => ({ type, status: 'True', lastTransitionTime: now })),
        containerStatuses: ((pod.spec?.containers ?? []) as Array<{ name: string; image?: string }>).map((c) => ({
          name: c.name, image: c.image ?? '', imageID: '', ready: true, started: true, restartCount: 0, state: { running: { startedAt: now } },
        })),
      },
    });
    if (pod.metadata.uid) started.add(pod.metadata.uid);
  }
  return started;
}

/**
 * The running pods the kubelet syncs this tick (by uid): those `startPods` just started, and those whose resync is due.
 * Each is given its next sync; pods no longer running are forgotten.
 */
export function syncPods(world: World, started: ReadonlySet<string>): Set<string> {
  const nowMs = world.now().getTime();
  const syncs = world.sidecars.podSyncs;
  const running = new Set<string>();
  const synced = new Set<string>();
  for (const pod of world.store.peekList(podType)) {
    const uid = pod.metadata.uid;
    if (!uid || pod.metadata.deletionTimestamp || !isRunningAndReady(pod)) continue;
    running.add(uid);
    const due = syncs.get(uid);
    if (!started.has(uid) && due !== undefined && due > nowMs) continue;
    synced.add(uid);
    syncs.set(uid, nowMs + resyncDelayMs(world));
  }
  for (const uid of syncs.keys()) if (!running.has(uid)) syncs.delete(uid);
  return synced;
}

/** `wait.Jitter(resyncInterval, 0.5)`: the interval, plus up to half of it. */
function resyncDelayMs(world: World): number {
  const frequency = world.kubelet.syncFrequencyMs;
  return frequency <= 0 ? 0 : frequency * (1 + 0.5 * world.random());
}
