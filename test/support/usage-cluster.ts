// What the usage tests (a pass's, a pull request's check's) start from: a repository of StatefulSet manifests written
// to disk, and the Kubernetes sandbox running them at a fixed clock, its Prometheus serving the volumes' usage.
import { mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { load } from 'js-yaml';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import { writeFiles } from './passes.ts';

/** The sandbox's clock: usage and its pace are read at this instant. */
export const usageClock = Date.parse('2026-11-28T08:00:00Z');

/** One claim's usage, in the sandbox seed's `volumeUsage` shape. */
export interface VolumeUsageSeed {
  namespace: string;
  claim: string;
  used: string;
  perDay?: string;
  /** The file system's inodes and those used (the sandbox derives them from the bytes when absent). */
  inodes?: number;
  inodesUsed?: number;
}

/**
 * `manifests` (path -> text) written under `<dir>/repo` (a fresh temporary `dir`), and a sandbox running them in the
 * namespaces db and cache, on an expandable default StorageClass, their volumes used as `volumeUsage` says.
 */
export async function startUsageCluster(name: string, manifests: Record<string, string>, volumeUsage: readonly VolumeUsageSeed[]): Promise<{ dir: string; kube: KubeSandbox }> {
  const dir = await mkdtemp(join(tmpdir(), `sts-${name}-`));
  await writeFiles(join(dir, 'repo'), manifests);
  const kube = await startKubeSandbox({
    now: () => new Date(usageClock),
    seed: {
      namespaces: ['db', 'cache'], storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
      statefulSets: Object.values(manifests).map((text) => load(text)),
      volumeUsage,
    },
  });
  return { dir, kube };
}
