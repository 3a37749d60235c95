// The cluster as a pass that holds the target's Lease writes to it: every write first asks the Lease whether it is
// still held (lazy-lease.ts `assertHeld`), so a pass that could not renew in time, or was taken over, stops writing
// before another pass may take the target. Reads, dry runs and the Lease's own writes go through unchanged. Each method
// of the port is judged in one table, so a new write cannot slip past the fence unjudged.
import type { ClusterPort } from '../ports.ts';

type Kind = 'read' | 'write' | 'lease';

const methods: Record<keyof ClusterPort, Kind> = {
  readSnapshot: 'read', listVolumeAttributesClasses: 'read', listRecreationRecords: 'read', listLegacyRecreationRecords: 'read',
  listPvcWarningEvents: 'read', getStatefulSet: 'read', readLease: 'read', findEvent: 'read',
  // A server-side dry run stores nothing.
  dryRunPvcStorage: 'read',
  patchPvcStorage: 'write', replaceStatefulSet: 'write', deleteStatefulSetOrphan: 'write', createStatefulSet: 'write',
  saveRecreationRecord: 'write', deleteRecreationRecord: 'write', annotateStatefulSet: 'write', annotatePvc: 'write',
  recordEvent: 'write', countEventAgain: 'write', rewriteOutstandingRecords: 'write', markLeaseFree: 'write',
  // The hold itself: optimistic on its own resourceVersion.
  writeLease: 'lease', releaseLease: 'lease',
};

export function fencedCluster(cluster: ClusterPort, fence: { assertHeld(): void }): ClusterPort {
  return new Proxy(cluster, {
    get(target, property): unknown {
      const value: unknown = Reflect.get(target, property);
      if (typeof value !== 'function') return value;
      const method = (value as (...args: unknown[]) => unknown).bind(target);
      if (methods[property as keyof ClusterPort] !== 'write') return method;
      // Async, so a refusal is a rejection like any failed write, whoever catches it.
      return async (...args: unknown[]): Promise<unknown> => {
        fence.assertHeld();
        return await method(...args);
      };
    },
  });
}
