// The sandbox API server's object store: the one place that assigns uid, resourceVersion, generation and timestamps.
// The HTTP layer (validation, admission, patch, delete semantics) and the simulated controllers both write through it,
// so resourceVersion stays monotonic across every writer, as etcd makes it on a real cluster.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';

export interface ObjectMeta {
  name: string;
  namespace?: string;
  uid?: string;
  resourceVersion?: string;
  generation?: number;
  creationTimestamp?: string;
  deletionTimestamp?: string;
  deletionGracePeriodSeconds?: number;
  labels?: Record<string, string>;
  annotations?: Record<string, string>;
  finalizers?: string[];
  ownerReferences?: OwnerReference[];
  generateName?: string;
  managedFields?: unknown[];
  [key: string]: unknown;
}

export interface OwnerReference {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
  controller?: boolean;
  blockOwnerDeletion?: boolean;
}

/** Any Kubernetes object as stored: plain JSON. */
export interface KubeObject {
  apiVersion: string;
  kind: string;
  metadata: ObjectMeta;
  spec?: Record<string, unknown>;
  status?: Record<string, unknown>;
  [key: string]: unknown;
}

export interface ResourceType {
  group: string; // '' for the core group
  version: string;
  kind: string;
  plural: string;
  singular: string;
  namespaced: boolean;
  /** Has a /status subresource: the main endpoint ignores status changes, /status ignores everything else. */
  hasStatus: boolean;
  /** generation is bumped on spec changes (types with a spec the server versions). */
  tracksGeneration: boolean;
  shortNames: string[];
  verbs: string[];
  /** The first Kubernetes minor version that serves it (GA there); served by every version when absent. */
  sinceMinor?: number;
}

const allVerbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

function type(
  group: string, version: string, kind: string, plural: string, namespaced: boolean,
  options: { hasStatus?: boolean; tracksGeneration?: boolean; shortNames?: string[]; sinceMinor?: number } = {},
): ResourceType {
  return {
    group, version, kind, plural, singular: kind.toLowerCase(), namespaced,
    hasStatus: options.hasStatus ?? false,
    tracksGeneration: options.tracksGeneration ?? false,
    shortNames: options.shortNames ?? [],
    verbs: allVerbs,
    ...(options.sinceMinor === undefined ? {} : { sinceMinor: options.sinceMinor }),
  };
}

