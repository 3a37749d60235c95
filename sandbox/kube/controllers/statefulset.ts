// The StatefulSet controller, as far as this project touches it: ControllerRevisions named by a hash of the pod
// template, PVCs <template>-<set>-<ordinal> before pods, OrderedReady one at a time vs Parallel, rolling replacement
// of pods at an old revision, adoption of orphaned pods (no restart when the template is unchanged), scale-down that
// leaves PVCs behind, the retention policy's claim owners where the server has it (claim-retention.ts), and status.
import { createHash } from 'node:crypto';
import { mustResourceType, type KubeObject, type OwnerReference } from '../store.ts';
import { claimOwnerReferences, referencesDiffer } from './claim-retention.ts';
import { recordEvent } from './events.ts';
import { pvcProtectionFinalizer } from './volume-protection.ts';
import type { World } from './world.ts';

const statefulSetType = mustResourceType('apps/v1', 'StatefulSet');
const revisionType = mustResourceType('apps/v1', 'ControllerRevision');
const podType = mustResourceType('v1', 'Pod');
const pvcType = mustResourceType('v1', 'PersistentVolumeClaim');
const storageClassType = mustResourceType('storage.k8s.io/v1', 'StorageClass');

type Json = Record<string, unknown>;

/** Equivalent templates hash alike: nulls, empty maps and key order do not matter (as for decoded Go structs). */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (typeof value !== 'object' || value === null) return value;
  const entries = Object.entries(value as Json)
    .map(([k, v]) => [k, canonical(v)] as const)
    .filter(([, v]) => v !== null && v !== undefined && !(typeof v === 'object' && !Array.isArray(v) && Object.keys(v as Json).length === 0))
    .sort(([a], [b]) => (a < b ? -1 : 1));
  return Object.fromEntries(entries);
}

export function revisionHash(podTemplate: unknown): string {
  return createHash('sha256').update(JSON.stringify(canonical(podTemplate))).digest('hex').slice(0, 10);
}

