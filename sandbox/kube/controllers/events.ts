// core/v1 Events as the real recorder writes them: repeats of the same object, reason and message are aggregated into
// one Event whose count and lastTimestamp grow.
import { mustResourceType, type KubeObject } from '../store.ts';
import type { World } from './world.ts';

const eventType = mustResourceType('v1', 'Event');

/** `host`: the node of a kubelet's Event, its source's host and reporting instance; others leave both empty (recorded). */
export function recordEvent(
  world: World, object: KubeObject, type: 'Normal' | 'Warning', reason: string, message: string, component: string, host?: string,
): void {
  const namespace = object.metadata.namespace ?? 'default';
  const existing = world.store.peekList(eventType, namespace).find((e) => {
    const involved = e.involvedObject as { uid?: string } | undefined;
    return involved?.uid === object.metadata.uid && e.reason === reason && e.message === message;
  });
  const timestamp = world.store.timestamp();
  if (existing) {
    world.store.replace(eventType, { ...existing, count: Number(existing.count ?? 1) + 1, lastTimestamp: timestamp });
    return;
  }
  world.store.create(eventType, {
    apiVersion: 'v1', kind: 'Event',
    // client-go's recorder names an Event `<object>.<UnixNano in hex>` (16 hex digits).
    metadata: { name: `${object.metadata.name}.${eventNameSuffix(world)}`, namespace },
    involvedObject: {
      apiVersion: object.apiVersion, kind: object.kind, name: object.metadata.name, namespace, uid: object.metadata.uid,
      resourceVersion: object.metadata.resourceVersion,
    },
    reason, message, type, count: 1, firstTimestamp: timestamp, lastTimestamp: timestamp, eventTime: null,
    source: { component, ...(host !== undefined ? { host } : {}) }, reportingComponent: component, reportingInstance: host ?? '',
  });
}

// client-go names an Event by the UnixNano of its first occurrence, so a listing (etcd key order) is in the order the
// Events were first recorded; the sandbox's clock has ms, so the nanoseconds only grow within one ms.
const lastNanos = new WeakMap<World, bigint>();

function eventNameSuffix(world: World): string {
  const nanos = BigInt(world.now().getTime()) * 1_000_000n + BigInt(Math.floor(world.random() * 1_000));
  const last = lastNanos.get(world) ?? 0n;
  const next = nanos > last ? nanos : last + 1n;
  lastNanos.set(world, next);
  return next.toString(16).padStart(16, '0');
}
