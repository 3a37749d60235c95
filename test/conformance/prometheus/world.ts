// The volumes of the Prometheus recordings (record.ts), as backfilled into a real Prometheus and as the Kubernetes
// sandbox is seeded to serve them: the same claims, sizes, usage, pace and inodes, so the sandbox's answers to the
// tool's queries can be held to the real ones (sandbox-answers.test.ts).
import assert from 'node:assert/strict';
import type { UsageReading } from '../../../functions/usage/read-volume-usage.ts';

const gi = 2 ** 30;

/** One claim's series in a real Prometheus: its kubelet statistics now, their pace, and the label sets it is scraped with. */
export interface BackfilledVolume {
  namespace: string;
  claim: string;
  /** The filesystem's size, as the kubelet reports it (a volume's file system is smaller than the claim). */
  capacityBytes: number;
  usedBytes: number;
  bytesPerDay: number;
  inodes: number;
  inodesUsed?: number;
  inodesPerDay?: number;
  /** One label set per series (beside namespace and persistentvolumeclaim): a scrape's instance and job. */
  series: Array<Record<string, string>>;
}

const scraped = (node: string): Record<string, string> => ({ instance: `${node}:10250`, job: 'kubelet' });

/** The world recorded: two database replicas (one nearly full, one with its inodes nearly used), a search node filling fast, and a namespace the tool does not ask about. */
export const recordedVolumes: BackfilledVolume[] = [
  { namespace: 'db', claim: 'data-pg-0', capacityBytes: 10 * gi, usedBytes: 8.5 * gi, bytesPerDay: 0.5 * gi, inodes: 655_360, inodesUsed: 200_000, inodesPerDay: 1_000, series: [scraped('10.0.1.5')] },
  { namespace: 'db', claim: 'data-pg-1', capacityBytes: 10 * gi, usedBytes: 4 * gi, bytesPerDay: 0.05 * gi, inodes: 655_360, inodesUsed: 600_000, series: [scraped('10.0.1.6')] },
  // A 100Gi claim whose ext4 file system keeps 2% for itself: the kubelet's capacity is the file system's.
  { namespace: 'search', claim: 'data-es-data-0', capacityBytes: 0.98 * 100 * gi, usedBytes: 60 * gi, bytesPerDay: 8 * gi, inodes: 6_553_600, inodesUsed: 10_000, series: [scraped('10.0.1.7')] },
  { namespace: 'other', claim: 'data-x-0', capacityBytes: 10 * gi, usedBytes: 1 * gi, bytesPerDay: 0, inodes: 655_360, inodesUsed: 50, series: [scraped('10.0.1.8')] },
];

/** The namespaces the recorded pass asks about (`other` is not among them). */
export const recordedNamespaces = ['db', 'search'];

/** The inode threshold the recorded pass asks from: growth's default, 80%. */
export const recordedInodesFrom = 80;

/** data-pg-1's inode share exactly (600,000 of 655,360 = 1875/2048, a binary fraction): the edge of the inode filter. */
export const pg1InodesPercent = (600_000 / 655_360) * 100;

/** The Kubernetes sandbox seed that serves the same volumes: their StatefulSets (so the claims exist and are mounted) and volumeUsage. */
export function sandboxSeedOf(volumes: readonly BackfilledVolume[]): unknown {
  const sets = [
    { namespace: 'db', name: 'pg', replicas: 2, size: '10Gi' },
    { namespace: 'search', name: 'es-data', replicas: 1, size: '100Gi' },
    { namespace: 'other', name: 'x', replicas: 1, size: '10Gi' },
  ];
  return {
    namespaces: ['db', 'search', 'other'],
    storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
    statefulSets: sets.map((s) => ({
      apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: s.name, namespace: s.namespace },
      spec: {
        serviceName: s.name, replicas: s.replicas, selector: { matchLabels: { app: s.name } },
        template: { metadata: { labels: { app: s.name } }, spec: { containers: [{ name: 'c', image: 'busybox' }] } },
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: s.size } } } }],
      },
    })),
    volumeUsage: volumes.map((v) => ({
      namespace: v.namespace, claim: v.claim, used: v.usedBytes, perDay: v.bytesPerDay, inodes: v.inodes,
      ...(v.inodesUsed !== undefined ? { inodesUsed: v.inodesUsed } : {}), ...(v.inodesPerDay !== undefined ? { inodesPerDay: v.inodesPerDay } : {}),
      ...(v.claim === 'data-es-data-0' ? { filesystemOverhead: 0.02 } : {}),
    })),
  };
}

/**
 * What a read of `db` and `search` (inodes from `recordedInodesFrom`) must find in this world, from a real Prometheus or
 * the sandbox: the three claims asked about, data-pg-0's bytes and pace, inodes only for data-pg-1 (the one above 80%) (within `paceTolerance` of 0.5Gi a day, relative), and the 100Gi
 * claim's 98Gi file system.
 */
export function assertReadsRecordedWorld(reading: UsageReading, paceTolerance: number): void {
  assert.ok(reading.ok, reading.ok ? '' : reading.failure.message);
  assert.equal(reading.queries, 5);
  assert.deepEqual([...reading.claims.keys()].sort(), ['db/data-pg-0', 'db/data-pg-1', 'search/data-es-data-0']);
  const pg0 = reading.claims.get('db/data-pg-0');
  // Asked from `recordedInodesFrom` (80%): data-pg-0's inodes (31%) are not read, data-pg-1's (92%) are.
  assert.deepEqual([pg0?.usedBytes, pg0?.capacityBytes, pg0?.inodesUsed, pg0?.inodes], [8.5 * gi, 10 * gi, undefined, undefined]);
  const pg1 = reading.claims.get('db/data-pg-1');
  assert.deepEqual([pg1?.inodesUsed, pg1?.inodes], [600_000, 655_360]);
  assert.equal(reading.claims.get('search/data-es-data-0')?.inodes, undefined);
  assert.ok(Math.abs((pg0?.bytesPerDay ?? 0) / (0.5 * gi) - 1) <= paceTolerance, `0.5Gi a day, read ${pg0?.bytesPerDay}`);
  // The file system of a 100Gi claim is 98Gi: full is measured over that.
  assert.equal(reading.claims.get('search/data-es-data-0')?.capacityBytes, 98 * gi);
}
