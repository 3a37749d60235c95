// KEP-0661 "Main Reconciliation Logic", run from outside the cluster: for each replica in ordinal order, only when its
// pod is Running, not terminating and at the current revision, patch each template's PVC to the template size.
// Transient errors stop the set for this pass; non-transient ones stop an OrderedReady set at this replica and let a
// Parallel set carry on.
import type { LivePod, LiveStatefulSet } from '../../domain/live-state.ts';
import { compareQuantities, spelledLike } from '../../domain/quantity.ts';
import type { TemplatePlan } from '../plan/plan.ts';
import { pvcName } from '../plan/plan.ts';
import { ClusterError, type ClusterPort } from '../ports.ts';
import { describePvc, type PvcProgress } from './pvc-progress.ts';
import { windowWords } from '../plan/modification-window-words.ts';

export interface PatchFailure {
  pvcName: string;
  ordinal: number;
  message: string;
  transient: boolean;
}

export interface VolumeRollout {
  /** Per template name, the PVCs of ordinals 0..replicas-1 as they stand after this pass. */
  progress: Map<string, PvcProgress[]>;
  /** What each patch changed: the size when it differs from the claim's request, the class when it differs from the claim's. */
  patched: Array<{ pvcName: string; ordinal: number; storage?: string; volumeAttributesClassName?: string }>;
  failures: PatchFailure[];
  /** Set when a transient error stopped the set: the next pass retries. */
  stoppedByTransientError: boolean;
}

/** A replica's PVCs are only touched when its pod runs the current revision (KEP-0661). */
export function isPodEligible(pod: LivePod | undefined, updateRevision: string | undefined): boolean {
  return pod !== undefined && pod.phase === 'Running' && !pod.deleting
    && updateRevision !== undefined && pod.revision === updateRevision;
}

export async function reconcileVolumes(
  sts: LiveStatefulSet,
  templates: readonly TemplatePlan[],
  pods: readonly LivePod[],
  cluster: Pick<ClusterPort, 'patchPvcStorage'>,
  updateRevision: string | undefined,
): Promise<VolumeRollout> {
  const rollout: VolumeRollout = { progress: new Map(), patched: [], failures: [], stoppedByTransientError: false };
  const active = templates.filter((t) => t.action !== 'blocked');
  for (const template of active) rollout.progress.set(template.templateName, []);
  const monotonic = sts.podManagementPolicy === 'OrderedReady';
  let stopped = false;

  for (let ordinal = 0; ordinal < sts.replicas; ordinal++) {
    const pod = pods.find((p) => p.name === `${sts.name}-${ordinal}`);
    const eligible = isPodEligible(pod, updateRevision);
    for (const template of active) {
      const name = pvcName(template.templateName, sts.name, ordinal);
      const pvc = template.pvcs.find((p) => p.name === name);
      let progress = describePvc(name, ordinal, pvc, template.to, template.volumeAttributesClassName);
      const wantedClass = template.volumeAttributesClassName;
      // The class goes in the same patch as the size, and only when it differs (KEP-3751).
      const classToSend = wantedClass !== undefined && pvc?.volumeAttributesClassName !== wantedClass ? wantedClass : undefined;
      const sizeChanges = pvc?.request === undefined || compareQuantities(pvc.request, template.to) !== 0;
      const window = template.modificationWindows?.find((w) => w.claim === name);
      if (progress.state === 'to-patch' && pvc) {
        if (window) {
          // The backend would refuse it: the patch waits for the driver's window, and is made by the first pass after it.
          progress = { ...progress, state: 'waiting-for-window', message: windowWords(window) };
        } else if (stopped) {
          progress = { ...progress, message: 'not attempted: an earlier replica failed (OrderedReady)' };
        } else if (!eligible) {
          progress = { ...progress, state: 'waiting-for-pod', message: waitingReason(pod, updateRevision) };
        } else if (sizeChanges && pvc.capacity && compareQuantities(template.to, pvc.capacity) <= 0) {
          // Never request a size at or below capacity: the API server would refuse it anyway (KEP-1790).
          progress = { ...progress, state: 'failed', message: `${template.desired.storageText} is not above capacity ${spelledLike(pvc.capacity, template.desired.storage) ?? ''}` };
        } else {
          try {
            await cluster.patchPvcStorage(sts.namespace, name, template.desired.storageText, pvc.resourceVersion, classToSend);
            rollout.patched.push({
              pvcName: name, ordinal, ...(sizeChanges ? { storage: template.desired.storageText } : {}), ...(classToSend ? { volumeAttributesClassName: classToSend } : {}),
            });
            progress = {
              ...progress, state: sizeChanges ? 'patched' : 'modifying', request: template.to, message: undefined,
              ...(classToSend ? { requestedClass: classToSend } : {}),
            };
          } catch (error) {
            const failure = toPatchFailure(error, name, ordinal);
            rollout.failures.push(failure);
            progress = { ...progress, state: failure.transient ? 'retrying' : 'failed', message: failure.message };
            if (failure.transient) {
              rollout.stoppedByTransientError = true;
              stopped = true;
            } else if (monotonic) {
              stopped = true;
            }
          }
        }
      }
      rollout.progress.get(template.templateName)?.push(progress);
    }
  }
  return rollout;
}

/**
 * What a patch changed, for the timeline and the Event: `20Gi`, `VolumeAttributesClass gold` (a class change alone: the
 * patch repeats the request, which changes nothing), or `20Gi and VolumeAttributesClass gold`.
 */
export function describePatch(patched: VolumeRollout['patched'][number]): string {
  const klass = patched.volumeAttributesClassName === undefined ? undefined : `VolumeAttributesClass ${patched.volumeAttributesClassName}`;
  return [patched.storage, klass].filter((part): part is string => part !== undefined).join(' and ');
}

function waitingReason(pod: LivePod | undefined, updateRevision: string | undefined): string {
  if (!pod) return 'pod does not exist';
  if (pod.deleting) return `pod ${pod.name} is terminating`;
  if (pod.phase !== 'Running') return `pod ${pod.name} is ${pod.phase ?? 'not running'}`;
  return `pod ${pod.name} is at revision ${pod.revision ?? '(none)'}, not ${updateRevision ?? '(unknown)'}`;
}

function toPatchFailure(error: unknown, pvcName: string, ordinal: number): PatchFailure {
  if (error instanceof ClusterError) return { pvcName, ordinal, message: error.message, transient: error.transient };
  throw error;
}
