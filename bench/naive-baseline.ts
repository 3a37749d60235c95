// The naive controller the figures are compared with: it reads the world one object at a time (a GET per
// StatefulSet, per PVC, per pod; quotas and StorageClasses listed), with the same concurrency as the controller.
import { AppsV1Api, CoreV1Api, StorageV1Api, type KubeConfig } from '@kubernetes/client-node';
import { mapWithConcurrency } from '../functions/engine/concurrency.ts';
import { namespaceName, setNames, templateNames, type WorldSize } from './worlds.ts';

export async function naiveRead(config: KubeConfig, size: WorldSize, concurrency: number): Promise<{ calls: number }> {
  const core = config.makeApiClient(CoreV1Api);
  const apps = config.makeApiClient(AppsV1Api);
  const storage = config.makeApiClient(StorageV1Api);
  const requests: Array<() => Promise<unknown>> = [() => storage.listStorageClass()];
  for (let i = 0; i < size.namespaces; i++) requests.push(() => core.listNamespacedResourceQuota({ namespace: namespaceName(i) }));
  for (const set of setNames(size)) {
    requests.push(() => apps.readNamespacedStatefulSet({ namespace: set.namespace, name: set.name }));
    for (let ordinal = 0; ordinal < size.replicas; ordinal++) {
      requests.push(() => core.readNamespacedPod({ namespace: set.namespace, name: `${set.name}-${ordinal}` }));
      for (const template of templateNames) {
        requests.push(() => core.readNamespacedPersistentVolumeClaim({ namespace: set.namespace, name: `${template}-${set.name}-${ordinal}` }));
      }
    }
  }
  await mapWithConcurrency(requests, concurrency, (request) => request());
  return { calls: requests.length };
}

/** Calls of one naive read of the world (what naiveRead sends): StorageClasses, quotas, then every object by name. */
export function naiveReadCalls(size: WorldSize): number {
  const pvcs = size.sets * size.replicas * templateNames.length;
  return 1 + size.namespaces + size.sets * (1 + size.replicas) + pvcs;
}

/** Calls a naive resize makes: the reads above each pass, then per PVC a GET, a dry run, the patch and an Event. */
export function naiveResizeCalls(size: WorldSize, passes: number, templateUpdateCallsPerSet: number): number {
  const pvcs = size.sets * size.replicas * templateNames.length;
  return naiveReadCalls(size) * passes + pvcs * 4 + size.sets * templateUpdateCallsPerSet;
}
