// Kubernetes objects to the engine's plain types, in one place. Snapshot objects are mapped from the server's JSON
// (`Wire<T>`: client-node's model with its timestamps as the strings the server sent), not client-node's typed copy.
import type {
  CoreV1Event, V1ConfigMap, V1PersistentVolumeClaim, V1Pod, V1ResourceQuota, V1StatefulSet, V1StorageClass,
  V1VolumeAttributesClass,
} from '@kubernetes/client-node';
import type {
  JsonObject, LivePod, LivePvc, LiveQuota, LiveStatefulSet, LiveStorageClass, LiveTemplate, LiveVolumeAttributesClass, PvcEvent,
  RecreationRecord,
} from '../../domain/live-state.ts';
import { parseQuantity, QuantityError, type Quantity } from '../../domain/quantity.ts';

export const recordLabel = 'sts-volume-gitops.io/recreation-record';
/** On records in the target's Lease namespace: the target that wrote it (older versions' records have none). */
export const recordTargetLabel = 'sts-volume-gitops.io/target';
/** On records in the target's Lease namespace: the StatefulSet's namespace (its name, maybe longer than a label value, is in the data). */
export const recordNamespaceLabel = 'sts-volume-gitops.io/statefulset-namespace';
/** The Lease annotation that says whether the old record locations were looked at (see RecordsMark). */
export const leaseRecordsAnnotation = 'sts-volume-gitops.io/recreation-records';
/** The Lease annotation holding the signed list of outstanding recreations (engine/records/outstanding.ts). */
export const leaseOutstandingAnnotation = 'sts-volume-gitops.io/outstanding-recreations';

/** A client-node model as the server's JSON has it: Date fields (Time, MicroTime) are strings there. */
export type Wire<T> = T extends Date ? string
  : T extends ReadonlyArray<infer U> ? Array<Wire<U>>
  : T extends object ? { [K in keyof T]?: Wire<T[K]> }
  : T;

/** The JSON as the model it is read as: every field optional, so a missing one reads as undefined. */
function asWire<T>(json: JsonObject): Wire<T> {
  return json as Wire<T>;
}

function stringsOf(map: Record<string, unknown> | undefined): Record<string, string> {
  return Object.fromEntries(Object.entries(map ?? {}).filter((entry): entry is [string, string] => typeof entry[1] === 'string'));
}

function quantityOrUndefined(value: unknown): Quantity | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined;
  try {
    return parseQuantity(value);
  } catch (error) {
    if (error instanceof QuantityError) return undefined; // a value the server accepted but we cannot read: treated as unknown
    throw error;
  }
}

/** The server's JSON is kept whole as `raw` (fields unknown to client-node included): it is what a recreation sends. */
export function toLiveStatefulSet(wire: JsonObject): LiveStatefulSet {
  const raw = asWire<V1StatefulSet>(wire);
  const spec = (wire.spec ?? {}) as JsonObject;
  const templates = Array.isArray(spec.volumeClaimTemplates) ? (spec.volumeClaimTemplates as JsonObject[]) : [];
  const controller = raw.metadata?.ownerReferences?.find((ref) => ref.controller === true);
  return {
    namespace: raw.metadata?.namespace ?? '',
    name: raw.metadata?.name ?? '',
    uid: raw.metadata?.uid ?? '',
    resourceVersion: raw.metadata?.resourceVersion ?? '',
    generation: raw.metadata?.generation ?? 0,
    replicas: raw.spec?.replicas ?? 1,
    podManagementPolicy: raw.spec?.podManagementPolicy === 'Parallel' ? 'Parallel' : 'OrderedReady',
    updateRevision: raw.status?.updateRevision,
    templates: templates.map(toLiveTemplate),
    annotations: stringsOf(raw.metadata?.annotations),
    deleting: raw.metadata?.deletionTimestamp !== undefined && raw.metadata.deletionTimestamp !== null,
    ...(controller ? { controllerOwner: { apiVersion: controller.apiVersion ?? '', kind: controller.kind ?? '', name: controller.name ?? '', uid: controller.uid ?? '' } } : {}),
    raw: wire,
  };
}

/** `templateWithoutStorage` shares all but the path to the storage request with `raw`: it is read, never written. */
function toLiveTemplate(template: JsonObject): LiveTemplate {
  const metadata = (template.metadata ?? {}) as JsonObject;
  const spec = (template.spec ?? {}) as JsonObject;
  const resources = spec.resources as JsonObject | undefined;
  const requests = resources?.requests as JsonObject | undefined;
  const { storage, ...otherRequests } = requests ?? {};
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    storageClassName: typeof spec.storageClassName === 'string' ? spec.storageClassName : undefined,
    storage: quantityOrUndefined(storage),
    volumeAttributesClassName: typeof spec.volumeAttributesClassName === 'string' ? spec.volumeAttributesClassName : undefined,
    templateWithoutStorage: requests === undefined ? template : { ...template, spec: { ...spec, resources: { ...resources, requests: otherRequests } } },
  };
}

