// ClusterPort over @kubernetes/client-node: the only place that knows Kubernetes' wire shapes. Raw objects are mapped
// to the engine's plain types here (map-objects.ts) and every API failure becomes a ClusterError with the server's words.
import {
  AppsV1Api, CoordinationV1Api, CoreV1Api, StorageV1Api, StorageV1beta1Api, VersionApi, type KubeConfig, type V1ConfigMap,
} from '@kubernetes/client-node';
import type {
  ClusterSnapshot, JsonObject, LiveStatefulSet, LiveVolumeAttributesClass, NamespaceSnapshot, PvcEvent, RecreationRecord,
} from '../../domain/live-state.ts';
import { parseServerVersion, type ServerVersion, type VolumeAttributesClassApi } from '../../domain/server-capabilities.ts';
import { ClusterError, type ClusterPort, type InvolvedObject, type LeaseMarks, type LeaseState } from '../../engine/ports.ts';
import { claimsToBeRecordOf } from '../../engine/records/names.ts';
import { mapWithConcurrency } from '../../engine/concurrency.ts';
import { pooledKubeConfig } from './pooled-kube-config.ts';
import { call, listPageSize, listPages, listWire, mergePatch, readVersionInfo, wireJson } from './api-calls.ts';
import { KubeLeases } from './kube-leases.ts';
import { printable } from '../../domain/printable.ts';
import {
  recordLabel, recordNamespaceLabel, recordTargetLabel, toLivePod, toLivePvc, toLiveQuota, toLiveStatefulSet,
  toLiveStorageClass, toLiveVolumeAttributesClass, toPvcEvent, toRecreationRecord,
} from './map-objects.ts';

const fieldManager = 'sts-volume-gitops';

export class KubeCluster implements ClusterPort {
  private readonly core: CoreV1Api;
  private readonly apps: AppsV1Api;
  private readonly storage: StorageV1Api;
  private readonly storageBeta: StorageV1beta1Api;
  private readonly version: VersionApi;
  private readonly leases: KubeLeases;
  /** The API server's URL, for errors that name it. */
  private readonly server: string;

  constructor(config: KubeConfig, private readonly concurrency = 4, private readonly pageSize = listPageSize) {
    this.server = config.getCurrentCluster()?.server ?? 'the cluster';
    const pooled = pooledKubeConfig(config);
    this.core = pooled.makeApiClient(CoreV1Api);
    this.apps = pooled.makeApiClient(AppsV1Api);
    this.storage = pooled.makeApiClient(StorageV1Api);
    this.storageBeta = pooled.makeApiClient(StorageV1beta1Api);
    this.version = pooled.makeApiClient(VersionApi);
    this.leases = new KubeLeases(pooled.makeApiClient(CoordinationV1Api));
  }

  async readSnapshot(namespaces: readonly string[]): Promise<ClusterSnapshot> {
    const version = this.readServerVersion();
    const [server, storageClasses, perNamespace] = await Promise.all([
      version,
      this.list((page, options) => this.storage.listStorageClass(page, options), toLiveStorageClass),
      mapWithConcurrency(namespaces, this.concurrency, (namespace) => this.readNamespace(namespace)),
    ]).catch(async (error: unknown) => {
      // A failed /version says what is wrong with the server itself (not Kubernetes, credentials refused): it comes first.
      await version;
      throw error;
    });
    return {
      server,
      storageClasses,
      namespaces: new Map(perNamespace.map((n) => [n.namespace, n])),
    };
  }

  /** `GET /version`: open to every authenticated user (system:public-info-viewer), so it needs no grant. */
  private async readServerVersion(): Promise<ServerVersion> {
    return parseServerVersion(await readVersionInfo(this.version, this.server));
  }

  async listVolumeAttributesClasses(api: Exclude<VolumeAttributesClassApi, 'none'>): Promise<LiveVolumeAttributesClass[] | undefined> {
    try {
      return await this.list((page, options) => (api === 'storage.k8s.io/v1'
        ? this.storage.listVolumeAttributesClass(page, options)
        : this.storageBeta.listVolumeAttributesClass(page, options)), toLiveVolumeAttributesClass);
    } catch (error) {
      // A 1.31-1.33 server whose storage.k8s.io/v1beta1 is off (the default) does not serve the resource.
      if (error instanceof ClusterError && error.status === 404) return undefined;
      throw error;
    }
  }

  private async readNamespace(namespace: string): Promise<NamespaceSnapshot> {
    const [statefulSets, pvcs, pods, quotas] = await Promise.all([
      this.list((page, options) => this.apps.listNamespacedStatefulSet({ namespace, ...page }, options), toLiveStatefulSet),
      this.list((page, options) => this.core.listNamespacedPersistentVolumeClaim({ namespace, ...page }, options), toLivePvc),
      this.list((page, options) => this.core.listNamespacedPod({ namespace, ...page }, options), toLivePod),
      this.list((page, options) => this.core.listNamespacedResourceQuota({ namespace, ...page }, options), toLiveQuota),
    ]);
    return { namespace, statefulSets, pvcs, pods, quotas };
  }

