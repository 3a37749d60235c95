// The benchmark's worlds: N StatefulSets x 3 replicas x 2 volumeClaimTemplates spread over M namespaces, each
// namespace with a storage ResourceQuota, one expandable default StorageClass. Manifests are YAML, as in a real repo.
import { stringify } from 'yaml';
import type { GitSnapshot, GitSourcePort } from '../functions/engine/ports.ts';

export interface WorldSize {
  sets: number;
  namespaces: number;
  replicas: number;
}

export interface SetName {
  namespace: string;
  name: string;
}

export const templateNames = ['data', 'logs'] as const;

export function setNames(size: WorldSize): SetName[] {
  return Array.from({ length: size.sets }, (_, i) => ({ namespace: namespaceName(i % size.namespaces), name: `db-${i}` }));
}

export function namespaceName(index: number): string {
  return `team-${String(index).padStart(3, '0')}`;
}

export function statefulSetManifest(set: SetName, replicas: number, sizes: { data: string; logs: string }): Record<string, unknown> {
  const claim = (name: string, storage: string): Record<string, unknown> => ({
    metadata: { name }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } } },
  });
  return {
    apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: set.name, namespace: set.namespace, labels: { app: set.name } },
    spec: {
      replicas, serviceName: set.name, podManagementPolicy: 'Parallel', selector: { matchLabels: { app: set.name } },
      template: {
        metadata: { labels: { app: set.name } },
        spec: { containers: [{ name: 'main', image: 'postgres:16', volumeMounts: [{ name: 'data', mountPath: '/data' }, { name: 'logs', mountPath: '/logs' }] }] },
      },
      volumeClaimTemplates: [claim('data', sizes.data), claim('logs', sizes.logs)],
    },
  };
}

export function kubeSeed(size: WorldSize, sizes: { data: string; logs: string }): unknown {
  const sets = setNames(size);
  const namespaces = Array.from({ length: size.namespaces }, (_, i) => namespaceName(i));
  return {
    namespaces,
    storageClasses: [{ name: 'standard', default: true, allowVolumeExpansion: true }],
    // Room for every set of the namespace to double: quota checks are on the path but never refuse.
    resourceQuotas: namespaces.map((namespace) => ({ name: 'storage', namespace, hard: { 'requests.storage': '100Ti', persistentvolumeclaims: '100000' } })),
    statefulSets: sets.map((s) => statefulSetManifest(s, size.replicas, sizes)),
    // Every volume reports usage (the sandbox's Prometheus API); one set in ten has a replica filling up (85%, 3 days
    // from full), so the usage read proposes growth for a tenth of the sets.
    volumeUsage: sets.filter((_, i) => i % 10 === 0).map((s) => ({ namespace: s.namespace, claim: `data-${s.name}-0`, used: '8.5Gi', perDay: '0.5Gi' })),
  };
}

export function manifestFiles(size: WorldSize, sizes: { data: string; logs: string }): Record<string, string> {
  const files: Record<string, string> = {};
  for (const s of setNames(size)) files[`k8s/${s.namespace}/${s.name}.yaml`] = stringify(statefulSetManifest(s, size.replicas, sizes));
  return files;
}

/** Desired state held in memory (the cluster scenarios measure the cluster side; the GitHub scenario measures Git). */
export class MemorySource implements GitSourcePort {
  private commit = 0;
  private files = new Map<string, string>();

  set(files: Record<string, string>): void {
    this.files = new Map(Object.entries(files));
    this.commit += 1;
  }

  readBranchHead(): Promise<GitSnapshot> {
    return Promise.resolve({ commitSha: this.commit.toString(16).padStart(40, '0'), files: this.files, paths: [...this.files.keys()], tooLarge: new Map() });
  }
}
