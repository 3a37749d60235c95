// Defaulting, validation and admission the sandbox runs on every write, with the real server's codes and texts:
// StatefulSet spec immutability, PVC resize rules (KEP-0284, KEP-1790; volume-validation.ts), the resize admission
// plugin, ResourceQuota.
import { isDeepStrictEqual } from 'node:util';
import { compareSandboxQuantities as compareQuantities, parseSandboxQuantity as parseQuantity, quantityOfBytes, sandboxBytesOf, sandboxQuantityValue } from './quantity.ts';
import { forbidden, invalid } from './api-errors.ts';
import { defaultServerVersion, type ServerVersion } from './server-version.ts';
import { pvcProtectionFinalizer, pvProtectionFinalizer, vacProtectionFinalizer } from './controllers/volume-protection.ts';
import { mustResourceType, type KubeObject, type ObjectStore, type ResourceType } from './store.ts';
import { storageRequest, validatePvcUpdate, validateVolumeAttributesClassUpdate } from './volume-validation.ts';

type Json = Record<string, unknown>;


const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const quotaType = mustResourceType('v1', 'ResourceQuota');

/** Server-side defaults, so objects read back look like a real cluster's (and Git-vs-live diffs meet them). */
export function applyDefaults(t: ResourceType, object: KubeObject, store: ObjectStore, server: ServerVersion = defaultServerVersion): void {
  if (t.kind === 'StatefulSet') {
    const spec = (object.spec ??= {});
    spec.replicas ??= 1;
    spec.podManagementPolicy ??= 'OrderedReady';
    spec.revisionHistoryLimit ??= 10;
    spec.updateStrategy ??= { type: 'RollingUpdate', rollingUpdate: { partition: 0 } };
    // StatefulSetAutoDeletePVC: defaulted where it is on (GA in v1.32), dropped on write where it is off (alpha in v1.26).
    if (server.retentionPolicy) {
      const policy = (spec.persistentVolumeClaimRetentionPolicy ??= {}) as Json;
      policy.whenDeleted ??= 'Retain';
      policy.whenScaled ??= 'Retain';
    } else {
      delete spec.persistentVolumeClaimRetentionPolicy;
    }
    const template = (spec.template ??= {}) as Json;
    const templateMetadata = (template.metadata ??= {}) as Json;
    if (!('creationTimestamp' in templateMetadata)) templateMetadata.creationTimestamp = null;
    defaultPodSpec((template.spec ??= {}) as Json);
    for (const claim of (spec.volumeClaimTemplates ?? []) as Json[]) {
      claim.apiVersion ??= 'v1';
      claim.kind ??= 'PersistentVolumeClaim';
      const claimSpec = (claim.spec ??= {}) as Json;
      claimSpec.volumeMode ??= 'Filesystem';
      claim.status ??= { phase: 'Pending' };
    }
  }
  if (t.kind === 'Pod') {
    defaultPodSpec((object.spec ??= {}));
    object.status ??= { phase: 'Pending' };
  }
  if (t.kind === 'Namespace') {
    object.metadata.labels = { ...object.metadata.labels, 'kubernetes.io/metadata.name': object.metadata.name };
    object.spec = { finalizers: ['kubernetes'], ...object.spec };
    object.status ??= { phase: 'Active' };
  }
  if (t.kind === 'PersistentVolume') {
    const spec = (object.spec ??= {});
    spec.persistentVolumeReclaimPolicy ??= 'Retain';
    spec.volumeMode ??= 'Filesystem';
    object.status ??= { phase: 'Pending' };
  }
  if (t.kind === 'Event' && t.group === '') {
    // core/v1 Event: eventTime is a MicroTime struct (null when unset), the reporting fields plain strings.
    if (!('eventTime' in object)) object.eventTime = null;
    object.reportingComponent ??= '';
    object.reportingInstance ??= '';
  }
  if (t.kind === 'PersistentVolumeClaim') {
    const spec = (object.spec ??= {});
    spec.volumeMode ??= 'Filesystem';
    // The DefaultStorageClass admission plugin fills in the class on create.
    if (spec.storageClassName === undefined) {
      const defaultClass = store.peekList(storageClassType).find((c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
      if (defaultClass) spec.storageClassName = defaultClass.metadata.name;
    }
    object.status ??= { phase: 'Pending' };
  }
}

/** SetDefaults_PodSpec and SetDefaults_Container, for the fields a pod template in this project meets. */
function defaultPodSpec(spec: Json): void {
  spec.restartPolicy ??= 'Always';
  spec.terminationGracePeriodSeconds ??= 30;
  spec.dnsPolicy ??= 'ClusterFirst';
  spec.securityContext ??= {};
  spec.schedulerName ??= 'default-scheduler';
  for (const key of ['initContainers', 'containers']) {
    for (const container of (Array.isArray(spec[key]) ? spec[key] : []) as Json[]) {
      container.resources ??= {};
      container.terminationMessagePath ??= '/dev/termination-log';
      container.terminationMessagePolicy ??= 'File';
      // An image without a tag, or tagged latest, is pulled every time.
      const image = typeof container.image === 'string' ? container.image : '';
      const tag = /:([^/:@]+)$/.exec(image.split('@')[0] ?? '')?.[1];
      container.imagePullPolicy ??= image.includes('@') || (tag !== undefined && tag !== 'latest') ? 'IfNotPresent' : 'Always';
    }
  }
}

/** Validation of an update (old -> new); create-time checks are the schema's business and not modelled. */
export function validateUpdate(t: ResourceType, old: KubeObject, updated: KubeObject, featureGates: ReadonlySet<string> = new Set(), server: ServerVersion = defaultServerVersion): void {
  if (t.kind === 'StatefulSet') {
    // With KEP-4650's gate (not shipped anywhere yet) the storage requests of volumeClaimTemplates become mutable.
    const vctStorageMutable = featureGates.has('StatefulSetUpdateVolumeClaimTemplate');
    const withoutStorage = (templates: unknown): unknown => (Array.isArray(templates) ? templates.map((claim: Json) => {
      const copy = structuredClone(claim);
      const requests = ((copy.spec as Json | undefined)?.resources as Json | undefined)?.requests as Json | undefined;
      if (requests) delete requests.storage;
      return copy;
    }) : templates);
    const strip = (spec: Json | undefined): Json => Object.fromEntries(Object.entries(spec ?? {})
      .filter(([k]) => !server.statefulSetMutableFields.includes(k))
      .map(([k, v]) => [k, vctStorageMutable && k === 'volumeClaimTemplates' ? withoutStorage(v) : v]));
    if (!isDeepStrictEqual(strip(old.spec), strip(updated.spec))) {
      throw invalid(t, updated.metadata.name, [{ reason: 'FieldValueForbidden', field: 'spec', message: server.statefulSetForbiddenMessage }]);
    }
  }
  if (t.kind === 'PersistentVolumeClaim') validatePvcUpdate(t, old, updated, server);
  if (t.kind === 'VolumeAttributesClass') validateVolumeAttributesClassUpdate(t, old, updated);
}

/** The PersistentVolumeClaimResize admission plugin and ResourceQuota, on PVC create and update. */
export function admit(t: ResourceType, old: KubeObject | undefined, updated: KubeObject, store: ObjectStore): void {
  if (t.kind === 'Event' && t.group === '') validateCoreEvent(t, updated);
  if (!old && (t.kind === 'PersistentVolumeClaim' || t.kind === 'PersistentVolume' || t.kind === 'VolumeAttributesClass')) protectOnCreate(t, updated);
  if (t.kind !== 'PersistentVolumeClaim') return;
  const before = old ? storageRequest(old) : undefined;
  const after = storageRequest(updated);
  if (old && before && after && compareQuantities(after, before) > 0) {
    if (!old.spec?.volumeName) throw forbidden(t, updated.metadata.name, 'Only bound persistent volume claims can be expanded');
    const className = old.spec.storageClassName;
    const storageClass = typeof className === 'string' ? store.get(storageClassType, undefined, className) : undefined;
    if (storageClass?.allowVolumeExpansion !== true) {
      throw forbidden(t, updated.metadata.name, 'only dynamically provisioned pvc can be resized and the storageclass that provisions the pvc must support resize');
    }
  }
  checkQuota(t, old, updated, store);
}

const nameRegex = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]";
const nameRules = `name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '${nameRegex}')`;

/** ValidateEvent (core/v1): the involved object lives in the Event's namespace; a new-style Event (eventTime set) names its reporter and action. */
function validateCoreEvent(t: ResourceType, event: KubeObject): void {
  const involvedNamespace = (event.involvedObject as Json | undefined)?.namespace;
  if (typeof involvedNamespace === 'string' && involvedNamespace !== '' && involvedNamespace !== event.metadata.namespace) {
    throw invalid(t, event.metadata.name, [{ reason: 'FieldValueInvalid', field: 'involvedObject.namespace', message: `Invalid value: ${JSON.stringify(involvedNamespace)}: does not match event.namespace` }]);
  }
  if (event.eventTime === null || event.eventTime === undefined) return;
  const causes: Array<{ reason: string; field: string; message: string }> = [];
  const component = typeof event.reportingComponent === 'string' ? event.reportingComponent : '';
  if (component === '') {
    causes.push({ reason: 'FieldValueRequired', field: 'reportingComponent', message: 'Required value' });
    causes.push({ reason: 'FieldValueInvalid', field: 'reportingComponent', message: 'Invalid value: "": name part must be non-empty' });
    causes.push({ reason: 'FieldValueInvalid', field: 'reportingComponent', message: `Invalid value: "": ${nameRules}` });
  }
  if (typeof event.reportingInstance !== 'string' || event.reportingInstance === '') causes.push({ reason: 'FieldValueRequired', field: 'reportingInstance', message: 'Required value' });
  if (typeof event.action !== 'string' || event.action === '') causes.push({ reason: 'FieldValueRequired', field: 'action', message: 'Required value' });
  if (causes.length > 0) throw invalid(t, event.metadata.name, causes);
}

/** StorageObjectInUseProtection: every new PVC, PV and VolumeAttributesClass carries its protection finalizer. */
function protectOnCreate(t: ResourceType, object: KubeObject): void {
  const finalizer = { PersistentVolumeClaim: pvcProtectionFinalizer, VolumeAttributesClass: vacProtectionFinalizer }[t.kind] ?? pvProtectionFinalizer;
  const finalizers = object.metadata.finalizers ?? [];
  if (!finalizers.includes(finalizer)) object.metadata.finalizers = [...finalizers, finalizer];
}

/** What quota counts for a PVC: max(spec request, allocatedResources) (KEP-1790). */
export function pvcQuotaUsage(pvc: KubeObject): bigint {
  const request = sandboxBytesOf(((pvc.spec?.resources as Json | undefined)?.requests as Json | undefined)?.storage) ?? 0n;
  const allocated = sandboxBytesOf((pvc.status?.allocatedResources as Json | undefined)?.storage) ?? 0n;
  return request > allocated ? request : allocated;
}

function quotaKeysFor(pvc: KubeObject): string[] {
  const className = pvc.spec?.storageClassName;
  const keys = ['requests.storage'];
  if (typeof className === 'string') keys.push(`${className}.storageclass.storage.k8s.io/requests.storage`);
  return keys;
}

/** Current usage of every quota key in a namespace, counted from the PVCs. */
export function namespaceUsage(store: ObjectStore, namespace: string, exclude?: string): Map<string, bigint> {
  const usage = new Map<string, bigint>();
  const add = (key: string, value: bigint): void => { usage.set(key, (usage.get(key) ?? 0n) + value); };
  for (const pvc of store.peekList(pvcType, namespace)) {
    if (pvc.metadata.name === exclude) continue;
    add('persistentvolumeclaims', 1n);
    for (const key of quotaKeysFor(pvc)) add(key, pvcQuotaUsage(pvc));
  }
  return usage;
}

function checkQuota(t: ResourceType, old: KubeObject | undefined, updated: KubeObject, store: ObjectStore): void {
  const namespace = updated.metadata.namespace ?? '';
  const quotas = store.list(quotaType, namespace);
  if (quotas.length === 0) return;
  const others = namespaceUsage(store, namespace, updated.metadata.name);
  const requested = new Map<string, bigint>();
  const previous = old ? pvcQuotaUsage(old) : 0n;
  const next = pvcQuotaUsage(updated);
  for (const key of quotaKeysFor(updated)) requested.set(key, next - (old ? previous : 0n));
  if (!old) requested.set('persistentvolumeclaims', 1n);
  for (const quota of quotas) {
    const hard = (quota.spec?.hard ?? {}) as Record<string, string>;
    const exceeded: string[] = [];
    for (const [key, limitText] of Object.entries(hard)) {
      const delta = requested.get(key);
      if (delta === undefined || delta <= 0n) continue;
      const usedBefore = (others.get(key) ?? 0n) + (old ? previous : 0n);
      const limit = sandboxQuantityValue(parseQuantity(limitText));
      if (usedBefore + delta > limit) exceeded.push(key);
    }
    if (exceeded.length === 0) continue;
    const format = (key: string, value: bigint): string => `${key}=${key === 'persistentvolumeclaims' ? String(value) : quantityOfBytes(value)}`;
    const usedOf = (key: string): bigint => (others.get(key) ?? 0n) + (old ? previous : 0n);
    throw forbidden(t, updated.metadata.name,
      `exceeded quota: ${quota.metadata.name}, requested: ${exceeded.map((k) => format(k, requested.get(k) ?? 0n)).join(',')}, `
      + `used: ${exceeded.map((k) => format(k, usedOf(k))).join(',')}, limited: ${exceeded.map((k) => `${k}=${hard[k] ?? ''}`).join(',')}`);
  }
}

/** Rewrites status.hard/used of every ResourceQuota from the PVCs (the quota controller's job). */
export function refreshQuotaUsage(store: ObjectStore): void {
  for (const quota of store.peekList(quotaType)) {
    const hard = (quota.spec?.hard ?? {}) as Record<string, string>;
    const usage = namespaceUsage(store, quota.metadata.namespace ?? '');
    const used = Object.fromEntries(Object.keys(hard).map((key) => [key, key === 'persistentvolumeclaims'
      ? String(usage.get(key) ?? 0n) : quantityOfBytes(usage.get(key) ?? 0n)]));
    const status = { hard, used };
    if (!isDeepStrictEqual(quota.status, status)) store.replace(quotaType, { ...quota, status });
  }
}
