// What the simulated controllers share: the store, a clock, the per-StorageClass driver profiles, and a seeded PRNG.
import { defaultServerVersion, type ServerVersion } from '../server-version.ts';
import type { ObjectStore } from '../store.ts';

export interface DriverProfile {
  /** CSI driver name used in events (`resize volume ... by resizer "<name>"`). */
  name: string;
  /** `controller+node`: the controller grows the volume, then the node grows the filesystem; `node-only`: only the node. */
  expansion: 'controller+node' | 'controller-only' | 'node-only';
  /** `offline`: the node step only runs when the pod is (re)started after the expansion began. */
  nodeExpansion: 'online' | 'offline';
  /** Largest volume the backend can provide, in bytes; beyond it expansion fails terminally. */
  maxVolumeBytes: bigint | undefined;
  /** Probability that one resize step fails transiently (ControllerResizeError/NodeResizeError) and is retried. */
  transientErrorRate: number;
  /** Ticks each resize phase takes. */
  ticksPerPhase: number;
  /** Ticks a volume modification (VolumeAttributesClass, KEP-3751) stays InProgress. */
  modifyTicks: number;
  /** VolumeAttributesClasses (by name) of this driver that it cannot apply: modifications to them are Infeasible. */
  unreachableVolumeAttributesClasses: readonly string[];
}

export const defaultDriver: DriverProfile = {
  name: 'sandbox.csi.k8s.io', expansion: 'controller+node', nodeExpansion: 'online', maxVolumeBytes: undefined,
  transientErrorRate: 0, ticksPerPhase: 1, modifyTicks: 1, unreachableVolumeAttributesClasses: [],
};

export interface World {
  store: ObjectStore;
  /** The Kubernetes version the cluster plays: which controllers its kube-controller-manager runs, what they set. */
  server: ServerVersion;
  now: () => Date;
  /** Driver profile per StorageClass name. */
  drivers: Map<string, DriverProfile>;
  /** Progress of in-flight resize phases, keyed by PVC uid. */
  resizeTicks: Map<string, number>;
  /** Progress of in-flight volume modifications (VolumeAttributesClass), keyed by PVC uid. */
  modifyTicks: Map<string, number>;
  /** The request (bytes) the expand controller last reported waiting for, per PVC uid. */
  expansionsNoticed: Map<string, bigint>;
  /** For offline node expansion: the pod (uid) that was running when the node step became pending, per PVC uid. */
  podsAtNodePending: Map<string, string>;
  random: () => number;
  /**
   * How long (sandbox clock, ms) the garbage collector takes to notice an orphan delete. A real collector acts through
   * informers some tens of ms later, so a GET right after the DELETE still sees the object with its `orphan`
   * finalizer. 0 (the default) finishes it on the next tick.
   */
  garbageCollectorDelayMs: number;
  /** When the garbage collector first saw each object (uid) marked for deletion, in sandbox-clock ms. */
  deletionsSeenAt: Map<string, number>;
}

export function createWorld(store: ObjectStore, now: () => Date, drivers = new Map<string, DriverProfile>(), seed = 7): World {
  let state = seed >>> 0 || 1;
  const random = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const deletionsSeenAt = new Map<string, number>();
  // The collector's informer sees a deletion when it is written, whenever the next tick comes.
  store.onChange((change) => {
    const uid = change.object.metadata.uid;
    if (uid !== undefined && change.object.metadata.deletionTimestamp && !deletionsSeenAt.has(uid)) deletionsSeenAt.set(uid, now().getTime());
  });
  return { store, server: defaultServerVersion, now, drivers, resizeTicks: new Map(), modifyTicks: new Map(), expansionsNoticed: new Map(), podsAtNodePending: new Map(), random, garbageCollectorDelayMs: 0, deletionsSeenAt };
}

export function driverFor(world: World, storageClassName: unknown): DriverProfile {
  return (typeof storageClassName === 'string' ? world.drivers.get(storageClassName) : undefined) ?? defaultDriver;
}
