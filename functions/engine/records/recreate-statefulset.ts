// Updating the live volumeClaimTemplates. Kubernetes refuses that edit, so, as Elastic ECK does: persist the target
// object in the cluster first, delete the old object with propagationPolicy Orphan (pods and PVCs stay), wait until it
// is gone, create it again from the LIVE object with only the storage changed, then drop the record. Every step is
// restartable: a later pass that finds the record resumes where a crash left off.
import type { JsonObject, LiveStatefulSet, RecreationRecord } from '../../domain/live-state.ts';
import { ClusterError, type ClusterPort } from '../ports.ts';
import { recordedClasses, recordedStorage, recordMismatch } from './match-live.ts';
import { recreationRecordName } from './names.ts';

export type RecreationStep = 'delete-old' | 'wait-for-deletion' | 'create-from-record' | 'drop-record';

/** The four named states of the recreation state machine, decided from the record and what exists now. */
export function nextRecreationStep(record: RecreationRecord, current: LiveStatefulSet | undefined): RecreationStep {
  if (!current) return 'create-from-record';
  if (current.uid !== record.oldUid) return 'drop-record';
  return current.deleting ? 'wait-for-deletion' : 'delete-old';
}

/** Where a pass keeps the records it writes: the target's Lease namespace, labelled with the target. */
export interface RecordPlace {
  recordNamespace: string;
  target: string;
}

/**
 * The object to create: the live one with only the template storage (and volumeAttributesClassName, KEP-3751) changed,
 * and the server-owned fields stripped. The pod template is left byte-for-byte alone so the revision hash, and with it
 * every pod, stays as it is.
 */
export function buildRecreatedStatefulSet(
  live: JsonObject, newStorage: ReadonlyMap<string, string>, newClasses: ReadonlyMap<string, string> = new Map(),
): JsonObject {
  const target = structuredClone(live);
  const metadata = (target.metadata ?? {}) as JsonObject;
  for (const field of ['uid', 'resourceVersion', 'creationTimestamp', 'managedFields', 'generation', 'deletionTimestamp',
    'deletionGracePeriodSeconds', 'selfLink']) {
    delete metadata[field];
  }
  const finalizers = metadata.finalizers;
  if (Array.isArray(finalizers)) {
    const kept = finalizers.filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
    if (kept.length > 0) metadata.finalizers = kept;
    else delete metadata.finalizers;
  }
  target.metadata = metadata;
  delete target.status;
  const spec = (target.spec ?? {}) as JsonObject;
  const templates = Array.isArray(spec.volumeClaimTemplates) ? (spec.volumeClaimTemplates as JsonObject[]) : [];
  for (const template of templates) {
    const name = ((template.metadata ?? {}) as JsonObject).name;
    const storage = typeof name === 'string' ? newStorage.get(name) : undefined;
    const className = typeof name === 'string' ? newClasses.get(name) : undefined;
    if (className !== undefined) ((template.spec ??= {}) as JsonObject).volumeAttributesClassName = className;
    if (storage === undefined) continue;
    const templateSpec = (template.spec ??= {}) as JsonObject;
    const resources = (templateSpec.resources ??= {}) as JsonObject;
    const requests = (resources.requests ??= {}) as JsonObject;
    requests.storage = storage;
  }
  return target;
}

/**
 * Why a template update cannot start until a person acts (a bounded set: the reason the verdict, metrics and logs count
 * the blocked set under): no key to sign its record, or its record's name taken by a ConfigMap that is no record of ours.
 */
export type RecreationBlockCode = 'record-key-missing' | 'record-name-taken';