  /** A list of the snapshot, mapped from the server's JSON page by page (client-node builds no typed copy). */
  private list<T>(readPage: Parameters<typeof listWire>[1], map: (json: JsonObject) => T): Promise<T[]> {
    return listWire(this.pageSize, readPage, map);
  }

  listRecreationRecords(namespace: string, target: string): Promise<RecreationRecord[]> {
    // No label selector: a ConfigMap named like a record of ours but planted without the label is found too.
    return this.listRecords(namespace, undefined, (metadata) => claimsToBeRecordOf(target, {
      name: metadata?.name ?? '', isRecord: metadata?.labels?.[recordLabel] !== undefined, target: metadata?.labels?.[recordTargetLabel],
    }));
  }

  async listLegacyRecreationRecords(namespace: string): Promise<RecreationRecord[]> {
    // A workload namespace may also be a Lease namespace: its targets' records there are not legacy ones.
    return (await this.listRecords(namespace, `${recordLabel}=true`)).filter((r) => r.ownerTarget === undefined);
  }

  private listRecords(
    namespace: string, labelSelector: string | undefined, keep: (metadata: V1ConfigMap['metadata']) => boolean = () => true,
  ): Promise<RecreationRecord[]> {
    return listPages(this.pageSize, async (page) => {
      const list = await call(() => this.core.listNamespacedConfigMap({ namespace, ...(labelSelector ? { labelSelector } : {}), ...page }));
      return { items: list.items.filter((item) => keep(item.metadata)).map(toRecreationRecord), next: list.metadata?._continue };
    });
  }

  async listPvcWarningEvents(namespace: string): Promise<PvcEvent[]> {
    const events = await call(() => this.core.listNamespacedEvent({
      namespace, fieldSelector: 'involvedObject.kind=PersistentVolumeClaim',
    }));
    return events.items.filter((e) => e.type === 'Warning').map(toPvcEvent).sort((a, b) => (a.lastTimestamp ?? '').localeCompare(b.lastTimestamp ?? ''));
  }

  async dryRunPvcStorage(namespace: string, name: string, storage: string, volumeAttributesClassName?: string): Promise<string | undefined> {
    try {
      await call(() => this.core.patchNamespacedPersistentVolumeClaim(
        { namespace, name, dryRun: 'All', fieldManager, body: storageBody(storage, volumeAttributesClassName) }, mergePatch));
      return undefined;
    } catch (error) {
      if (error instanceof ClusterError && !error.transient) return error.message;
      throw error;
    }
  }

  async patchPvcStorage(namespace: string, name: string, storage: string, resourceVersion: string, volumeAttributesClassName?: string): Promise<void> {
    const body = { metadata: { resourceVersion }, ...storageBody(storage, volumeAttributesClassName) };
    await call(() => this.core.patchNamespacedPersistentVolumeClaim({ namespace, name, fieldManager, body }, mergePatch));
  }

  async getStatefulSet(namespace: string, name: string): Promise<LiveStatefulSet | undefined> {
    try {
      return toLiveStatefulSet(await wireJson((options) => this.apps.readNamespacedStatefulSet({ namespace, name }, options)));
    } catch (error) {
      if (error instanceof ClusterError && error.status === 404) return undefined;
      throw error;
    }
  }

  async replaceStatefulSet(target: JsonObject, options: { dryRun: boolean }): Promise<LiveStatefulSet> {
    const { namespace, name } = nameOf(target);
    return toLiveStatefulSet(await wireJson((wire) => this.apps.replaceNamespacedStatefulSet({
      namespace, name, body: target, fieldManager, ...(options.dryRun ? { dryRun: 'All' } : {}),
    }, wire), target));
  }

  async deleteStatefulSetOrphan(namespace: string, name: string, uid: string, resourceVersion: string): Promise<void> {
    await call(() => this.apps.deleteNamespacedStatefulSet({
      namespace, name, body: { propagationPolicy: 'Orphan', preconditions: { uid, resourceVersion } },
    }));
  }

  async createStatefulSet(target: JsonObject): Promise<LiveStatefulSet> {
    const { namespace } = nameOf(target);
    return toLiveStatefulSet(await wireJson((wire) => this.apps.createNamespacedStatefulSet({ namespace, body: target, fieldManager }, wire), target));
  }

