// What each verb does to the store, with the real server's semantics: list (selectors, paging), create (defaults,
// admission, AlreadyExists while deleting), update (resourceVersion conflicts, immutability, status subresource) and
// delete (preconditions, orphan finalizers, the object or a Status as the real server answers). Used by api-server.ts.
import { admit, applyDefaults, validateUpdate } from './admission.ts';
import { ApiError, alreadyExists, badRequest, beingDeleted, conflict, notFound, preconditionFailed, staleObject } from './api-errors.ts';
import { page } from './list-paging.ts';
import { selectorsOf } from './selectors.ts';
import type { ServerVersion } from './server-version.ts';
import { apiVersionOf, mustResourceType, type KubeObject, type ObjectStore, type ResourceType } from './store.ts';

const namespaceType = mustResourceType('v1', 'Namespace');

export function list(store: ObjectStore, type: ResourceType, namespace: string | undefined, query: URLSearchParams): unknown {
  // The stored objects themselves: the answer is serialised, never changed.
  const all = store.peekList(type, namespace).filter(selectorsOf(query));
  const filtered = (query.get('labelSelector') ?? '') !== '' || (query.get('fieldSelector') ?? '') !== '';
  const { items, ...paging } = page(all, query, store.currentResourceVersion, namespace !== undefined || !type.namespaced, filtered);
  return { kind: `${type.kind}List`, apiVersion: apiVersionOf(type), metadata: { resourceVersion: store.currentResourceVersion, ...paging }, items };
}

export function create(store: ObjectStore, type: ResourceType, namespace: string | undefined, body: unknown, dryRun: boolean, server: ServerVersion): KubeObject {
  if (typeof body !== 'object' || body === null) throw badRequest('the request body must be an object');
  const object = structuredClone(body) as KubeObject;
  object.metadata ??= { name: '' };
  if (type.namespaced) {
    if (object.metadata.namespace !== undefined && object.metadata.namespace !== namespace) {
      throw badRequest('the namespace of the provided object does not match the namespace sent on the request');
    }
    object.metadata.namespace = namespace;
    if (namespace === undefined || !store.get(namespaceType, undefined, namespace)) throw notFound(namespaceType, namespace ?? '');
  }
  if (!object.metadata.name && object.metadata.generateName) {
    object.metadata.name = `${object.metadata.generateName}${Math.random().toString(36).slice(2, 7)}`;
  }
  if (!object.metadata.name) {
    throw new ApiError(422, 'Invalid', `${type.kind} "" is invalid: metadata.name: Required value: name or generateName is required`, { kind: type.kind, causes: [{ reason: 'FieldValueRequired', message: 'Required value: name or generateName is required', field: 'metadata.name' }] });
  }
  const existing = store.get(type, namespace, object.metadata.name);
  if (existing) throw existing.metadata.deletionTimestamp ? beingDeleted(type, object.metadata.name) : alreadyExists(type, object.metadata.name);
  delete object.metadata.resourceVersion;
  delete object.metadata.uid;
  if (type.hasStatus && type.kind !== 'Namespace') delete object.status;
  applyDefaults(type, object, store, server);
  admit(type, undefined, object, store);
  if (dryRun) return { ...object, metadata: { ...object.metadata, uid: '00000000-0000-0000-0000-000000000000', creationTimestamp: store.timestamp() } };
  return store.create(type, object);
}