/** A template update that cannot start until a person acts: the set is reported blocked with this message and code. */
export class RecreationBlockedError extends Error {
  constructor(readonly code: RecreationBlockCode, message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/**
 * The name of a set's record is taken by a ConfigMap that is no record in progress (a forgery, a copy put back, a
 * record of another key): refused and reported like any such, and kept as evidence, never overwritten.
 */
export class RecordNameTakenError extends RecreationBlockedError {
  constructor(configMap: string) {
    super('record-name-taken', `its recreation record cannot be saved: ConfigMap ${configMap} already exists and is not a recreation in progress (refused and reported): `
      + 'it is never overwritten, being evidence; inspect it and delete it, and the next pass updates the template');
  }
}

/** `record-outdated`: the live object changed after the record was written; the record was dropped, not replayed. */
export type TemplateUpdateOutcome = 'updated-in-place' | 'recreated' | 'waiting-for-deletion' | 'record-outdated';

export interface TemplateUpdate {
  outcome: TemplateUpdateOutcome;
  /** The StatefulSet as the server stored it, when this call wrote it (saves reading it back). */
  stored?: LiveStatefulSet;
  /** Why a record was dropped (`record-outdated`): what changed, and what follows. */
  reason?: string;
}

export interface RecreationTiming {
  /** How long one pass waits for the garbage collector before leaving the rest to the next pass. */
  maxWaitMs: number;
  pollIntervalMs: number;
  sleep: (ms: number) => Promise<void>;
}

export type RecreationCluster = Pick<ClusterPort,
  'replaceStatefulSet' | 'saveRecreationRecord' | 'getStatefulSet' | 'deleteStatefulSetOrphan' | 'createStatefulSet'
  | 'deleteRecreationRecord'>;

/**
 * Brings the live template to the new sizes: in place where the server allows it (a dry run tells), else recreation.
 * `annotations` travel with the new template (the pending status annotation: it lands with the update or not at all).
 */
export async function updateLiveTemplate(
  live: LiveStatefulSet, newStorage: ReadonlyMap<string, string>, cluster: RecreationCluster, timing: RecreationTiming,
  place: RecordPlace, annotations: Readonly<Record<string, string>> = {}, newClasses: ReadonlyMap<string, string> = new Map(),
): Promise<TemplateUpdate> {
  const target = buildRecreatedStatefulSet(live.raw, newStorage, newClasses);
  if (Object.keys(annotations).length > 0) {
    const metadata = (target.metadata ??= {}) as JsonObject;
    metadata.annotations = { ...((metadata.annotations ?? {}) as JsonObject), ...annotations };
  }
  const inPlace = structuredClone(target);
  ((inPlace.metadata ??= {}) as JsonObject).resourceVersion = live.resourceVersion;
  if (await acceptsInPlaceUpdate(inPlace, cluster)) {
    return { outcome: 'updated-in-place', stored: await cluster.replaceStatefulSet(inPlace, { dryRun: false }) };
  }
  const record: RecreationRecord = {
    namespace: live.namespace, recordNamespace: place.recordNamespace, ownerTarget: place.target,
    recordName: recreationRecordName(place.target, live.namespace, live.name), statefulSetName: live.name,
    oldUid: live.uid, target, updateRevision: live.updateRevision,
  };
  await cluster.saveRecreationRecord(record, { replace: false }).catch((error: unknown) => {
    // Records in progress were resumed before any plan: one of that name now is someone else's.
    if (error instanceof ClusterError && error.status === 409) throw new RecordNameTakenError(`${record.recordNamespace}/${record.recordName}`);
    throw error;
  });
  return resumeRecreation(record, cluster, timing, { rewriteRecord: true, seen: live });
}

/**
 * What the API server of a cluster (one RecreationCluster per pass) said of in-place template updates: a server that
 * calls volumeClaimTemplates immutable says so for every StatefulSet alike, so one dry run a pass asks it (sets applied
 * at the same time wait for that first answer), not one per set.
 */
const serverRule = new WeakMap<RecreationCluster, Promise<'immutable' | 'ask-each'>>();

async function acceptsInPlaceUpdate(target: JsonObject, cluster: RecreationCluster): Promise<boolean> {
  const known = serverRule.get(cluster);
  if (known && await known === 'immutable') return false;
  const probe = probeInPlaceUpdate(target, cluster);
  if (!known) serverRule.set(cluster, probe.then((answer) => answer.rule, () => 'ask-each' as const));
  return (await probe).accepts;
}

async function probeInPlaceUpdate(target: JsonObject, cluster: RecreationCluster): Promise<{ accepts: boolean; rule: 'immutable' | 'ask-each' }> {
  try {
    await cluster.replaceStatefulSet(target, { dryRun: true });
    return { accepts: true, rule: 'ask-each' };
  } catch (error) {
    // 422 is today's answer on every cluster (volumeClaimTemplates are immutable); anything else is a real failure.
    if (!(error instanceof ClusterError && error.status === 422)) throw error;
    // Only the server's rule about the spec speaks for every set; another 422 is this set's own.
    return { accepts: false, rule: error.message.includes('Forbidden: updates to statefulset spec') ? 'immutable' : 'ask-each' };
  }
}

/**
 * Drives a persisted recreation to its end, or as far as the garbage collector allows within this pass. Without
 * `rewriteRecord` (a pass that does not hold the Lease) no record is written: one that would need rewriting is left to
 * the Lease's holder as `waiting-for-deletion`.
 */
export async function resumeRecreation(
  record: RecreationRecord, cluster: RecreationCluster, timing: RecreationTiming,
  options: { rewriteRecord: boolean; seen?: LiveStatefulSet } = { rewriteRecord: true },
): Promise<TemplateUpdate> {
  const started = Date.now();
  // A recreation that starts now begins from the object just read (`seen`): the delete's resourceVersion
  // precondition refuses it if anything changed since, so no GET is needed before it.
  let seen = options.seen;
  for (;;) {
    const current = seen ?? await cluster.getStatefulSet(record.namespace, record.statefulSetName);
    seen = undefined;
    const step = nextRecreationStep(record, current);
    const mismatch = current && step !== 'drop-record' ? recordMismatch(record, current) : undefined;
    if (current && mismatch !== undefined) {
      if (step === 'delete-old') {
        // Not deleted yet: drop the stale intent; the plan builds a new one from the object as it is now.
        await cluster.deleteRecreationRecord(record.recordNamespace, record.recordName);
        return { outcome: 'record-outdated', reason: `${mismatch}; the set was left as it is` };
      }
      if (current.controllerOwner) {
        // Adopted while being deleted: an object another controller owns is never recreated by this tool (with or
        // without its reference); its controller brings it back. The record is dropped, so nobody acts on it later.
        if (!options.rewriteRecord) return { outcome: 'waiting-for-deletion' };
        await cluster.deleteRecreationRecord(record.recordNamespace, record.recordName);
        return { outcome: 'record-outdated', reason: `${mismatch} while it was being deleted for the template update: not recreated; its controller (or a person) must create it again` };
      }
      // Already being deleted but edited since the record was written (a PATCH of a deleting set is allowed):
      // recreate from the object as it is now, and persist that before it disappears.
      if (!options.rewriteRecord) return { outcome: 'waiting-for-deletion' };
      record = { ...record, target: buildRecreatedStatefulSet(current.raw, recordedStorage(record), recordedClasses(record)) };
      await cluster.saveRecreationRecord(record, { replace: true });
    }
    if (step === 'delete-old' && current) {
      await cluster.deleteStatefulSetOrphan(record.namespace, record.statefulSetName, record.oldUid, current.resourceVersion);
      continue;
    }
    if (step === 'drop-record') {
      await cluster.deleteRecreationRecord(record.recordNamespace, record.recordName);
      return { outcome: 'recreated' };
    }
    if (step === 'create-from-record') {
      try {
        const stored = await cluster.createStatefulSet(record.target);
        await cluster.deleteRecreationRecord(record.recordNamespace, record.recordName);
        return { outcome: 'recreated', stored };
      } catch (error) {
        // 409 AlreadyExists "object is being deleted": the old one came back into view; wait like for deletion.
        if (!(error instanceof ClusterError && error.status === 409)) throw error;
      }
    }
    if (Date.now() - started >= timing.maxWaitMs) return { outcome: 'waiting-for-deletion' };
    await timing.sleep(timing.pollIntervalMs);
  }
}