/** Every resource type the sandbox serves. */
export const resourceTypes: readonly ResourceType[] = [
  type('', 'v1', 'Namespace', 'namespaces', false, { hasStatus: true, shortNames: ['ns'] }),
  type('', 'v1', 'Pod', 'pods', true, { hasStatus: true, shortNames: ['po'] }),
  type('', 'v1', 'PersistentVolumeClaim', 'persistentvolumeclaims', true, { hasStatus: true, shortNames: ['pvc'] }),
  type('', 'v1', 'PersistentVolume', 'persistentvolumes', false, { hasStatus: true, shortNames: ['pv'] }),
  type('', 'v1', 'ConfigMap', 'configmaps', true, { shortNames: ['cm'] }),
  type('', 'v1', 'ServiceAccount', 'serviceaccounts', true, { shortNames: ['sa'] }),
  type('', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
  type('', 'v1', 'ResourceQuota', 'resourcequotas', true, { hasStatus: true, shortNames: ['quota'] }),
  type('apps', 'v1', 'StatefulSet', 'statefulsets', true, { hasStatus: true, tracksGeneration: true, shortNames: ['sts'] }),
  type('apps', 'v1', 'ControllerRevision', 'controllerrevisions', true),
  type('storage.k8s.io', 'v1', 'StorageClass', 'storageclasses', false, { shortNames: ['sc'] }),
  // KEP-3751, GA (storage.k8s.io/v1) in v1.34.
  type('storage.k8s.io', 'v1', 'VolumeAttributesClass', 'volumeattributesclasses', false, { shortNames: ['vac'], sinceMinor: 34 }),
  type('events.k8s.io', 'v1', 'Event', 'events', true, { shortNames: ['ev'] }),
  type('coordination.k8s.io', 'v1', 'Lease', 'leases', true),
  // Read by the authorizer (authorization.ts) on every request of a non-admin identity.
  type('rbac.authorization.k8s.io', 'v1', 'ClusterRole', 'clusterroles', false),
  type('rbac.authorization.k8s.io', 'v1', 'ClusterRoleBinding', 'clusterrolebindings', false),
  type('rbac.authorization.k8s.io', 'v1', 'Role', 'roles', true),
  type('rbac.authorization.k8s.io', 'v1', 'RoleBinding', 'rolebindings', true),
  // Never stored: answered by the authorizer (`kubectl auth can-i`).
  { ...type('authorization.k8s.io', 'v1', 'SelfSubjectAccessReview', 'selfsubjectaccessreviews', false), verbs: ['create'] },
];

export function apiVersionOf(t: ResourceType): string {
  return t.group === '' ? t.version : `${t.group}/${t.version}`;
}

export function findResourceType(group: string, version: string, plural: string): ResourceType | undefined {
  return resourceTypes.find((t) => t.group === group && t.version === version && t.plural === plural);
}

/** Whether a server of that minor version serves the type. */
export function servedBy(t: ResourceType, minor: number): boolean {
  return t.sinceMinor === undefined || minor >= t.sinceMinor;
}

export function resourceTypeOf(apiVersion: string, kind: string): ResourceType | undefined {
  return resourceTypes.find((t) => apiVersionOf(t) === apiVersion && t.kind === kind);
}

/** Resolves a type that must exist (controllers and seeds name their own types). */
export function mustResourceType(apiVersion: string, kind: string): ResourceType {
  const found = resourceTypeOf(apiVersion, kind);
  if (!found) throw new Error(`sandbox store: unknown resource type ${apiVersion} ${kind}`);
  return found;
}

/** A stored change; `previous` is the object before a modification (watches need it to see objects leave a selector). */
export type StoreChange = { kind: 'added' | 'modified' | 'deleted'; type: ResourceType; object: KubeObject; previous?: KubeObject };

/**
 * In-memory objects keyed by type, namespace and name. `get` and `list` return deep copies, so no caller can change
 * stored state without a write (and a new resourceVersion). Stored objects are frozen: `peek` and `peekList` hand
 * them out without copying, for the simulated controllers' scans, and a stray write to one throws.
 */
export class ObjectStore {
  /** Per type, per namespace ('' for cluster-scoped types), the objects by name, kept in etcd key order. */
  private readonly types = new Map<string, TypeIndex>();
  private revision = 1000;
  private readonly listeners: Array<(change: StoreChange) => void> = [];

  constructor(private readonly now: () => Date = () => new Date()) {}

  /** The latest resourceVersion handed out (lists report it as their collection resourceVersion). */
  get currentResourceVersion(): string {
    return String(this.revision);
  }

  timestamp(): string {
    return this.now().toISOString().replace(/\.\d{3}Z$/, 'Z');
  }

  /** Calls `listener` after every change; returns the function that stops it. */
  onChange(listener: (change: StoreChange) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const index = this.listeners.indexOf(listener);
      if (index >= 0) this.listeners.splice(index, 1);
    };
  }

  get(t: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const found = this.peek(t, namespace, name);
    return found ? structuredClone(found) : undefined;
  }

  /** Objects of a type, in one namespace or all, sorted by namespace then name (as etcd keys sort). */
  list(t: ResourceType, namespace?: string): KubeObject[] {
    return this.peekList(t, namespace).map((o) => structuredClone(o) as KubeObject);
  }

  /** The stored object itself, frozen: read it, or spread it into a new object to write. */
  peek(t: ResourceType, namespace: string | undefined, name: string): Readonly<KubeObject> | undefined {
    return this.types.get(typeKey(t))?.bucket(scopeOf(t, namespace))?.objects.get(name);
  }

  /** `list` without the copies: the stored objects themselves, frozen, in the same order. */
  peekList(t: ResourceType, namespace?: string): Array<Readonly<KubeObject>> {
    const index = this.types.get(typeKey(t));
    if (!index) return [];
    if (namespace !== undefined && t.namespaced) return index.bucket(namespace)?.inOrder() ?? [];
    return index.inOrder();
  }

  /** Stores a new object, filling uid, resourceVersion, creationTimestamp and generation. Caller checks existence. */
  create(t: ResourceType, input: KubeObject): KubeObject {
    const obj = structuredClone(input);
    obj.apiVersion = apiVersionOf(t);
    obj.kind = t.kind;
    if (!t.namespaced) delete obj.metadata.namespace;
    obj.metadata.uid = randomUUID();
    obj.metadata.creationTimestamp = this.timestamp();
    obj.metadata.resourceVersion = this.nextRevision();
    if (t.tracksGeneration) obj.metadata.generation = 1;
    delete obj.metadata.deletionTimestamp;
    this.put(t, obj);
    this.emit({ kind: 'added', type: t, object: obj });
    return structuredClone(obj);
  }

  /**
   * Replaces a stored object: keeps uid and creationTimestamp, bumps resourceVersion, and bumps generation when the
   * spec changed. Preconditions (resourceVersion match, subresource rules) are the caller's job.
   */
  replace(t: ResourceType, input: KubeObject): KubeObject {
    const existing = this.peek(t, input.metadata.namespace, input.metadata.name);
    if (!existing) throw new Error(`sandbox store: replace of missing ${t.plural} ${input.metadata.name}`);
    const obj = structuredClone(input);
    obj.apiVersion = apiVersionOf(t);
    obj.kind = t.kind;
    obj.metadata.uid = existing.metadata.uid;
    obj.metadata.creationTimestamp = existing.metadata.creationTimestamp;
    if (t.tracksGeneration) {
      const generation = existing.metadata.generation ?? 1;
      obj.metadata.generation = isDeepStrictEqual(existing.spec, obj.spec) ? generation : generation + 1;
    }
    if (isDeepStrictEqual(existing, { ...obj, metadata: { ...obj.metadata, resourceVersion: existing.metadata.resourceVersion } })) {
      return structuredClone(existing); // a no-op write keeps its resourceVersion, as on a real server
    }
    obj.metadata.resourceVersion = this.nextRevision();
    this.put(t, obj);
    this.emit({ kind: 'modified', type: t, object: obj, previous: existing });
    return structuredClone(obj);
  }

  /** Removes the object for good (finalizers and deletionTimestamp handling belong to the caller). */
  remove(t: ResourceType, namespace: string | undefined, name: string): KubeObject | undefined {
    const index = this.types.get(typeKey(t));
    const scope = scopeOf(t, namespace);
    const existing = index?.bucket(scope)?.objects.get(name);
    if (!index || !existing) return undefined;
    index.delete(scope, name);
    // The deletion is a change of its own: watchers see the object with the resourceVersion of its removal.
    const removed = deepFreeze({ ...existing, metadata: { ...existing.metadata, resourceVersion: this.nextRevision() } });
    this.emit({ kind: 'deleted', type: t, object: removed });
    return structuredClone(removed);
  }

  private put(t: ResourceType, obj: KubeObject): void {
    let index = this.types.get(typeKey(t));
    if (!index) {
      index = new TypeIndex();
      this.types.set(typeKey(t), index);
    }
    index.set(scopeOf(t, obj.metadata.namespace), obj.metadata.name, deepFreeze(obj));
  }

  private nextRevision(): string {
    this.revision += 1;
    return String(this.revision);
  }

  private emit(change: StoreChange): void {
    for (const listener of this.listeners) listener(change);
  }
}

