// What the kubelet reports of each mounted volume (pkg/kubelet/metrics/collectors/volume_stats.go): used and capacity
// bytes, inodes, for the claims of Running pods only (a kubelet reports the volumes its pods mount). Used bytes and
// inodes grow with the sandbox's clock at the seeded pace, never past what the file system holds; the file system is
// the claim's capacity less the seeded overhead (an ext4 file system keeps some of its volume for itself), so the
// kubelet's capacity is not the claim's size. A volume grown by an expansion has room again from then on.
import { sandboxBytesOf } from '../quantity.ts';
import { mustResourceType, type KubeObject } from '../store.ts';
import type { World } from '../controllers/world.ts';

const podType = mustResourceType('v1', 'Pod');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');

const dayMs = 86_400_000;
/** ext4's default bytes-per-inode (mke2fs.conf `inode_ratio`): inodes of a volume seeded without a count. */
const bytesPerInode = 16_384;
/** Inodes a fresh ext4 file system has used (the reserved ones, lost+found). */
const freshInodes = 11;
/** Average file size the sandbox assumes when no inode usage is seeded: inodes used follow bytes used. */
const bytesPerFile = 65_536;

/** A `volumeUsage` entry of the seed, read. */
export interface VolumeUsageSeed {
  namespace: string;
  claim: string;
  usedBytes: bigint;
  bytesPerDay: bigint;
  /** The file system's inodes at the claim's first capacity; scaled with the capacity after an expansion. */
  inodes?: bigint;
  inodesUsed?: bigint;
  inodesPerDay?: bigint;
  /** Millionths of the claim's capacity the file system keeps for itself. */
  overheadPpm: bigint;
}

/** One claim's statistics at a time, as the kubelet's six families report them. */
export interface VolumeStatsSample {
  namespace: string;
  claim: string;
  /** The scrape's labels: the node's kubelet and the job (as in ../shared/conformance/prometheus/real-kubelet/). */
  instance: string;
  values: {
    kubelet_volume_stats_used_bytes: number;
    kubelet_volume_stats_capacity_bytes: number;
    kubelet_volume_stats_available_bytes: number;
    kubelet_volume_stats_inodes: number;
    kubelet_volume_stats_inodes_used: number;
    kubelet_volume_stats_inodes_free: number;
  };
  /** Used bytes per second over the window asked (deriv), where the history allows a slope. */
  bytesPerSecond: (windowMs: number, atMs: number) => number;
}

interface VolumeState {
  seed: VolumeUsageSeed;
  /** Used bytes and inodes at `atMs`, advanced at each reading (so data is never written past a full disk). */
  usedBytes: number;
  inodesUsed: number | undefined;
  atMs: number;
  /** Since when the file system has been full (its used bytes stopped at its size); undefined while it has room. */
  fullSinceMs?: number;
  /** inodes per byte of file system, fixed when first seen (ext4 grows its inode tables with the file system). */
  inodesPerByte: number | undefined;
}

export class VolumeStats {
  private readonly states = new Map<string, VolumeState>();
  /** The last reading, kept while the clock and the store are where they were (a pass asks five queries at one time). */
  private last: { key: string; samples: VolumeStatsSample[] } | undefined;

  constructor(private readonly world: World, seeds: readonly VolumeUsageSeed[]) {
    const now = world.now().getTime();
    for (const seed of seeds) {
      this.states.set(`${seed.namespace}/${seed.claim}`, {
        seed, usedBytes: Number(seed.usedBytes), inodesUsed: seed.inodesUsed === undefined ? undefined : Number(seed.inodesUsed), atMs: now, inodesPerByte: undefined,
      });
    }
  }

  /** Every mounted volume's statistics at `atMs` (the sandbox's clock unless a query names a time). */
  samples(atMs: number): VolumeStatsSample[] {
    const key = `${atMs}/${this.world.store.currentResourceVersion}`;
    if (this.last?.key === key) return this.last.samples;
    const samples = this.read(atMs);
    this.last = { key, samples };
    return samples;
  }

  /**
   * From now on, `seed`'s usage and pace (data deleted or written at once: the demo's and the tests' "a person cleans
   * up"); its history before now is that pace extended back, as a seed's.
   */
  setUsage(seed: VolumeUsageSeed): void {
    const key = `${seed.namespace}/${seed.claim}`;
    const before = this.states.get(key);
    this.states.set(key, {
      seed, usedBytes: Number(seed.usedBytes), inodesUsed: seed.inodesUsed === undefined ? undefined : Number(seed.inodesUsed),
      atMs: this.world.now().getTime(), inodesPerByte: before?.inodesPerByte,
    });
    this.last = undefined;
  }

