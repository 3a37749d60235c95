// StatefulSetAutoDeletePVC (KEP-1847, GA in v1.32): the StatefulSet controller keeps its claims' ownerReferences in
// line with `persistentVolumeClaimRetentionPolicy` on every sync. whenDeleted: Delete -> the set owns its claims (the
// garbage collector deletes them with the set, and an Orphan delete only drops that reference, so a re-created set
// takes them over); whenScaled: Delete -> a claim whose ordinal is scaled away is owned by its pod and goes with it;
// Retain -> no reference to the set or the pod. Servers without the feature (v1.26) leave claims alone.
import type { KubeObject, OwnerReference } from '../store.ts';

type Json = Record<string, unknown>;

export interface RetentionPolicy { whenDeleted: 'Retain' | 'Delete'; whenScaled: 'Retain' | 'Delete' }

export function retentionPolicyOf(sts: Readonly<KubeObject>): RetentionPolicy {
  const policy = (sts.spec?.persistentVolumeClaimRetentionPolicy ?? {}) as Json;
  return { whenDeleted: policy.whenDeleted === 'Delete' ? 'Delete' : 'Retain', whenScaled: policy.whenScaled === 'Delete' ? 'Delete' : 'Retain' };
}

function reference(owner: Readonly<KubeObject>, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name, uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/**
 * The ownerReferences a claim of `sts` should carry (updateClaimOwnerRefForSetAndPod): others' references kept, the
 * set's and the pod's present or absent as the policy says. `pod` is the claim's pod, `scaledDown` whether its ordinal
 * is at or above `replicas`.
 */
export function claimOwnerReferences(claim: Readonly<KubeObject>, sts: Readonly<KubeObject>, pod: Readonly<KubeObject> | undefined, scaledDown: boolean): OwnerReference[] {
  const policy = retentionPolicyOf(sts);
  const ownUids = new Set([sts.metadata.uid, pod?.metadata.uid].filter((uid) => uid !== undefined));
  const refs = (claim.metadata.ownerReferences ?? []).filter((ref) => !ownUids.has(ref.uid));
  // A claim scaled away under whenScaled: Delete belongs to its pod alone, so it goes with the pod.
  if (policy.whenScaled === 'Delete' && scaledDown && pod) refs.push({ ...reference(pod, 'v1', 'Pod'), controller: false });
  else if (policy.whenDeleted === 'Delete') refs.push(reference(sts, 'apps/v1', 'StatefulSet'));
  return refs;
}

/** Whether two reference lists differ (order kept: the controller appends). */
export function referencesDiffer(a: readonly OwnerReference[] | undefined, b: readonly OwnerReference[]): boolean {
  return JSON.stringify(a ?? []) !== JSON.stringify(b);
}
