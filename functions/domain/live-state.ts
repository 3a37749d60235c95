// Plain-data view of the cluster the engine plans against. The Kubernetes adapter maps raw API objects to these
// types in one place; nothing here knows about HTTP or client-node.
import type { Quantity } from './quantity.ts';
import type { PodManagementPolicy } from './desired-state.ts';
import type { ServerVersion } from './server-capabilities.ts';

/** JSON as the API server returns it (used only where an object must be re-sent whole, e.g. recreation). */
export type JsonObject = { [key: string]: unknown };

export interface LiveTemplate {
  name: string;
  storageClassName: string | undefined;
  storage: Quantity | undefined;
  /** `spec.volumeAttributesClassName` (KEP-3751), compared apart from the rest like the size. */
  volumeAttributesClassName?: string | undefined;
  /** The template as the server returns it, minus `spec.resources.requests.storage`. */
  templateWithoutStorage: JsonObject;
}

export interface LiveStatefulSet {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  generation: number;
  replicas: number;
  podManagementPolicy: PodManagementPolicy;
  /** `status.updateRevision`: pods carrying another `controller-revision-hash` are not at the current revision. */
  updateRevision: string | undefined;
  templates: LiveTemplate[];
  annotations: Record<string, string>;
  deleting: boolean;
  /** The ownerReference with `controller: true`, when another object (an operator's resource) controls the set. */
  controllerOwner?: ControllerOwner;
  /** The whole object as read, for recreation from the LIVE object. */
  raw: JsonObject;
}

export interface ControllerOwner {
  apiVersion: string;
  kind: string;
  name: string;
  uid: string;
}

export interface PvcCondition {
  type: string;
  status: string;
  reason: string | undefined;
  message: string | undefined;
  lastTransitionTime: string | undefined;
}

export interface LivePvc {
  namespace: string;
  name: string;
  uid: string;
  resourceVersion: string;
  phase: string | undefined;
  storageClassName: string | undefined;
  request: Quantity | undefined;
  capacity: Quantity | undefined;
  allocated: Quantity | undefined;
  /** `status.allocatedResourceStatuses.storage` (ControllerResizeInProgress, NodeResizePending, ...). */
  resizeStatus: string | undefined;
  conditions: PvcCondition[];
  deleting: boolean;
  /** Only the first replica's PVC of a set an operator writes carries one of ours (engine/run-pass.ts). */
  annotations?: Record<string, string>;
  /** `spec.volumeAttributesClassName`: the class asked for (KEP-3751). */
  volumeAttributesClassName?: string | undefined;
  /** `status.currentVolumeAttributesClassName`: the class the volume has. */
  currentVolumeAttributesClassName?: string | undefined;
  /** `status.modifyVolumeStatus`: a modification under way (`Pending`, `InProgress`) or refused (`Infeasible`). */
  modifyVolumeStatus?: ModifyVolumeStatus | undefined;
}

const terminalResizeStatuses = new Set(['ControllerResizeInfeasible', 'NodeResizeInfeasible', 'ControllerResizeFailed', 'NodeResizeFailed']);

/** `allocatedResourceStatuses.storage` of an expansion that failed for good (`*Infeasible`, or the pre-1.31 `*Failed`). */
export function isTerminalResizeStatus(status: string | undefined): boolean {
  return status !== undefined && terminalResizeStatuses.has(status);
}

/** What a claim's expansion is read from: its resize status and conditions. */
export interface ResizeReading {
  resizeStatus: string | undefined;
  conditions: readonly PvcCondition[];
}

/** The gRPC codes the kubelet (pkg/volume/csi isInfeasibleError) and the external-resizer take as infeasible. */
const infeasibleCode = /\bcode = (?:InvalidArgument|OutOfRange|NotFound)\b/;

/**
 * Whether the node refused the expansion as infeasible though the status says the node step is pending or running
 * again. The kubelet marks NodeResizeInfeasible with a NodeResizeError condition (MarkNodeExpansionInfeasible); the
 * external-resizer v2 hands such a claim back at once as NodeResizePending for another try (its "case 3"), keeping
 * the condition, and the kubelet keeps it as first written (same status) while it tries again, NodeResizeInProgress,
 * and is refused the same way: the claim cycles through the three statuses, so each must read as the same failure.
 * NodeResizePending with a NodeResizeError comes only from that hand-back; NodeResizeInProgress with one is this cycle
 * when the error names an infeasible code, else a retried failure (a passing error: the status stays InProgress).
 */
