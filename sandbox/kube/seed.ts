// Seeding: namespaces, StorageClasses with driver profiles, ResourceQuotas and StatefulSets "already applied", then
// the controllers run until the world is settled, so a seeded sandbox starts like a running cluster.
import { readFileSync } from 'node:fs';
import * as jsYaml from 'js-yaml';
import { parseSandboxQuantity, sandboxQuantityValue } from './quantity.ts';
import { applyDefaults } from './admission.ts';
import { runControllers } from './controllers/index.ts';
import { isRunningAndReady } from './controllers/statefulset.ts';
import { vacProtectionFinalizer } from './controllers/volume-protection.ts';
import { defaultDriver, type DriverProfile, type World } from './controllers/world.ts';
import { dropUnknownFields, type NewerServerFields } from './openapi.ts';
import { DecodeError, decodeObject } from './decode.ts';
import { parseServerVersion, ServerVersionError, type ServerVersion } from './server-version.ts';
import { mustResourceType, type KubeObject, type ResourceType } from './store.ts';

type Json = Record<string, unknown>;

export class SeedError extends Error {
  constructor(message: string) {
    super(`kube sandbox seed: ${message}`);
    this.name = 'SeedError';
  }
}

const namespaceType = mustResourceType('v1', 'Namespace');
const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');
const quotaType = mustResourceType('v1', 'ResourceQuota');
const statefulSetType = mustResourceType('apps/v1', 'StatefulSet');
const podType = mustResourceType('v1', 'Pod');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const volumeAttributesClassType = mustResourceType('storage.k8s.io/v1', 'VolumeAttributesClass');

