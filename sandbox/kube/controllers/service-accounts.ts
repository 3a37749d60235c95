// The serviceaccount controller's visible part: every active namespace has a ServiceAccount named `default`
// (kubectl reads it before it applies a pod-bearing object).
import { mustResourceType } from '../store.ts';
import type { World } from './world.ts';

const namespaceType = mustResourceType('v1', 'Namespace');
const serviceAccountType = mustResourceType('v1', 'ServiceAccount');

export function ensureDefaultServiceAccounts(world: World): void {
  for (const namespace of world.store.list(namespaceType)) {
    if (namespace.metadata.deletionTimestamp) continue;
    if (world.store.get(serviceAccountType, namespace.metadata.name, 'default')) continue;
    world.store.create(serviceAccountType, { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'default', namespace: namespace.metadata.name } });
  }
}