export function refusedOnNode(pvc: ResizeReading): boolean {
  if (pvc.resizeStatus !== 'NodeResizePending' && pvc.resizeStatus !== 'NodeResizeInProgress') return false;
  const error = pvc.conditions.find((c) => c.type === 'NodeResizeError' && c.status === 'True');
  if (!error) return false;
  return pvc.resizeStatus === 'NodeResizePending' || infeasibleCode.test(error.message ?? '');
}

/** An expansion that failed for good: a terminal status, or the node's refusal in any status of its retry cycle. */
export function expansionFailedForGood(pvc: ResizeReading): boolean {
  return isTerminalResizeStatus(pvc.resizeStatus) || refusedOnNode(pvc);
}

export interface ModifyVolumeStatus {
  status: string;
  targetVolumeAttributesClassName: string | undefined;
}

/** A VolumeAttributesClass (`storage.k8s.io/v1`, KEP-3751): performance parameters of one CSI driver. */
export interface LiveVolumeAttributesClass {
  name: string;
  driverName: string;
  parameters: Record<string, string>;
  deleting: boolean;
}

export interface LivePod {
  namespace: string;
  name: string;
  phase: string | undefined;
  deleting: boolean;
  /** The `controller-revision-hash` label. */
  revision: string | undefined;
  /** `spec.nodeName`: the node whose kubelet runs it, once scheduled. */
  node?: string;
}

export interface LiveQuota {
  namespace: string;
  name: string;
  /** `spec.hard`, keyed as in the object (`requests.storage`, `<class>.storageclass.storage.k8s.io/requests.storage`). */
  hard: Record<string, Quantity>;
  /** `scopeSelector` `VolumeAttributesClass In [...]` (KEP-3751): the quota counts only claims of these classes. */
  volumeAttributesClasses?: string[];
  /** Changes with `status.used` too: a dry-run answer is only reused while it is unchanged. */
  resourceVersion?: string;
}

export interface LiveStorageClass {
  name: string;
  allowVolumeExpansion: boolean;
  isDefault: boolean;
  /** The CSI driver that provisions its volumes (a VolumeAttributesClass must name the same driver). */
  provisioner?: string;
  resourceVersion?: string;
}

/** The crash-safe recreation intent persisted before an orphan delete (see engine/records/recreate-statefulset.ts). */
export interface RecreationRecord {
  /** The StatefulSet's namespace. */
  namespace: string;
  /** Where the ConfigMap is: the target's Lease namespace, or (`legacy`) the StatefulSet's own, as older versions wrote it. */
  recordNamespace: string;
  /** The ConfigMap's name. */
  recordName: string;
  /** The target that wrote it; undefined for a legacy record. */
  ownerTarget: string | undefined;
  statefulSetName: string;
  /** UID of the StatefulSet that is being replaced. */
  oldUid: string;
  /** The object to create once the old one is gone. */
  target: JsonObject;
  /** The old object's status.updateRevision: the recreated one keeps the pod template, so its pods stay current. */
  updateRevision: string | undefined;
  /** HMAC-SHA256 (base64) over the record with the deployment's key (engine/records/authenticity.ts); none on older ones. */
  mac?: string;
  /** When the record was sealed (ISO time, covered by the MAC): an old one is refused, so a copy cannot be replayed later. */
  sealedAt?: string;
  /** The ConfigMap's uid (the Warning Event about a refused record points at it). */
  recordUid?: string;
  /** Why the ConfigMap could not be read as a record (a damaged or foreign one): it is reported, never acted on. */
  unreadable?: string;
}

export interface PvcEvent {
  namespace: string;
  pvcName: string;
  reason: string;
  message: string;
  type: string;
  lastTimestamp: string | undefined;
  /** When it was first recorded: a recorder counts repeats of the same reason and message on one Event. */
  firstTimestamp?: string | undefined;
  count: number;
}

export interface NamespaceSnapshot {
  namespace: string;
  statefulSets: LiveStatefulSet[];
  pvcs: LivePvc[];
  pods: LivePod[];
  quotas: LiveQuota[];
}

export interface ClusterSnapshot {
  namespaces: Map<string, NamespaceSnapshot>;
  storageClasses: LiveStorageClass[];
  /** The API server's `/version`, read once per snapshot (undefined in tests that do not care). */
  server?: ServerVersion;
  /** Read only when a template's class changes; undefined when not read or not served by this server. */
  volumeAttributesClasses?: LiveVolumeAttributesClass[];
}