export function loadSeedFile(path: string): unknown {
  try {
    return jsYaml.load(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new SeedError(`cannot read ${path}: ${error instanceof Error ? error.message : String(error)}`);
  }
}

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function list(seed: Json, key: string): unknown[] {
  const value = seed[key];
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new SeedError(`${key} must be a list`);
  return value;
}

function ensureNamespace(world: World, name: string): void {
  if (!world.store.peek(namespaceType, undefined, name)) {
    world.store.create(namespaceType, { apiVersion: 'v1', kind: 'Namespace', metadata: { name }, spec: { finalizers: ['kubernetes'] }, status: { phase: 'Active' } });
  }
}

/** The namespaces every cluster has. */
export function createSystemNamespaces(world: World): void {
  for (const name of ['default', 'kube-system', 'kube-public']) ensureNamespace(world, name);
}

function driverProfile(name: string, raw: unknown): DriverProfile {
  if (raw === undefined) return { ...defaultDriver, name: `${name}.csi.sandbox` };
  if (!isObject(raw)) throw new SeedError(`storageClasses[${name}].driver must be a map`);
  if (raw.unreachableVolumeAttributesClasses !== undefined) {
    // The real driver refuses a class by its parameters' names, not by the class's name (test/conformance/csi).
    throw new SeedError(`storageClasses[${name}].driver.unreachableVolumeAttributesClasses is gone: list the parameter names the driver can change in acceptedMutableParameterNames; a class with any other parameter is refused`);
  }
  const expansion = raw.expansion ?? 'controller+node';
  if (expansion !== 'controller+node' && expansion !== 'node-only' && expansion !== 'controller-only') {
    throw new SeedError(`storageClasses[${name}].driver.expansion must be controller+node, controller-only or node-only`);
  }
  const nodeExpansion = raw.nodeExpansion ?? 'online';
  if (nodeExpansion !== 'online' && nodeExpansion !== 'offline') throw new SeedError(`storageClasses[${name}].driver.nodeExpansion must be online or offline`);
  return {
    name: typeof raw.name === 'string' ? raw.name : `${name}.csi.sandbox`,
    expansion, nodeExpansion,
    maxVolumeBytes: raw.maxVolumeSize === undefined ? undefined : sandboxQuantityValue(parseSandboxQuantity(raw.maxVolumeSize as string)),
    transientErrorRate: typeof raw.transientErrorRate === 'number' ? raw.transientErrorRate : 0,
    ticksPerPhase: typeof raw.ticksPerPhase === 'number' ? raw.ticksPerPhase : 1,
    modifyTicks: typeof raw.modifyTicks === 'number' ? raw.modifyTicks : 1,
    acceptedMutableParameterNames: stringList(raw.acceptedMutableParameterNames, `storageClasses[${name}].driver.acceptedMutableParameterNames`),
    modificationLimit: modificationLimitOf(name, raw),
    optimizingMs: secondsOf(raw.optimizingSeconds, `storageClasses[${name}].driver.optimizingSeconds`) * 1000,
  };
}

/**
 * AWS EBS accepts four modifications of a volume within 24 hours; any driver may be given a limit,
 * `modificationLimit: { count, perSeconds }`, or the older `modificationCooldownSeconds` (one per that many seconds).
 */
function modificationLimitOf(name: string, raw: Record<string, unknown>): DriverProfile['modificationLimit'] {
  const where = `storageClasses[${name}].driver`;
  const { modificationLimit: limit, modificationCooldownSeconds: cooldown } = raw;
  if (limit !== undefined && cooldown !== undefined) throw new SeedError(`${where} sets both modificationLimit and modificationCooldownSeconds; keep one`);
  if (cooldown !== undefined) {
    const seconds = secondsOf(cooldown, `${where}.modificationCooldownSeconds`);
    return seconds > 0 ? { count: 1, perMs: seconds * 1000 } : undefined;
  }
  if (limit === undefined) return raw.name === 'ebs.csi.aws.com' ? { count: 4, perMs: 24 * 3_600_000 } : undefined;
  if (!isObject(limit) || typeof limit.count !== 'number' || !Number.isInteger(limit.count) || limit.count < 1) {
    throw new SeedError(`${where}.modificationLimit must be { count: a whole number of at least 1, perSeconds: a number of seconds }`);
  }
  const seconds = secondsOf(limit.perSeconds, `${where}.modificationLimit.perSeconds`);
  return seconds > 0 ? { count: limit.count, perMs: seconds * 1000 } : undefined;
}

function secondsOf(value: unknown, where: string): number {
  if (value === undefined) return 0;
  if (typeof value !== 'number' || value < 0) throw new SeedError(`${where} must be a number of seconds`);
  return value;
}

function stringList(value: unknown, where: string): string[] {
  if (value === undefined) return [];
  if (!Array.isArray(value) || !value.every((v) => typeof v === 'string')) throw new SeedError(`${where} must be a list of names`);
  return value;
}

/**
 * `volumeAttributesClasses: [{ name, driverName | storageClass, parameters }]`: a class for the driver named, or for the
 * driver of the StorageClass named (the seed's driver names are generated: `<class>.csi.sandbox` unless set).
 */
function seedVolumeAttributesClasses(world: World, seed: Json, warnings: string[]): void {
  const classes = list(seed, 'volumeAttributesClasses');
  if (classes.length > 0 && !world.server.volumeAttributesClasses) {
    // A seed written for 1.34 (the examples') still starts an older cluster: without the classes, as that server has none.
    const names = classes.map((raw) => (isObject(raw) && typeof raw.name === 'string' ? raw.name : '?'));
    warnings.push(`volumeAttributesClasses: VolumeAttributesClass is not served by ${world.server.gitVersion} (GA in v1.34): ${names.join(', ')} not seeded`);
    return;
  }
  for (const raw of classes) {
    if (!isObject(raw) || typeof raw.name !== 'string') throw new SeedError('each volumeAttributesClass needs a name');
    const driverName = typeof raw.driverName === 'string' ? raw.driverName
      : typeof raw.storageClass === 'string' ? world.drivers.get(raw.storageClass)?.name : undefined;
    if (driverName === undefined) throw new SeedError(`volumeAttributesClasses[${raw.name}] needs driverName, or storageClass naming a seeded StorageClass`);
    if (raw.parameters !== undefined && (!isObject(raw.parameters) || !Object.values(raw.parameters).every((v) => typeof v === 'string'))) {
      throw new SeedError(`volumeAttributesClasses[${raw.name}].parameters must map names to strings`);
    }
    world.store.create(volumeAttributesClassType, {
      apiVersion: 'storage.k8s.io/v1', kind: 'VolumeAttributesClass',
      metadata: { name: raw.name, finalizers: [vacProtectionFinalizer] }, driverName, ...(raw.parameters === undefined ? {} : { parameters: raw.parameters }),
    });
  }
}

/** The seed's `version` (`1.34`, `1.26`, or a full `v1.34.9`), if it names one. */
export function seedServerVersion(seed: unknown): ServerVersion | undefined {
  if (!isObject(seed) || seed.version === undefined) return undefined;
  if (typeof seed.version !== 'string' && typeof seed.version !== 'number') throw new SeedError('version must be a Kubernetes version such as 1.34 or 1.26');
  try {
    return parseServerVersion(seed.version);
  } catch (error) {
    if (error instanceof ServerVersionError) throw new SeedError(`version: ${error.message}`);
    throw error;
  }
}

/**
 * Seeds the world and returns its warnings: what this server version does not serve is left out (VolumeAttributesClasses
 * on 1.26) or dropped as the server drops an unknown field (a template's `volumeAttributesClassName`), and said so.
 */
export function applySeed(world: World, seed: unknown, newerFields: NewerServerFields = {}): string[] {
  const warnings: string[] = [];
  if (seed === undefined || seed === null) return warnings;
  if (!isObject(seed)) throw new SeedError('the seed must be a map with version, namespaces, storageClasses, resourceQuotas, statefulSets');
  seedKubelet(world, seed.kubelet);
  for (const name of list(seed, 'namespaces')) {
    if (typeof name !== 'string') throw new SeedError('namespaces must be a list of names');
    ensureNamespace(world, name);
  }
  for (const raw of list(seed, 'storageClasses')) {
    if (!isObject(raw) || typeof raw.name !== 'string') throw new SeedError('each storageClass needs a name');
    if (raw.volumeBindingMode !== undefined && raw.volumeBindingMode !== 'Immediate' && raw.volumeBindingMode !== 'WaitForFirstConsumer') {
      throw new SeedError(`storageClasses[${raw.name}].volumeBindingMode must be Immediate or WaitForFirstConsumer`);
    }
    world.drivers.set(raw.name, driverProfile(raw.name, raw.driver));
    world.store.create(storageClassType, {
      apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass',
      metadata: { name: raw.name, ...(raw.default === true ? { annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } } : {}) },
      provisioner: world.drivers.get(raw.name)?.name, allowVolumeExpansion: raw.allowVolumeExpansion === true,
      reclaimPolicy: 'Delete', volumeBindingMode: raw.volumeBindingMode === 'WaitForFirstConsumer' ? 'WaitForFirstConsumer' : 'Immediate',
    });
  }
  seedVolumeAttributesClasses(world, seed, warnings);
  for (const raw of list(seed, 'resourceQuotas')) {
    if (!isObject(raw) || typeof raw.name !== 'string' || typeof raw.namespace !== 'string' || !isObject(raw.hard)) {
      throw new SeedError('each resourceQuota needs name, namespace and hard');
    }
    ensureNamespace(world, raw.namespace);
    const quota: KubeObject = { apiVersion: 'v1', kind: 'ResourceQuota', metadata: { name: raw.name, namespace: raw.namespace }, spec: { hard: raw.hard } };
    decodeSeeded(quotaType, quota);
    world.store.create(quotaType, quota);
  }
  for (const raw of list(seed, 'statefulSets')) {
    if (!isObject(raw) || raw.kind !== 'StatefulSet' || !isObject(raw.metadata) || typeof raw.metadata.name !== 'string') {
      throw new SeedError('statefulSets must be apps/v1 StatefulSet manifests');
    }
    const object = structuredClone(raw) as unknown as KubeObject;
    // A field no version knows is a mistake in the seed; one newer than this server is dropped, as the server drops it.
    const unknown = dropUnknownFields(statefulSetType, structuredClone(object), newerFields);
    if (unknown.length > 0) throw new SeedError(`statefulSets[${raw.metadata.name}]: unknown field ${unknown.map((f) => `"${f}"`).join(', ')}`);
    for (const field of dropUnknownFields(statefulSetType, object, newerFields, world.server.unknownFields)) {
      warnings.push(`statefulSets[${raw.metadata.name}]: unknown field "${field}" dropped (${world.server.gitVersion} does not know it)`);
    }
    object.metadata.namespace ??= 'default';
    ensureNamespace(world, object.metadata.namespace);
    decodeSeeded(statefulSetType, object);
    applyDefaults(statefulSetType, object, world.store, world.server);
    world.store.create(statefulSetType, object);
  }
  settle(world);
  return warnings;
}

