// What the simulated controllers share: the store, a clock, the per-StorageClass driver profiles, a seeded PRNG, and
// what each controller remembers between ticks (as a real one keeps it in memory: queues, retry sets).
import { defaultServerVersion, type ServerVersion } from '../server-version.ts';
import type { ObjectStore } from '../store.ts';
import { createSidecarMemory, type SidecarMemory } from './sidecar-memory.ts';

/**
 * A CSI driver as its flags make it; the defaults and names follow csi-driver-host-path v1.17.1, recorded behind the
 * real external-resizer and external-provisioner (/work/shared/conformance/csi-v1.34.9, test/conformance/csi).
 */
export interface DriverProfile {
  /** CSI driver name: the StorageClass's provisioner, the PV's `csi.driver`, in events (`by resizer "<name>"`). */
  name: string;
  /**
   * `controller+node`: ControllerExpandVolume, then the kubelet's NodeExpandVolume; `controller-only`: the driver says no
   * node expansion is required (hostpath's --disable-node-expansion); `node-only`: no controller expansion capability
   * (the resizer's trivial resizer), only the node grows the volume.
   */
  expansion: 'controller+node' | 'controller-only' | 'node-only';
  /** `offline`: the node step only runs when the pod is (re)started after the expansion began. */
  nodeExpansion: 'online' | 'offline';
  /** Largest volume the backend can provide, in bytes (hostpath's --max-volume-size): beyond it, OutOfRange. */
  maxVolumeBytes: bigint | undefined;
  /**
   * The VolumeAttributesClass parameter names the driver can change (hostpath's --accepted-mutable-parameter-names);
   * a class with any other parameter is refused with InvalidArgument `invalid parameters: [...]`. Empty: any.
   */
  acceptedMutableParameterNames: readonly string[];
  /** Probability that one expansion call fails with a retried error (code Internal: ControllerResizeError/NodeResizeError). */
  transientErrorRate: number;
  /** Ticks each expansion call (controller or node) takes. */
  ticksPerPhase: number;
  /** Ticks ControllerModifyVolume takes once a modification is InProgress (a refusal comes on the next tick). */
  modifyTicks: number;
  /**
   * How many modifications of a volume the backend accepts within a rolling window (AWS EBS: 4 per 24h), refused past
   * it in its own words (backend-modifications.ts). Undefined: no limit.
   */
  modificationLimit: { count: number; perMs: number } | undefined;
  /** How long a modification stays under way at the backend after the driver answered (EBS's optimizing), refusing another; 0: none. */
  optimizingMs: number;
}

export const defaultDriver: DriverProfile = {
  name: 'sandbox.csi.k8s.io', expansion: 'controller+node', nodeExpansion: 'online', maxVolumeBytes: undefined,
  acceptedMutableParameterNames: [], transientErrorRate: 0, ticksPerPhase: 1, modifyTicks: 1, modificationLimit: undefined, optimizingMs: 0,
};

/** The kubelet of the sandbox's one node (recorded: ../shared/conformance/node-v1.34.9/). */
export interface KubeletProfile {
  /** The node every pod runs on: its `spec.nodeName`, and the last word of the kubelet's FileSystemResizeSuccessful. */
  nodeName: string;
  /**
   * The kubelet's `--sync-frequency`, in ms: a running pod is synced again this long after its last sync, jittered up to
   * half as long again (its pod workers' `wait.Jitter(resyncInterval, 0.5)`), and only at a sync does the kubelet see
   * that a claim its pod mounts has grown. 0 syncs every pod at every tick (the pace tests run at); a real kubelet's
   * default is 1m, the recorded one ran with 20s.
   */
  syncFrequencyMs: number;
}

export const defaultKubelet: KubeletProfile = { nodeName: 'node-1', syncFrequencyMs: 0 };

export interface World {
  store: ObjectStore;
  /** The Kubernetes version the cluster plays: which controllers its kube-controller-manager runs, what they set. */
  server: ServerVersion;
  now: () => Date;
  /** Driver profile per StorageClass name. */
  drivers: Map<string, DriverProfile>;
  kubelet: KubeletProfile;
  /** What the CSI sidecars, the expand controller and the kubelet's volume manager remember between ticks. */
  sidecars: SidecarMemory;
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
  return { store, server: defaultServerVersion, now, drivers, kubelet: { ...defaultKubelet }, sidecars: createSidecarMemory(), random, garbageCollectorDelayMs: 0, deletionsSeenAt };
}

/** The profile of the driver named `name` (a PV's `csi.driver`), if this cluster runs it. */
export function driverNamed(world: World, name: unknown): DriverProfile | undefined {
  if (typeof name !== 'string') return undefined;
  return [...world.drivers.values(), defaultDriver].find((d) => d.name === name);
}