/** The objects of one namespace (or of a cluster-scoped type), with their names kept sorted. */
class Bucket {
  readonly objects = new Map<string, KubeObject>();
  readonly names: string[] = [];

  inOrder(): KubeObject[] {
    return this.names.map((name) => this.objects.get(name) as KubeObject);
  }
}

/**
 * One type's objects. etcd sorts keys `<namespace>/<name>` as strings, so namespaces sort by `<namespace>/`
 * (`a-b/` before `a/`), then names within each.
 */
class TypeIndex {
  private readonly buckets = new Map<string, Bucket>();
  private readonly scopes: string[] = [];

  bucket(scope: string): Bucket | undefined {
    return this.buckets.get(scope);
  }

  set(scope: string, name: string, obj: KubeObject): void {
    let bucket = this.buckets.get(scope);
    if (!bucket) {
      bucket = new Bucket();
      this.buckets.set(scope, bucket);
      insertSorted(this.scopes, scope, (s) => `${s}/`);
    }
    if (!bucket.objects.has(name)) insertSorted(bucket.names, name, (n) => n);
    bucket.objects.set(name, obj);
  }

  delete(scope: string, name: string): void {
    const bucket = this.buckets.get(scope);
    if (!bucket?.objects.delete(name)) return;
    bucket.names.splice(sortedIndex(bucket.names, name, (n) => n), 1);
    if (bucket.objects.size === 0) {
      this.buckets.delete(scope);
      this.scopes.splice(sortedIndex(this.scopes, scope, (s) => `${s}/`), 1);
    }
  }

  inOrder(): KubeObject[] {
    return this.scopes.flatMap((scope) => this.buckets.get(scope)?.inOrder() ?? []);
  }
}

/** Where `value` sorts in `sorted` (by `keyOf`, as strings compare). */
function sortedIndex(sorted: string[], value: string, keyOf: (s: string) => string): number {
  const key = keyOf(value);
  let low = 0;
  let high = sorted.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (keyOf(sorted[middle] ?? '') < key) low = middle + 1;
    else high = middle;
  }
  return low;
}

function insertSorted(sorted: string[], value: string, keyOf: (s: string) => string): void {
  sorted.splice(sortedIndex(sorted, value, keyOf), 0, value);
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const child of Object.values(value)) deepFreeze(child);
  return Object.freeze(value);
}

/** The namespace an object of `t` is kept under: '' for cluster-scoped types. */
function scopeOf(t: ResourceType, namespace: string | undefined): string {
  return t.namespaced ? namespace ?? '' : '';
}

function typeKey(t: ResourceType): string {
  return `${t.group}/${t.plural}`;
}

