// Validation of volume updates with the server's words: a PVC's spec is immutable but for what a bound claim may
// change (its storage request; on v1.34 its VolumeAttributesClass, which it may not drop once its volume has one),
// a request never lowered to its capacity (KEP-1790), and a VolumeAttributesClass's driver and parameters fixed.
import { isDeepStrictEqual } from 'node:util';
import { invalid } from './api-errors.ts';
import { pvcSpecDiff } from './pvc-spec-diff.ts';
import { pvcSpecJsonDiff } from './pvc-spec-json-diff.ts';
import { compareSandboxQuantities as compareQuantities, parseSandboxQuantity as parseQuantity, type SandboxQuantity as Quantity } from './quantity.ts';
import type { ServerVersion } from './server-version.ts';
import type { KubeObject, ResourceType } from './store.ts';

type Json = Record<string, unknown>;

/** A VolumeAttributesClass's driver and parameters are fixed once created (KEP-3751). */
export function validateVolumeAttributesClassUpdate(t: ResourceType, old: KubeObject, updated: KubeObject): void {
  for (const field of ['parameters', 'driverName']) {
    if (!isDeepStrictEqual(old[field] ?? null, updated[field] ?? null)) {
      throw invalid(t, updated.metadata.name, [{ reason: 'FieldValueForbidden', field, message: `Forbidden: updates to ${field} are forbidden.` }]);
    }
  }
}

export function storageRequest(object: KubeObject): Quantity | undefined {
  const value = ((object.spec?.resources as Json | undefined)?.requests as Json | undefined)?.storage;
  return typeof value === 'string' || typeof value === 'number' ? parseQuantity(value) : undefined;
}

function statusQuantity(object: KubeObject, field: 'capacity' | 'allocatedResources'): Quantity | undefined {
  const value = (object.status?.[field] as Json | undefined)?.storage;
  return typeof value === 'string' || typeof value === 'number' ? parseQuantity(value) : undefined;
}

/**
 * ValidatePersistentVolumeClaimUpdate: the spec is immutable except the storage request of a *bound* claim
 * (status.phase Bound), on v1.34 also its volumeAttributesClassName, and a volumeName set once by the binder; the
 * refusal quotes a diff of the two specs (Go struct diff on v1.26, unified JSON diff on v1.34).
 */
export function validatePvcUpdate(t: ResourceType, old: KubeObject, updated: KubeObject, server: ServerVersion): void {
  const oldSpec = structuredClone(old.spec ?? {});
  const newSpec = structuredClone(updated.spec ?? {});
  if (!oldSpec.volumeName) oldSpec.volumeName = newSpec.volumeName;
  const newRequests = (newSpec.resources as Json | undefined)?.requests as Json | undefined;
  const bound = updated.status?.phase === 'Bound';
  if (bound && newRequests) {
    const oldStorage = ((oldSpec.resources as Json | undefined)?.requests as Json | undefined)?.storage;
    if (oldStorage === undefined) delete newRequests.storage;
    else newRequests.storage = oldStorage;
  }
  if (bound && server.volumeAttributesClasses) {
    if (oldSpec.volumeAttributesClassName === undefined) delete newSpec.volumeAttributesClassName;
    else newSpec.volumeAttributesClassName = oldSpec.volumeAttributesClassName;
  }
  if (!isDeepStrictEqual(pruneUndefined(oldSpec), pruneUndefined(newSpec))) {
    const diff = server.pvcSpecDiffStyle === 'unified-json' ? pvcSpecJsonDiff(old.spec, updated.spec) : pvcSpecDiff(old.spec, updated.spec);
    throw invalid(t, updated.metadata.name, [{ reason: 'FieldValueForbidden', field: 'spec', message: `${server.pvcImmutableMessage}\n${diff}` }]);
  }
  if (server.volumeAttributesClasses) validateVolumeAttributesClassChange(t, old, updated);
  const before = storageRequest(old);
  const after = storageRequest(updated);
  const capacity = statusQuantity(old, 'capacity');
  if (before && after && compareQuantities(after, before) < 0 && capacity && compareQuantities(after, capacity) <= 0) {
    throw invalid(t, updated.metadata.name, [{
      reason: 'FieldValueForbidden', field: 'spec.resources.requests.storage', message: 'Forbidden: field can not be less than status.capacity',
    }]);
  }
}

/** KEP-3751: once the volume has a class (status.currentVolumeAttributesClassName), the claim cannot drop its own. */
function validateVolumeAttributesClassChange(t: ResourceType, old: KubeObject, updated: KubeObject): void {
  const current = old.status?.currentVolumeAttributesClassName;
  if (current === undefined || current === null) return;
  const requested = updated.spec?.volumeAttributesClassName;
  const emptied = requested === undefined || requested === null ? 'nil' : requested === '' ? 'empty string' : undefined;
  if (emptied === undefined) return;
  throw invalid(t, updated.metadata.name, [{
    reason: 'FieldValueForbidden', field: 'spec.volumeAttributesClassName',
    message: `Forbidden: update to ${emptied} is forbidden when status.currentVolumeAttributesClassName is not nil`,
  }]);
}

function pruneUndefined(value: Json): Json {
  return JSON.parse(JSON.stringify(value)) as Json;
}
