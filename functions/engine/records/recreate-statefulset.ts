// Updating the live volumeClaimTemplates. Kubernetes refuses that edit, so, as Elastic ECK does: persist the target
// object in the cluster first, delete the old object with propagationPolicy Orphan (pods and PVCs stay), wait until it
// is gone, create it again from the LIVE object with only the storage changed, then drop the record. Every step is
// restartable: a later pass that finds the record resumes where a crash left off.
import { statusAnnotation } from '../template-status.ts';
import { createHash } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject, LiveStatefulSet, RecreationRecord } from '../../domain/live-state.ts';
import { ClusterError, type ClusterPort } from '../ports.ts';

export type RecreationStep = 'delete-old' | 'wait-for-deletion' | 'create-from-record' | 'drop-record';

/** The four named states of the recreation state machine, decided from the record and what exists now. */
export function nextRecreationStep(record: RecreationRecord, current: LiveStatefulSet | undefined): RecreationStep {
  if (!current) return 'create-from-record';
  if (current.uid !== record.oldUid) return 'drop-record';
  return current.deleting ? 'wait-for-deletion' : 'delete-old';
}

const recordPrefix = 'sts-volume-gitops-recreate';
const maxObjectName = 253;

/**
 * The record's ConfigMap name in the target's Lease namespace: `sts-volume-gitops-recreate.<target>.<namespace>.<name>`.
 * Target and namespace names hold no dot, so two StatefulSets never share a name; one too long for a ConfigMap name
 * (253) keeps a prefix of the StatefulSet's name and ends with a hash of the whole.
 */
export function recreationRecordName(target: string, namespace: string, statefulSetName: string): string {
  const full = `${recordPrefix}.${target}.${namespace}.${statefulSetName}`;
  if (full.length <= maxObjectName) return full;
  const hash = createHash('sha256').update(`${namespace}/${statefulSetName}`).digest('hex').slice(0, 16);
  // Each dot-separated part must end with a letter or digit: the cut must not leave a `-` or `.` before the hash.
  const kept = full.slice(0, maxObjectName - hash.length - 1).replace(/[-.]+$/, '');
  return `${kept}-${hash}`;
}

/** The name older versions gave a record, in the StatefulSet's own namespace (still found and resumed after an upgrade). */
export function legacyRecreationRecordName(statefulSetName: string): string {
  return `${recordPrefix}-${statefulSetName}`.slice(0, maxObjectName);
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

/** `record-outdated`: the live object changed after the record was written; the record was dropped, not replayed. */
export type TemplateUpdateOutcome = 'updated-in-place' | 'recreated' | 'waiting-for-deletion' | 'record-outdated';

export interface TemplateUpdate {
  outcome: TemplateUpdateOutcome;
  /** The StatefulSet as the server stored it, when this call wrote it (saves reading it back). */
  stored?: LiveStatefulSet;
}

/**
 * Whether the live object still is the one the record was made from, apart from the template storage the record
 * changes. A set edited since (new image, replicas) must not be replaced by the record's older copy: that would put the
 * old spec back and roll every pod; a label or annotation added since would be lost.
 */
export function recordMatchesLive(record: RecreationRecord, live: LiveStatefulSet): boolean {
  const withoutTemplates = (spec: unknown): JsonObject => {
    const copy = { ...((spec ?? {}) as JsonObject) };
    delete copy.volumeClaimTemplates;
    return copy;
  };
  // Each template whole but its storage request and volume attributes class: a record changes those values of the plan
  // and nothing else (not the StorageClass, not the access modes), so the object created is the deleted one with only
  // those values changed.
  const templateShapes = (spec: unknown): unknown[] => (((spec ?? {}) as JsonObject).volumeClaimTemplates as JsonObject[] | undefined ?? [])
    .map(templateWithoutPlannedValues);
  // Labels and annotations too (the recreated object carries them): all but the status annotation the record adds.
  const marks = (object: JsonObject): unknown => {
    const metadata = (object.metadata ?? {}) as JsonObject;
    const annotations = { ...((metadata.annotations ?? {}) as JsonObject) };
    delete annotations[statusAnnotation];
    return { labels: metadata.labels ?? {}, annotations };
  };
  return isDeepStrictEqual(withoutTemplates(record.target.spec), withoutTemplates(live.raw.spec))
    && isDeepStrictEqual(templateShapes(record.target.spec), templateShapes(live.raw.spec))
    && isDeepStrictEqual(marks(record.target), marks(live.raw));
}

/** The classes a record asks for, by template name (KEP-3751). */
export function recordedClasses(record: RecreationRecord): Map<string, string> {
  const templates = (((record.target.spec ?? {}) as JsonObject).volumeClaimTemplates as JsonObject[] | undefined) ?? [];
  const classes = new Map<string, string>();
  for (const template of templates) {
    const name = ((template.metadata ?? {}) as JsonObject).name;
    const className = ((template.spec ?? {}) as JsonObject).volumeAttributesClassName;
    if (typeof name === 'string' && typeof className === 'string') classes.set(name, className);
  }
  return classes;
}

/** A template without the two values a plan may change in it: the storage request and the volume attributes class. */
function templateWithoutPlannedValues(template: JsonObject): JsonObject {
  const copy = structuredClone(template);
  const spec = (copy.spec ?? {}) as JsonObject;
  const requests = (((spec.resources ?? {}) as JsonObject).requests) as JsonObject | undefined;
  if (requests) delete requests.storage;
  delete spec.volumeAttributesClassName;
  return copy;
}

/** The sizes a record asks for, by template name. */
export function recordedStorage(record: RecreationRecord): Map<string, string> {
  const templates = (((record.target.spec ?? {}) as JsonObject).volumeClaimTemplates as JsonObject[] | undefined) ?? [];
  const sizes = new Map<string, string>();
  for (const template of templates) {
    const name = ((template.metadata ?? {}) as JsonObject).name;
    const storage = ((((template.spec ?? {}) as JsonObject).resources as JsonObject | undefined)?.requests as JsonObject | undefined)?.storage;
    if (typeof name === 'string' && typeof storage === 'string') sizes.set(name, storage);
  }
  return sizes;
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
  await cluster.saveRecreationRecord(record);
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
    if (current && step !== 'drop-record' && !recordMatchesLive(record, current)) {
      if (step === 'delete-old') {
        // Not deleted yet: drop the stale intent; the plan builds a new one from the object as it is now.
        await cluster.deleteRecreationRecord(record.recordNamespace, record.recordName);
        return { outcome: 'record-outdated' };
      }
      // Already being deleted but edited since the record was written (a PATCH of a deleting set is allowed):
      // recreate from the object as it is now, and persist that before it disappears.
      if (!options.rewriteRecord) return { outcome: 'waiting-for-deletion' };
      record = { ...record, target: buildRecreatedStatefulSet(current.raw, recordedStorage(record), recordedClasses(record)) };
      await cluster.saveRecreationRecord(record);
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