function ownerReference(sts: KubeObject): OwnerReference {
  return { apiVersion: 'apps/v1', kind: 'StatefulSet', name: sts.metadata.name, uid: sts.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

function controllerOf(object: KubeObject): OwnerReference | undefined {
  return object.metadata.ownerReferences?.find((r) => r.controller === true);
}

function selectorMatches(sts: KubeObject, labels: Record<string, string> | undefined): boolean {
  const matchLabels = ((sts.spec?.selector as Json | undefined)?.matchLabels ?? {}) as Record<string, string>;
  return Object.entries(matchLabels).every(([k, v]) => labels?.[k] === v);
}

function ordinalOf(sts: KubeObject, pod: KubeObject): number | undefined {
  const prefix = `${sts.metadata.name}-`;
  if (!pod.metadata.name.startsWith(prefix)) return undefined;
  const digits = pod.metadata.name.slice(prefix.length);
  return /^\d+$/.test(digits) ? Number(digits) : undefined;
}

export function isRunningAndReady(pod: KubeObject | undefined): boolean {
  if (!pod || pod.metadata.deletionTimestamp) return false;
  const conditions = (pod.status?.conditions ?? []) as Array<{ type: string; status: string }>;
  return pod.status?.phase === 'Running' && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

export function reconcileStatefulSets(world: World): void {
  for (const sts of world.store.peekList(statefulSetType)) {
    if (sts.metadata.deletionTimestamp) continue;
    reconcileOne(world, sts);
  }
}

function reconcileOne(world: World, sts: KubeObject): void {
  const { store } = world;
  const namespace = sts.metadata.namespace ?? '';
  const spec = sts.spec ?? {};
  const replicas = Number(spec.replicas ?? 1);
  const template = (spec.template ?? {}) as Json;
  const revision = `${sts.metadata.name}-${revisionHash(template)}`;
  ensureRevision(world, sts, revision, template);

  // Adopt orphans the selector matches (after an orphan delete and recreate): same pods, same revision, no restart.
  for (const pod of store.peekList(podType, namespace)) {
    if (controllerOf(pod) || !selectorMatches(sts, pod.metadata.labels) || ordinalOf(sts, pod) === undefined) continue;
    store.replace(podType, { ...pod, metadata: { ...pod.metadata, ownerReferences: [...(pod.metadata.ownerReferences ?? []), ownerReference(sts)] } });
  }

  const pods = new Map<number, KubeObject>();
  for (const pod of store.peekList(podType, namespace)) {
    if (controllerOf(pod)?.uid !== sts.metadata.uid) continue;
    const ordinal = ordinalOf(sts, pod);
    if (ordinal !== undefined) pods.set(ordinal, pod);
  }

  const parallel = spec.podManagementPolicy === 'Parallel';
  for (let ordinal = 0; ordinal < replicas; ordinal++) {
    if (!pods.has(ordinal)) {
      const predecessorsReady = [...Array(ordinal).keys()].every((i) => isRunningAndReady(pods.get(i)));
      if (!parallel && !predecessorsReady) break;
      ensurePvcs(world, sts, ordinal);
      const pod = createPod(world, sts, ordinal, revision, template);
      pods.set(ordinal, pod);
      recordEvent(world, sts, 'Normal', 'SuccessfulCreate', `create Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name} successful`, 'statefulset-controller');
      if (!parallel) break;
    }
  }

  if (world.server.retentionPolicy) updateClaimOwners(world, sts, pods, replicas);

  // Scale down: highest ordinal first, one at a time for OrderedReady; PVCs stay behind (unless the policy says).
  const surplus = [...pods.keys()].filter((o) => o >= replicas).sort((a, b) => b - a);
  for (const ordinal of parallel ? surplus : surplus.slice(0, 1)) {
    const pod = pods.get(ordinal);
    if (!pod) continue;
    store.remove(podType, namespace, pod.metadata.name);
    pods.delete(ordinal);
    recordEvent(world, sts, 'Normal', 'SuccessfulDelete', `delete Pod ${pod.metadata.name} in StatefulSet ${sts.metadata.name} successful`, 'statefulset-controller');
  }

  // RollingUpdate: replace the highest-ordinal pod at an old revision once every pod is ready.
  const allReady = [...pods.values()].every(isRunningAndReady) && pods.size === replicas;
  const outdated = [...pods.entries()].filter(([, p]) => p.metadata.labels?.['controller-revision-hash'] !== revision).sort(([a], [b]) => b - a);
  const firstOutdated = outdated[0];
  if (allReady && firstOutdated) {
    const [ordinal, pod] = firstOutdated;
    store.remove(podType, namespace, pod.metadata.name);
    pods.delete(ordinal);
  }

  const ready = [...pods.values()].filter(isRunningAndReady).length;
  const updated = [...pods.values()].filter((p) => p.metadata.labels?.['controller-revision-hash'] === revision).length;
  const status = {
    observedGeneration: sts.metadata.generation,
    replicas: pods.size,
    readyReplicas: ready,
    currentReplicas: updated,
    updatedReplicas: updated,
    availableReplicas: ready,
    currentRevision: outdated.length === 0 ? revision : (sts.status?.currentRevision ?? revision),
    updateRevision: revision,
    collisionCount: 0,
  };
  const fresh = store.peek(statefulSetType, namespace, sts.metadata.name);
  if (fresh && JSON.stringify(fresh.status) !== JSON.stringify(status)) store.replace(statefulSetType, { ...fresh, status });
}

function ensureRevision(world: World, sts: KubeObject, name: string, template: Json): void {
  const namespace = sts.metadata.namespace ?? '';
  const existing = world.store.peek(revisionType, namespace, name);
  if (!existing) {
    world.store.create(revisionType, {
      apiVersion: 'apps/v1', kind: 'ControllerRevision',
      metadata: { name, namespace, labels: { 'controller.kubernetes.io/hash': name.split('-').pop() ?? '' }, ownerReferences: [ownerReference(sts)] },
      data: { spec: { template: { ...template, $patch: 'replace' } } }, revision: 1,
    });
    return;
  }
  if (!controllerOf(existing)) {
    world.store.replace(revisionType, { ...existing, metadata: { ...existing.metadata, ownerReferences: [ownerReference(sts)] } });
  }
}

function ensurePvcs(world: World, sts: KubeObject, ordinal: number): void {
  const namespace = sts.metadata.namespace ?? '';
  const matchLabels = ((sts.spec?.selector as Json | undefined)?.matchLabels ?? {}) as Record<string, string>;
  for (const claim of (sts.spec?.volumeClaimTemplates ?? []) as Json[]) {
    const claimMetadata = (claim.metadata ?? {}) as Json;
    const name = `${String(claimMetadata.name)}-${sts.metadata.name}-${ordinal}`;
    if (world.store.peek(pvcType, namespace, name)) continue;
    const metadata = { name, namespace, labels: { ...((claimMetadata.labels ?? {}) as Record<string, string>), ...matchLabels }, finalizers: [pvcProtectionFinalizer] };
    const owners = world.server.retentionPolicy ? claimOwnerReferences({ apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata }, sts, undefined, false) : [];
    const claimSpec = structuredClone((claim.spec ?? {}) as Json);
    if (claimSpec.storageClassName === undefined) {
      const defaultClass = world.store.peekList(storageClassType).find((c) => c.metadata.annotations?.['storageclass.kubernetes.io/is-default-class'] === 'true');
      if (defaultClass) claimSpec.storageClassName = defaultClass.metadata.name;
    }
    world.store.create(pvcType, {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim',
      metadata: { ...metadata, ...(owners.length > 0 ? { ownerReferences: owners } : {}) },
      spec: claimSpec, status: { phase: 'Pending' },
    });
    recordEvent(world, sts, 'Normal', 'SuccessfulCreate', `create Claim ${name} Pod ${sts.metadata.name}-${ordinal} in StatefulSet ${sts.metadata.name} success`, 'statefulset-controller');
  }
}

/** The claims of every ordinal the set has (or should have) carry the owners its retention policy asks for. */
function updateClaimOwners(world: World, sts: KubeObject, pods: ReadonlyMap<number, KubeObject>, replicas: number): void {
  const namespace = sts.metadata.namespace ?? '';
  const ordinals = new Set([...Array(replicas).keys(), ...pods.keys()]);
  for (const ordinal of ordinals) {
    for (const claim of (sts.spec?.volumeClaimTemplates ?? []) as Json[]) {
      const existing = world.store.peek(pvcType, namespace, `${String((claim.metadata as Json | undefined)?.name)}-${sts.metadata.name}-${ordinal}`);
      if (!existing || existing.metadata.deletionTimestamp) continue;
      const owners = claimOwnerReferences(existing, sts, pods.get(ordinal), ordinal >= replicas);
      if (!referencesDiffer(existing.metadata.ownerReferences, owners)) continue;
      const metadata = { ...existing.metadata, ownerReferences: owners };
      if (owners.length === 0) delete (metadata as Partial<KubeObject['metadata']>).ownerReferences;
      world.store.replace(pvcType, { ...existing, metadata });
    }
  }
}

function createPod(world: World, sts: KubeObject, ordinal: number, revision: string, template: Json): KubeObject {
  const namespace = sts.metadata.namespace ?? '';
  const name = `${sts.metadata.name}-${ordinal}`;
  const templateMetadata = (template.metadata ?? {}) as Json;
  const podSpec = structuredClone((template.spec ?? {}) as Json);
  const volumes = ((podSpec.volumes ?? []) as Json[]).slice();
  for (const claim of (sts.spec?.volumeClaimTemplates ?? []) as Json[]) {
    const claimName = String((claim.metadata as Json | undefined)?.name);
    volumes.push({ name: claimName, persistentVolumeClaim: { claimName: `${claimName}-${name}` } });
  }
  podSpec.volumes = volumes;
  podSpec.hostname = name;
  if (sts.spec?.serviceName) podSpec.subdomain = sts.spec.serviceName;
  return world.store.create(podType, {
    apiVersion: 'v1', kind: 'Pod',
    metadata: {
      name, namespace, generateName: `${sts.metadata.name}-`,
      labels: {
        ...((templateMetadata.labels ?? {}) as Record<string, string>),
        'controller-revision-hash': revision,
        'statefulset.kubernetes.io/pod-name': name,
        'apps.kubernetes.io/pod-index': String(ordinal),
      },
      ...(templateMetadata.annotations ? { annotations: templateMetadata.annotations as Record<string, string> } : {}),
      ownerReferences: [ownerReference(sts)],
    },
    spec: podSpec,
    status: { phase: 'Pending', conditions: [{ type: 'PodScheduled', status: 'True' }] },
  });
}