/** `kubelet: { nodeName, syncFrequencySeconds }`: the node's kubelet (controllers/world.ts KubeletProfile). */
function seedKubelet(world: World, raw: unknown): void {
  if (raw === undefined) return;
  if (!isObject(raw)) throw new SeedError('kubelet must be a map with nodeName and syncFrequencySeconds');
  if (raw.nodeName !== undefined) {
    if (typeof raw.nodeName !== 'string' || raw.nodeName === '') throw new SeedError('kubelet.nodeName must be a node name');
    world.kubelet.nodeName = raw.nodeName;
  }
  if (raw.syncFrequencySeconds !== undefined) {
    if (typeof raw.syncFrequencySeconds !== 'number' || !(raw.syncFrequencySeconds >= 0)) throw new SeedError('kubelet.syncFrequencySeconds must be a number of seconds, 0 or more');
    world.kubelet.syncFrequencyMs = raw.syncFrequencySeconds * 1000;
  }
}

/** A seeded object is stored as the server would store it: quantities canonical, bad values refused. */
function decodeSeeded(type: ResourceType, object: KubeObject): void {
  try {
    decodeObject(type, object);
  } catch (error) {
    if (error instanceof DecodeError) throw new SeedError(`${type.kind} ${object.metadata.name}: ${error.message}`);
    throw error;
  }
}

/** Runs the controllers until every set has its pods Running and Ready and every PVC is Bound. */
export function settle(world: World, maxTicks = 200): void {
  for (let tick = 0; tick < maxTicks; tick++) {
    runControllers(world);
    const podsByOwner = new Map<string, { pods: number; ready: number }>();
    for (const pod of world.store.peekList(podType)) {
      for (const ref of pod.metadata.ownerReferences ?? []) {
        const owned = podsByOwner.get(ref.uid) ?? { pods: 0, ready: 0 };
        owned.pods += 1;
        if (isRunningAndReady(pod)) owned.ready += 1;
        podsByOwner.set(ref.uid, owned);
      }
    }
    const done = world.store.peekList(statefulSetType).every((sts) => {
      const replicas = Number(sts.spec?.replicas ?? 1);
      const owned = podsByOwner.get(sts.metadata.uid ?? '');
      return owned !== undefined ? owned.pods === replicas && owned.ready === replicas : replicas === 0;
    }) && world.store.peekList(pvcType).every((p) => p.status?.phase === 'Bound');
    if (done) {
      runControllers(world); // one more round so every status reflects the settled world
      return;
    }
  }
  throw new SeedError(`the seeded world did not settle within ${maxTicks} ticks`);
}
