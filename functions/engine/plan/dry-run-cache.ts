// Dry-run answers kept across passes over the same cluster connection. The server's answer to a
// storage patch depends on the PVC, the size asked, the namespace's quotas (their resourceVersion moves with
// `status.used`) and the StorageClasses; while none of those changed, asking again would get the same answer. (A
// LimitRange or webhook changed meanwhile is not seen: the real patch, which the server checks again, then fails and is
// reported as any refused patch is.) An object without a resourceVersion (never from a real server) is never cached.
import type { ClusterSnapshot } from '../../domain/live-state.ts';

const maxEntries = 50_000;

export class DryRunCache {
  private readonly answers = new Map<string, string | undefined>();

  /** The key of the dry run of `storage` on PVC `namespace/name` in this snapshot, or undefined when not cacheable. */
  key(snapshot: ClusterSnapshot, namespace: string, name: string, storage: string): string | undefined {
    const ns = snapshot.namespaces.get(namespace);
    const pvc = ns?.pvcs.find((p) => p.name === name);
    if (!ns || !pvc?.resourceVersion) return undefined;
    const quotas = ns.quotas.map((q) => q.resourceVersion);
    const classes = snapshot.storageClasses.map((c) => c.resourceVersion);
    if ([...quotas, ...classes].some((rv) => rv === undefined)) return undefined;
    return `${namespace}/${name}@${pvc.resourceVersion}=${storage}|quotas:${quotas.join(',')}|classes:${classes.join(',')}`;
  }

  has(key: string): boolean {
    return this.answers.has(key);
  }

  get(key: string): string | undefined {
    return this.answers.get(key);
  }

  set(key: string, rejection: string | undefined): void {
    this.answers.delete(key);
    this.answers.set(key, rejection);
    // Oldest first out: a Map iterates in insertion order.
    while (this.answers.size > maxEntries) {
      const oldest = this.answers.keys().next().value;
      if (oldest === undefined) break;
      this.answers.delete(oldest);
    }
  }
}

const caches = new WeakMap<object, DryRunCache>();

/**
 * One cache per cluster connection: resourceVersions only mean something within one cluster, so two clusters (or two
 * sandboxes in one test process) never share answers. Passes that reuse the connection reuse the answers.
 */
export function dryRunCacheOf(cluster: object): DryRunCache {
  let cache = caches.get(cluster);
  if (!cache) {
    cache = new DryRunCache();
    caches.set(cluster, cache);
  }
  return cache;
}