  private read(atMs: number): VolumeStatsSample[] {
    const samples: VolumeStatsSample[] = [];
    for (const { namespace, claim, node } of this.mountedClaims()) {
      const pvc = this.world.store.peek(pvcType, namespace, claim);
      const claimBytes = sandboxBytesOf((pvc?.status as { capacity?: { storage?: unknown } } | undefined)?.capacity?.storage);
      if (!pvc || pvc.status?.phase !== 'Bound' || claimBytes === undefined) continue;
      const key = `${namespace}/${claim}`;
      const state = this.states.get(key) ?? this.unseeded(namespace, claim, atMs);
      this.states.set(key, state);
      const capacity = Number(claimBytes * (1_000_000n - state.seed.overheadPpm) / 1_000_000n);
      state.inodesPerByte ??= state.seed.inodes === undefined ? 1 / bytesPerInode : Number(state.seed.inodes) / capacity;
      const inodes = Math.floor(capacity * state.inodesPerByte);
      this.advance(state, atMs, capacity, inodes);
      const used = Math.max(0, Math.min(capacity, Math.round(state.usedBytes + this.perMs(state.seed.bytesPerDay) * (atMs - state.atMs))));
      const inodesUsed = state.inodesUsed === undefined ? Math.min(inodes, freshInodes + Math.floor(used / bytesPerFile))
        : Math.max(0, Math.min(inodes, Math.round(state.inodesUsed + this.perMs(state.seed.inodesPerDay ?? 0n) * (atMs - state.atMs))));
      samples.push({
        namespace, claim, instance: `${node}:10250`,
        values: {
          kubelet_volume_stats_used_bytes: used,
          kubelet_volume_stats_capacity_bytes: capacity,
          kubelet_volume_stats_available_bytes: capacity - used,
          kubelet_volume_stats_inodes: inodes,
          kubelet_volume_stats_inodes_used: inodesUsed,
          kubelet_volume_stats_inodes_free: inodes - inodesUsed,
        },
        bytesPerSecond: (windowMs, at) => this.slope(state, capacity, windowMs, at),
      });
    }
    return samples;
  }

  /** Claims mounted by Running pods, with the pod's node (the kubelet that reports them). */
  private mountedClaims(): Array<{ namespace: string; claim: string; node: string }> {
    const mounted: Array<{ namespace: string; claim: string; node: string }> = [];
    for (const pod of this.world.store.peekList(podType)) {
      if (pod.status?.phase !== 'Running' || pod.metadata.deletionTimestamp) continue;
      const node = typeof pod.spec?.nodeName === 'string' ? pod.spec.nodeName : 'sandbox-node';
      for (const claim of claimsOf(pod)) mounted.push({ namespace: pod.metadata.namespace ?? 'default', claim, node });
    }
    return mounted;
  }

  /** A mounted volume the seed does not name: an empty file system that stays so. */
  private unseeded(namespace: string, claim: string, atMs: number): VolumeState {
    return { seed: { namespace, claim, usedBytes: 0n, bytesPerDay: 0n, overheadPpm: 0n }, usedBytes: 0, inodesUsed: undefined, atMs, inodesPerByte: undefined };
  }

  /** Moves the state forward to `atMs`, filling at its pace up to the file system's size (what does not fit is not written). */
  private advance(state: VolumeState, atMs: number, capacity: number, inodes: number): void {
    if (atMs <= state.atMs) return;
    const elapsed = atMs - state.atMs;
    const rate = this.perMs(state.seed.bytesPerDay);
    const raw = state.usedBytes + rate * elapsed;
    if (raw >= capacity && rate > 0) {
      // It filled up between the readings (or was full already): when, for the history deriv reads.
      state.fullSinceMs ??= state.usedBytes >= capacity ? state.atMs : state.atMs + (capacity - state.usedBytes) / rate;
      state.usedBytes = Math.max(capacity, state.usedBytes);
    } else {
      state.usedBytes = raw;
      state.fullSinceMs = undefined;
    }
    if (state.inodesUsed !== undefined) state.inodesUsed = Math.min(Math.max(inodes, state.inodesUsed), state.inodesUsed + this.perMs(state.seed.inodesPerDay ?? 0n) * elapsed);
    state.atMs = atMs;
  }

  private perMs(perDay: bigint): number {
    return Number(perDay) / dayMs;
  }

  /**
   * deriv(used[window]) at `atMs`: the least-squares slope of the samples a scrape every minute would have taken. The
   * history before the seed is its pace extended back (a volume seeded at 8.5Gi growing 0.5Gi a day had 8Gi a day
   * before), never below empty; a volume that was full part of the window has a flatter slope, as Prometheus says.
   */
  private slope(state: VolumeState, capacity: number, windowMs: number, atMs: number): number {
    const rate = this.perMs(state.seed.bytesPerDay);
    const full = state.fullSinceMs;
    // The used bytes at a past time: full since `fullSinceMs`, before that (or while it has room) its pace back.
    const at = (t: number): number => Math.max(0, Math.min(capacity,
      full !== undefined ? (t >= full ? state.usedBytes : state.usedBytes - rate * (full - t)) : state.usedBytes + rate * (t - state.atMs)));
    const start = atMs - windowMs;
    if (rate === 0) return 0;
    // Linear all through the window (the usual case): the slope is the pace itself.
    const raw = (t: number): number => state.usedBytes + rate * (t - state.atMs);
    if (full === undefined && raw(start) >= 0 && raw(atMs) <= capacity) return rate * 1000;
    const stepMs = 60_000;
    const points: Array<[number, number]> = [];
    for (let t = atMs; t >= start; t -= stepMs) points.push([(t - atMs) / 1000, at(t)]);
    // Least squares about the means (as Prometheus's linearRegression), so a flat history is exactly flat.
    const meanX = points.reduce((sum, [x]) => sum + x, 0) / points.length;
    const meanY = points.reduce((sum, [, y]) => sum + y, 0) / points.length;
    const covariance = points.reduce((sum, [x, y]) => sum + (x - meanX) * (y - meanY), 0);
    const variance = points.reduce((sum, [x]) => sum + (x - meanX) ** 2, 0);
    return variance === 0 ? 0 : covariance / variance;
  }
}

function claimsOf(pod: KubeObject): string[] {
  return ((pod.spec?.volumes ?? []) as Array<{ persistentVolumeClaim?: { claimName?: string } }>)
    .flatMap((v) => (v.persistentVolumeClaim?.claimName ? [v.persistentVolumeClaim.claimName] : []));
}
