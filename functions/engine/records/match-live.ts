// Whether a record still describes the live StatefulSet it replaces, and what it asks for. A record is acted on only
// while the set is as it was when the record was written, apart from the values the plan changes: a set edited since
// (new image, replicas, a label, an ownerReference) must not be replaced by the record's older copy. Pure.
import { isDeepStrictEqual } from 'node:util';
import type { JsonObject, LiveStatefulSet, RecreationRecord } from '../../domain/live-state.ts';
import { describeOwner } from '../plan/controller-owner.ts';
import { statusAnnotation } from '../report/template-status.ts';

/**
 * Why the live object is no longer the one the record was made from (one phrase), or undefined when it still is, apart
 * from the template storage and classes the record changes. Putting an older copy back would roll every pod (spec), lose
 * a label or annotation added since, or drop an owner: a set adopted by an operator (a `controller: true`
 * ownerReference) since the record was written is its operator's, and is never recreated without that reference.
 */
export function recordMismatch(record: RecreationRecord, live: LiveStatefulSet): string | undefined {
  const owners = (object: JsonObject): unknown => ((object.metadata ?? {}) as JsonObject).ownerReferences ?? [];
  if (!isDeepStrictEqual(owners(record.target), owners(live.raw))) {
    return live.controllerOwner
      ? `its ownerReferences changed since the record was written: it is now controlled by ${describeOwner(live.controllerOwner)}`
      : 'its ownerReferences changed since the record was written';
  }
  if (!isDeepStrictEqual(withoutTemplates(record.target.spec), withoutTemplates(live.raw.spec))) return 'its spec changed since the record was written';
  // Each template whole but its storage request and volume attributes class: a record changes those values of the plan
  // and nothing else (not the StorageClass, not the access modes).
  if (!isDeepStrictEqual(templateShapes(record.target.spec), templateShapes(live.raw.spec))) {
    return 'its volumeClaimTemplates changed since the record was written (beyond the sizes and classes it sets)';
  }
  if (!isDeepStrictEqual(marks(record.target), marks(live.raw))) return 'its labels or annotations changed since the record was written';
  return undefined;
}

function withoutTemplates(spec: unknown): JsonObject {
  const copy = { ...((spec ?? {}) as JsonObject) };
  delete copy.volumeClaimTemplates;
  return copy;
}

function templateShapes(spec: unknown): unknown[] {
  return ((((spec ?? {}) as JsonObject).volumeClaimTemplates as JsonObject[] | undefined) ?? []).map(templateWithoutPlannedValues);
}

/** Labels and annotations (the recreated object carries them): all but the status annotation the record adds. */
function marks(object: JsonObject): unknown {
  const metadata = (object.metadata ?? {}) as JsonObject;
  const annotations = { ...((metadata.annotations ?? {}) as JsonObject) };
  delete annotations[statusAnnotation];
  return { labels: metadata.labels ?? {}, annotations };
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

function templatesOf(record: RecreationRecord): JsonObject[] {
  return (((record.target.spec ?? {}) as JsonObject).volumeClaimTemplates as JsonObject[] | undefined) ?? [];
}

/** The classes a record asks for, by template name (KEP-3751). */
export function recordedClasses(record: RecreationRecord): Map<string, string> {
  const classes = new Map<string, string>();
  for (const template of templatesOf(record)) {
    const name = ((template.metadata ?? {}) as JsonObject).name;
    const className = ((template.spec ?? {}) as JsonObject).volumeAttributesClassName;
    if (typeof name === 'string' && typeof className === 'string') classes.set(name, className);
  }
  return classes;
}

/** The sizes a record asks for, by template name. */
export function recordedStorage(record: RecreationRecord): Map<string, string> {
  const sizes = new Map<string, string>();
  for (const template of templatesOf(record)) {
    const name = ((template.metadata ?? {}) as JsonObject).name;
    const storage = ((((template.spec ?? {}) as JsonObject).resources as JsonObject | undefined)?.requests as JsonObject | undefined)?.storage;
    if (typeof name === 'string' && typeof storage === 'string') sizes.set(name, storage);
  }
  return sizes;
}
