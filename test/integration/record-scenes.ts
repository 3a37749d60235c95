// What the record tests stage around a pass: the target's Lease as a pass that timed out left it, an admin deleting a
// StatefulSet, a copy of a record put back, and the Warning Events a refusal leaves.
import assert from 'node:assert/strict';
import { AppsV1Api, type CoreV1Api, type V1ConfigMap } from '@kubernetes/client-node';
import { recreationRecordName } from '../../functions/engine/records/names.ts';
import type { KubeObject } from '../../sandbox/kube/store.ts';
import { types, type Harness } from './harness.ts';

export const leaseName = 'sts-volume-gitops-test';
/** The record of db/pg, the set most record tests resize. */
export const pgRecord = recreationRecordName('test', 'db', 'pg');

export function refusalEvents(h: Harness, namespace = h.stateNamespace): KubeObject[] {
  return h.kube.store.list(types.event, namespace).filter((e) => (e as { reason?: string }).reason === 'RefusedRecreationRecord');
}

/** The Lease as a pass that timed out left it: held by `holder`, renewed `ageMs` ago, its annotations as they were (or with `annotations` over them). */
export function leaveLeaseHeld(h: Harness, ageMs = 1_000, holder = 'timed-out-pass', annotations: Record<string, string> = {}): void {
  const lease = h.kube.store.get(types.lease, h.stateNamespace, leaseName);
  assert.ok(lease, 'the Lease exists');
  const renewTime = new Date(Date.now() - ageMs).toISOString().replace('Z', '000Z');
  h.kube.store.replace(types.lease, {
    ...lease, metadata: { ...lease.metadata, annotations: { ...lease.metadata.annotations, ...annotations } },
    spec: { ...(lease.spec ?? {}), holderIdentity: holder, leaseDurationSeconds: 300, renewTime, acquireTime: renewTime },
  });
}

/**
 * A pass that saves pg's record (20Gi asked in Git), orphan-deletes pg and stops before the create (a Lambda that timed
 * out); the garbage collector then finishes the delete, so pg is absent and its record outstanding.
 */
export async function leavePgAbsentWithRecord(h: Harness): Promise<void> {
  await h.writeManifest({ name: 'pg', replicas: 2, templates: { data: '20Gi' } });
  await h.pass({ maxWaitMs: 0 });
  h.kube.tick(1);
  assert.equal(h.kube.store.get(types.sts, 'db', 'pg'), undefined, 'pg is absent, its record outstanding');
}

/** An admin deletes the StatefulSet (cascading, as kubectl does) and the garbage collector runs. */
export async function deleteByAdmin(h: Harness, name: string): Promise<void> {
  await h.kube.kubeConfig().makeApiClient(AppsV1Api).deleteNamespacedStatefulSet({ namespace: 'db', name });
  h.kube.tick(3);
  assert.equal(h.kube.store.get(types.sts, 'db', name), undefined);
}

/** Someone who may create ConfigMaps in the state namespace puts a copy of a record back. */
export async function putBack(h: Harness, mallory: CoreV1Api, copy: V1ConfigMap): Promise<void> {
  await mallory.createNamespacedConfigMap({ namespace: h.stateNamespace, body: { metadata: { name: copy.metadata?.name ?? '', labels: copy.metadata?.labels ?? {} }, data: copy.data ?? {} } });
}
