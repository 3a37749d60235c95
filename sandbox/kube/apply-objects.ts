// Writes objects into the sandbox through its API as the admin (client-node, create or replace, like `kubectl apply`):
// the integration tests and the demo apply the RBAC manifest `sts-volume-gitops rbac` generates this way, then run the
// product with a kubeconfig of a restricted identity (KubeSandbox.addIdentity).
import { ApiException, KubernetesObjectApi, type KubernetesObject } from '@kubernetes/client-node';
import type { KubeSandbox } from './index.ts';

/** Creates each object, or replaces it when it exists (the admin's write: RBAC does not restrict it). */
export async function applyObjects(kube: KubeSandbox, objects: readonly Record<string, unknown>[]): Promise<void> {
  const client = KubernetesObjectApi.makeApiClient(kube.kubeConfig());
  for (const object of objects) {
    const spec = object as KubernetesObject;
    try {
      await client.create(spec);
    } catch (error) {
      if (!(error instanceof ApiException && error.code === 409)) throw error;
      const existing = await client.read({ apiVersion: spec.apiVersion ?? '', kind: spec.kind ?? '', metadata: { name: spec.metadata?.name ?? '', namespace: spec.metadata?.namespace ?? '' } });
      await client.replace({ ...spec, metadata: { ...spec.metadata, resourceVersion: existing.metadata?.resourceVersion } });
    }
  }
}
