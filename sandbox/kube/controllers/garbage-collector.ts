// The garbage collector: finishes orphan deletes (strip dependents' ownerReferences to the owner, drop the `orphan`
// finalizer, and the owner is gone) and deletes dependents whose owner no longer exists (Background propagation).
import { resourceTypeOf, resourceTypes, type KubeObject, type ResourceType } from '../store.ts';
import type { World } from './world.ts';

export function collectGarbage(world: World): void {
  const { store } = world;
  const all = resourceTypes.flatMap((t) => store.peekList(t).map((object) => ({ type: t, object })));
  const liveUids = new Set(all.map(({ object }) => object.metadata.uid));
  // Dependents by owner uid, as the collector's graph holds them: an orphan delete visits its own, not every object.
  const dependentsOf = new Map<string, Array<{ type: ResourceType; object: Readonly<KubeObject> }>>();
  for (const entry of all) {
    for (const ref of entry.object.metadata.ownerReferences ?? []) {
      const dependents = dependentsOf.get(ref.uid);
      if (dependents) dependents.push(entry);
      else dependentsOf.set(ref.uid, [entry]);
    }
  }
  for (const { type, object } of all) {
    if (!object.metadata.deletionTimestamp) continue;
    if (!noticed(world, object)) continue;
    const finalizers = object.metadata.finalizers ?? [];
    if (finalizers.includes('orphan')) {
      for (const dependent of dependentsOf.get(object.metadata.uid ?? '') ?? []) {
        const current = store.peek(dependent.type, dependent.object.metadata.namespace, dependent.object.metadata.name);
        if (!current) continue;
        const kept = (current.metadata.ownerReferences ?? []).filter((r) => r.uid !== object.metadata.uid);
        const metadata = { ...current.metadata, ownerReferences: kept };
        if (kept.length === 0) delete (metadata as Partial<KubeObject['metadata']>).ownerReferences;
        store.replace(dependent.type, { ...current, metadata });
      }
    }
    const remaining = finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
    const current = store.peek(type, object.metadata.namespace, object.metadata.name);
    if (!current) continue;
    if (remaining.length === 0) store.remove(type, object.metadata.namespace, object.metadata.name);
    else if (remaining.length !== finalizers.length) store.replace(type, { ...current, metadata: { ...current.metadata, finalizers: remaining } });
  }
  for (const uid of world.deletionsSeenAt.keys()) if (!liveUids.has(uid)) world.deletionsSeenAt.delete(uid);
  // Background propagation: dependents of owners that no longer exist go too. An owner of a kind the server does not
  // serve (a custom resource such as Prometheus) cannot be looked up: the real collector gets a restMappingError, retries
  // and deletes nothing, so its dependents stay.
  for (const { type, object } of all) {
    const refs = object.metadata.ownerReferences ?? [];
    if (refs.length === 0 || refs.some((r) => liveUids.has(r.uid))) continue;
    if (refs.some((r) => resourceTypeOf(r.apiVersion, r.kind) === undefined)) continue;
    if (!store.peek(type, object.metadata.namespace, object.metadata.name)) continue;
    store.remove(type, object.metadata.namespace, object.metadata.name);
  }
}

/** Whether the collector has had the time to notice this deletion (see World.garbageCollectorDelayMs). */
function noticed(world: World, object: KubeObject): boolean {
  const uid = object.metadata.uid ?? '';
  const now = world.now().getTime();
  const seenAt = world.deletionsSeenAt.get(uid) ?? now;
  world.deletionsSeenAt.set(uid, seenAt);
  return now - seenAt >= world.garbageCollectorDelayMs;
}
