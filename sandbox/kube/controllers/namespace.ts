// The namespace controller: a namespace being deleted (Terminating) loses everything in it, then its `kubernetes`
// finalizer, and is gone. Nothing in this sandbox runs on a node, so its pods need no graceful shutdown.
import { mustResourceType, resourceTypes } from '../store.ts';
import type { World } from './world.ts';

const namespaceType = mustResourceType('v1', 'Namespace');

export function finalizeNamespaces(world: World): void {
  const { store } = world;
  for (const namespace of store.peekList(namespaceType)) {
    if (!namespace.metadata.deletionTimestamp) continue;
    const name = namespace.metadata.name;
    for (const type of resourceTypes.filter((t) => t.namespaced)) {
      for (const object of store.peekList(type, name)) store.remove(type, name, object.metadata.name);
    }
    store.remove(namespaceType, undefined, name);
  }
}