export function update(store: ObjectStore, type: ResourceType, existing: KubeObject, input: KubeObject, statusOnly: boolean, dryRun: boolean, featureGates: ReadonlySet<string>, server: ServerVersion): KubeObject {
  const name = existing.metadata.name;
  const requested = input.metadata?.resourceVersion;
  // etcd's storage parses the resourceVersion before comparing it; a non-number fails there, unclassified.
  if (requested !== undefined && requested !== '' && !/^\d+$/.test(requested)) throw new ApiError(500, '', `strconv.ParseUint: parsing ${JSON.stringify(requested)}: invalid syntax`);
  if (requested !== undefined && requested !== '' && requested !== existing.metadata.resourceVersion) throw conflict(type, name, staleObject);
  if (input.metadata?.name !== undefined && input.metadata.name !== name) throw badRequest(`the name of the object (${input.metadata.name}) does not match the name on the URL (${name})`);
  if (input.metadata?.uid !== undefined && input.metadata.uid !== existing.metadata.uid) {
    throw conflict(type, name, `Precondition failed: UID in precondition: ${input.metadata.uid}, UID in object meta: ${existing.metadata.uid ?? ''}`);
  }
  let next: KubeObject;
  if (statusOnly) {
    next = { ...existing, status: input.status ?? {} };
  } else {
    next = { ...input, metadata: { ...input.metadata, name, namespace: existing.metadata.namespace } };
    if (type.hasStatus) next.status = existing.status;
    // Server-owned metadata cannot be changed by clients.
    next.metadata.uid = existing.metadata.uid;
    next.metadata.creationTimestamp = existing.metadata.creationTimestamp;
    if (existing.metadata.deletionTimestamp !== undefined) next.metadata.deletionTimestamp = existing.metadata.deletionTimestamp;
    else delete next.metadata.deletionTimestamp;
    applyDefaults(type, next, store, server);
    validateUpdate(type, existing, next, featureGates, server);
    admit(type, existing, next, store);
  }
  next.metadata.resourceVersion = existing.metadata.resourceVersion;
  if (next.metadata.finalizers?.length === 0) delete next.metadata.finalizers;
  if (dryRun) return next;
  const stored = store.replace(type, next);
  // Removing the last finalizer of an object being deleted completes its deletion.
  if (stored.metadata.deletionTimestamp && (stored.metadata.finalizers ?? []).length === 0) store.remove(type, stored.metadata.namespace, name);
  return stored;
}

/** Kinds whose DELETE answers the deleted object rather than a Status (ReturnDeletedObject in their registries). */
const returnsDeletedObject = new Set(['StorageClass', 'VolumeAttributesClass', 'PersistentVolume', 'Namespace']);

interface DeleteOptions {
  propagationPolicy?: string;
  preconditions?: { uid?: string; resourceVersion?: string };
  gracePeriodSeconds?: number;
  dryRun?: string[];
}

export function remove(store: ObjectStore, type: ResourceType, existing: KubeObject, query: URLSearchParams, body: unknown, dryRun: boolean): unknown {
  const options = (typeof body === 'object' && body !== null ? body : {}) as DeleteOptions;
  const name = existing.metadata.name;
  const policy = options.propagationPolicy ?? query.get('propagationPolicy') ?? undefined;
  const preconditions = options.preconditions ?? {};
  if (preconditions.uid !== undefined && preconditions.uid !== existing.metadata.uid) {
    throw preconditionFailed(type, name, 'UID', preconditions.uid, existing.metadata.uid ?? '');
  }
  if (preconditions.resourceVersion !== undefined && preconditions.resourceVersion !== existing.metadata.resourceVersion) {
    throw preconditionFailed(type, name, 'ResourceVersion', preconditions.resourceVersion, existing.metadata.resourceVersion ?? '');
  }
  if (policy !== undefined && !['Orphan', 'Background', 'Foreground'].includes(policy)) {
    throw new ApiError(422, 'Invalid', `DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "${policy}": supported values: "Foreground", "Background", "Orphan", "nil"`);
  }
  const finalizers = new Set(existing.metadata.finalizers ?? []);
  if (policy === 'Orphan') finalizers.add('orphan');
  if (policy === 'Foreground') finalizers.add('foregroundDeletion');
  // A namespace is finalized by the namespace controller (spec.finalizers), Terminating until its contents are gone.
  if (type === namespaceType) {
    const terminating: KubeObject = { ...existing, metadata: { ...existing.metadata, deletionTimestamp: existing.metadata.deletionTimestamp ?? store.timestamp() }, status: { ...existing.status, phase: 'Terminating' } };
    return dryRun ? terminating : store.replace(type, terminating);
  }
  if (finalizers.size === 0) {
    if (dryRun) return existing;
    store.remove(type, existing.metadata.namespace, name);
    // Some registries answer with the deleted object, the rest with a Status.
    if (returnsDeletedObject.has(type.kind)) return existing;
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Success', details: { name, group: type.group, kind: type.plural, uid: existing.metadata.uid } };
  }
  // With finalizers the object stays, marked for deletion, until controllers (the garbage collector) remove them.
  const marked: KubeObject = {
    ...existing,
    metadata: { ...existing.metadata, deletionTimestamp: existing.metadata.deletionTimestamp ?? store.timestamp(), deletionGracePeriodSeconds: 0, finalizers: [...finalizers] },
  };
  if (dryRun) return marked;
  return store.replace(type, marked);
}