  async saveRecreationRecord(record: RecreationRecord, options: { replace: boolean }): Promise<void> {
    const body = {
      metadata: {
        name: record.recordName, namespace: record.recordNamespace,
        labels: {
          [recordLabel]: 'true', 'app.kubernetes.io/managed-by': 'sts-volume-gitops',
          ...(record.ownerTarget !== undefined ? { [recordTargetLabel]: record.ownerTarget, [recordNamespaceLabel]: record.namespace } : {}),
        },
        annotations: { 'sts-volume-gitops.io/purpose': 'intent to recreate a StatefulSet with new volumeClaimTemplates; do not delete by hand while it exists' },
      },
      data: {
        namespace: record.namespace, statefulSet: record.statefulSetName, oldUid: record.oldUid, target: JSON.stringify(record.target),
        ...(record.updateRevision ? { updateRevision: record.updateRevision } : {}),
        ...(record.mac !== undefined ? { mac: record.mac } : {}),
        ...(record.sealedAt !== undefined ? { sealedAt: record.sealedAt } : {}),
      },
    };
    const namespace = record.recordNamespace;
    try {
      await call(() => this.core.createNamespacedConfigMap({ namespace, body, fieldManager }));
    } catch (error) {
      if (!(options.replace && error instanceof ClusterError && error.status === 409)) throw error;
      await call(() => this.core.replaceNamespacedConfigMap({ namespace, name: record.recordName, body, fieldManager }));
    }
  }

  async deleteRecreationRecord(recordNamespace: string, recordName: string): Promise<void> {
    try {
      await call(() => this.core.deleteNamespacedConfigMap({ namespace: recordNamespace, name: recordName }));
    } catch (error) {
      if (!(error instanceof ClusterError && error.status === 404)) throw error;
    }
  }

  async annotateStatefulSet(namespace: string, name: string, key: string, value: string | null): Promise<void> {
    await call(() => this.apps.patchNamespacedStatefulSet(
      { namespace, name, fieldManager, body: { metadata: { annotations: { [key]: value } } } }, mergePatch));
  }

  async annotatePvc(namespace: string, name: string, key: string, value: string | null): Promise<string> {
    const stored = await call(() => this.core.patchNamespacedPersistentVolumeClaim(
      { namespace, name, fieldManager, body: { metadata: { annotations: { [key]: value } } } }, mergePatch));
    return stored.metadata?.resourceVersion ?? '';
  }

  async recordEvent(object: InvolvedObject, type: 'Normal' | 'Warning', reason: string, message: string): Promise<void> {
    const timestamp = new Date();
    await call(() => this.core.createNamespacedEvent({
      namespace: object.namespace,
      body: {
        metadata: { generateName: `${object.name}.`, namespace: object.namespace },
        involvedObject: { apiVersion: object.apiVersion, kind: object.kind, name: object.name, namespace: object.namespace, uid: object.uid },
        // kubectl describe and get events print a message as it is: what it quotes from outside is written printable.
        type, reason, message: printable(message).slice(0, 1024),
        source: { component: 'sts-volume-gitops' },
        reportingComponent: 'sts-volume-gitops', reportingInstance: 'sts-volume-gitops',
        firstTimestamp: timestamp, lastTimestamp: timestamp, count: 1,
      },
    }));
  }

  readLease(namespace: string, name: string): Promise<LeaseState | undefined> {
    return this.leases.read(namespace, name);
  }

  writeLease(
    namespace: string, name: string, holder: string, durationSeconds: number, seen: LeaseState | undefined, marks?: LeaseMarks,
  ): Promise<LeaseState> {
    return this.leases.write(namespace, name, holder, durationSeconds, seen, marks);
  }

  markLeaseFree(namespace: string, name: string, seen: LeaseState | undefined, marks: LeaseMarks): Promise<void> {
    return this.leases.markFree(namespace, name, seen, marks);
  }

  rewriteOutstandingRecords(namespace: string, name: string, seen: LeaseState, outstanding: string | undefined): Promise<void> {
    return this.leases.rewriteOutstanding(namespace, name, seen, outstanding);
  }

  releaseLease(namespace: string, name: string, held: LeaseState, marks?: LeaseMarks): Promise<boolean> {
    return this.leases.release(namespace, name, held, marks);
  }
}

function storageBody(storage: string, volumeAttributesClassName: string | undefined): JsonObject {
  return { spec: { resources: { requests: { storage } }, ...(volumeAttributesClassName !== undefined ? { volumeAttributesClassName } : {}) } };
}

function nameOf(target: JsonObject): { namespace: string; name: string } {
  const metadata = (target.metadata ?? {}) as { namespace?: unknown; name?: unknown };
  if (typeof metadata.namespace !== 'string' || typeof metadata.name !== 'string') {
    throw new Error('StatefulSet object without metadata.namespace and metadata.name');
  }
  return { namespace: metadata.namespace, name: metadata.name };
}
