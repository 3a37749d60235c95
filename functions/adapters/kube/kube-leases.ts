// The target's Lease through client-node, for KubeCluster: read, taken or renewed (an optimistic PUT on the version a
// pass read), written free, its outstanding-recreations mark replaced under another holder, and released; with the two
// marks a pass leaves on it as annotations (engine/ports.ts LeaseMarks).
import { V1MicroTime, type CoordinationV1Api, type V1Lease, type V1LeaseSpec } from '@kubernetes/client-node';
import { ClusterError, type LeaseMarks, type LeaseState, type RecordsMark } from '../../engine/ports.ts';
import { call, mergePatch } from './api-calls.ts';
import { leaseOutstandingAnnotation, leaseRecordsAnnotation } from './map-objects.ts';

export class KubeLeases {
  constructor(private readonly coordination: CoordinationV1Api) {}

  async read(namespace: string, name: string): Promise<LeaseState | undefined> {
    try {
      const lease = await call(() => this.coordination.readNamespacedLease({ namespace, name }));
      return {
        holder: lease.spec?.holderIdentity ?? undefined,
        acquireTime: lease.spec?.acquireTime ? new Date(lease.spec.acquireTime).toISOString() : undefined,
        renewTime: lease.spec?.renewTime ? new Date(lease.spec.renewTime).toISOString() : undefined,
        durationSeconds: lease.spec?.leaseDurationSeconds ?? 0,
        resourceVersion: lease.metadata?.resourceVersion,
        recreationRecords: recordsMarkOf(lease.metadata?.annotations?.[leaseRecordsAnnotation]),
        outstandingRecords: lease.metadata?.annotations?.[leaseOutstandingAnnotation],
      };
    } catch (error) {
      if (error instanceof ClusterError && error.status === 404) return undefined;
      throw error;
    }
  }

  async write(
    namespace: string, name: string, holder: string, durationSeconds: number, seen: LeaseState | undefined, marks?: LeaseMarks,
  ): Promise<LeaseState> {
    // acquireTime/renewTime are MicroTime: the server refuses anything but six fractional digits, which V1MicroTime
    // gives (a Date serialises with three). A renewal keeps the acquireTime of its holder's hold, as client-go's does.
    const renewTime = new V1MicroTime();
    const renewing = seen?.holder === holder && seen.acquireTime !== undefined;
    const acquireTime = renewing && seen.acquireTime !== undefined ? new V1MicroTime(seen.acquireTime) : renewTime;
    const spec = { holderIdentity: holder, leaseDurationSeconds: durationSeconds, acquireTime, renewTime };
    const lease = await this.put(namespace, name, seen, marks, spec);
    return {
      holder, acquireTime: new Date(acquireTime.getTime()).toISOString(), renewTime: new Date(renewTime.getTime()).toISOString(), durationSeconds,
      resourceVersion: lease.metadata?.resourceVersion, recreationRecords: marks?.records, outstandingRecords: marks?.outstanding,
    };
  }

  async markFree(namespace: string, name: string, seen: LeaseState | undefined, marks: LeaseMarks): Promise<void> {
    await this.put(namespace, name, seen, marks, seen ? { leaseDurationSeconds: seen.durationSeconds } : {});
  }

  async rewriteOutstanding(namespace: string, name: string, seen: LeaseState, outstanding: string | undefined): Promise<void> {
    // A merge patch of the one annotation: the holder's spec is left as it is; the resourceVersion makes it optimistic.
    const body = { metadata: { resourceVersion: seen.resourceVersion, annotations: { [leaseOutstandingAnnotation]: outstanding ?? null } } };
    await call(() => this.coordination.patchNamespacedLease({ namespace, name, body }, mergePatch));
  }

  /** Creates the Lease, or replaces it with an optimistic lock on `seen`; the PUT drops a mark it does not carry. */
  private put(namespace: string, name: string, seen: LeaseState | undefined, marks: LeaseMarks | undefined, spec: V1LeaseSpec): Promise<V1Lease> {
    const annotations = {
      ...(marks?.records ? { [leaseRecordsAnnotation]: marks.records } : {}),
      ...(marks?.outstanding ? { [leaseOutstandingAnnotation]: marks.outstanding } : {}),
    };
    const metadata = { name, namespace, ...(Object.keys(annotations).length > 0 ? { annotations } : {}) };
    return seen
      ? call(() => this.coordination.replaceNamespacedLease({
        namespace, name, body: { metadata: { ...metadata, resourceVersion: seen.resourceVersion }, spec },
      }))
      : call(() => this.coordination.createNamespacedLease({ namespace, body: { metadata, spec } }));
  }

  async release(namespace: string, name: string, held: LeaseState, marks?: LeaseMarks): Promise<boolean> {
    // Releasing = clearing the holder, as client-go's leader election does on ReleaseOnCancel; the resourceVersion
    // precondition leaves a Lease someone else took since (409) alone, and a deleted one (404) needs nothing. The
    // records mark goes in the same write: a released Lease always says what it knows of them.
    const body = {
      metadata: {
        resourceVersion: held.resourceVersion,
        annotations: { [leaseRecordsAnnotation]: marks?.records ?? null, [leaseOutstandingAnnotation]: marks?.outstanding ?? null },
      },
      spec: { holderIdentity: null, renewTime: null },
    };
    return call(() => this.coordination.patchNamespacedLease({ namespace, name, body }, mergePatch)).then(() => true, (error: unknown) => {
      if (!(error instanceof ClusterError && (error.status === 404 || error.status === 409))) throw error;
      return false;
    });
  }
}

function recordsMarkOf(value: string | undefined): RecordsMark | undefined {
  return value === 'none' || value === 'outstanding' ? value : undefined;
}