export function toLivePvc(json: JsonObject): LivePvc {
  const raw = asWire<V1PersistentVolumeClaim>(json);
  return {
    namespace: raw.metadata?.namespace ?? '',
    name: raw.metadata?.name ?? '',
    uid: raw.metadata?.uid ?? '',
    resourceVersion: raw.metadata?.resourceVersion ?? '',
    phase: raw.status?.phase,
    storageClassName: raw.spec?.storageClassName,
    request: quantityOrUndefined(raw.spec?.resources?.requests?.storage),
    capacity: quantityOrUndefined(raw.status?.capacity?.storage),
    allocated: quantityOrUndefined(raw.status?.allocatedResources?.storage),
    resizeStatus: raw.status?.allocatedResourceStatuses?.storage,
    conditions: (raw.status?.conditions ?? []).map((c) => ({
      type: c.type ?? '', status: c.status ?? '', reason: c.reason, message: c.message,
      lastTransitionTime: c.lastTransitionTime ? new Date(c.lastTransitionTime).toISOString() : undefined,
    })),
    deleting: raw.metadata?.deletionTimestamp !== undefined && raw.metadata.deletionTimestamp !== null,
    annotations: stringsOf(raw.metadata?.annotations),
    volumeAttributesClassName: raw.spec?.volumeAttributesClassName ?? undefined,
    currentVolumeAttributesClassName: raw.status?.currentVolumeAttributesClassName ?? undefined,
    modifyVolumeStatus: raw.status?.modifyVolumeStatus?.status
      ? { status: raw.status.modifyVolumeStatus.status, targetVolumeAttributesClassName: raw.status.modifyVolumeStatus.targetVolumeAttributesClassName ?? undefined }
      : undefined,
  };
}

/** storage.k8s.io/v1 and v1beta1 VolumeAttributesClasses have the same fields. */
export function toLiveVolumeAttributesClass(json: JsonObject): LiveVolumeAttributesClass {
  const raw = asWire<V1VolumeAttributesClass>(json);
  return {
    name: raw.metadata?.name ?? '',
    driverName: raw.driverName ?? '',
    parameters: stringsOf(raw.parameters),
    deleting: raw.metadata?.deletionTimestamp !== undefined && raw.metadata.deletionTimestamp !== null,
  };
}

export function toLivePod(json: JsonObject): LivePod {
  const raw = asWire<V1Pod>(json);
  return {
    namespace: raw.metadata?.namespace ?? '',
    name: raw.metadata?.name ?? '',
    phase: raw.status?.phase,
    deleting: raw.metadata?.deletionTimestamp !== undefined && raw.metadata.deletionTimestamp !== null,
    revision: raw.metadata?.labels?.['controller-revision-hash'],
    ...(raw.spec?.nodeName ? { node: raw.spec.nodeName } : {}),
  };
}

export function toLiveQuota(json: JsonObject): LiveQuota {
  const raw = asWire<V1ResourceQuota>(json);
  const hard: Record<string, Quantity> = {};
  for (const [key, value] of Object.entries(raw.spec?.hard ?? {})) {
    const quantity = quantityOrUndefined(value);
    if (quantity) hard[key] = quantity;
  }
  const classes = (raw.spec?.scopeSelector?.matchExpressions ?? [])
    .filter((e) => e.scopeName === 'VolumeAttributesClass' && e.operator === 'In').flatMap((e) => e.values ?? []);
  return {
    namespace: raw.metadata?.namespace ?? '', name: raw.metadata?.name ?? '', hard, resourceVersion: raw.metadata?.resourceVersion,
    ...(classes.length > 0 ? { volumeAttributesClasses: classes } : {}),
  };
}

export function toLiveStorageClass(json: JsonObject): LiveStorageClass {
  const raw = asWire<V1StorageClass>(json);
  const annotations = raw.metadata?.annotations ?? {};
  return {
    name: raw.metadata?.name ?? '',
    allowVolumeExpansion: raw.allowVolumeExpansion === true,
    provisioner: raw.provisioner,
    isDefault: annotations['storageclass.kubernetes.io/is-default-class'] === 'true'
      || annotations['storageclass.beta.kubernetes.io/is-default-class'] === 'true',
    resourceVersion: raw.metadata?.resourceVersion,
  };
}

/** Every ConfigMap with the record label becomes a record; one that cannot be read says why (it is reported, never used). */
export function toRecreationRecord(raw: V1ConfigMap): RecreationRecord {
  const data = raw.data ?? {};
  const recordNamespace = raw.metadata?.namespace ?? '';
  const record: RecreationRecord = {
    // Older versions kept the record beside its StatefulSet and wrote no `namespace`.
    namespace: data.namespace ?? recordNamespace,
    recordNamespace,
    recordName: raw.metadata?.name ?? '',
    ownerTarget: raw.metadata?.labels?.[recordTargetLabel],
    statefulSetName: data.statefulSet ?? '',
    oldUid: data.oldUid ?? '',
    target: {},
    updateRevision: data.updateRevision,
    ...(data.mac !== undefined ? { mac: data.mac } : {}),
    ...(data.sealedAt !== undefined ? { sealedAt: data.sealedAt } : {}),
    ...(raw.metadata?.uid !== undefined ? { recordUid: raw.metadata.uid } : {}),
  };
  if (!data.statefulSet || !data.oldUid || !data.target) return { ...record, unreadable: 'data.statefulSet, data.oldUid or data.target is missing' };
  let target: unknown;
  try {
    target = JSON.parse(data.target);
  } catch {
    return { ...record, unreadable: 'data.target is not JSON' };
  }
  if (typeof target !== 'object' || target === null || Array.isArray(target)) return { ...record, unreadable: 'data.target is not a JSON object' };
  return { ...record, target: target as JsonObject };
}

export function toPvcEvent(raw: CoreV1Event): PvcEvent {
  const last = raw.lastTimestamp ?? raw.eventTime ?? raw.firstTimestamp;
  const first = raw.firstTimestamp ?? raw.eventTime ?? raw.lastTimestamp;
  return {
    namespace: raw.metadata.namespace ?? '',
    pvcName: raw.involvedObject.name ?? '',
    reason: raw.reason ?? '',
    message: raw.message ?? '',
    type: raw.type ?? '',
    lastTimestamp: last ? new Date(last).toISOString() : undefined,
    firstTimestamp: first ? new Date(first).toISOString() : undefined,
    count: raw.count ?? 1,
  };
}
