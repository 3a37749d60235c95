// Server-side printing: `kubectl get` asks for `application/json;as=Table;g=meta.k8s.io;v=v1` and prints the columns
// the server chooses. A real server has a printer per built-in kind; these are the same columns for the kinds this
// project watches (PVC CAPACITY is how a resize shows up in `kubectl get pvc -w`, an Event's REASON and MESSAGE in
// `kubectl get events`), and Name/Age for the rest.
import type { KubeObject, ResourceType } from './store.ts';

interface Column {
  name: string;
  type: 'string' | 'integer' | 'date';
  format?: string;
  description: string;
  priority?: number;
  cell: (object: KubeObject, now: Date) => string | number;
}

type Json = Record<string, unknown>;

const field = (object: KubeObject, path: string): unknown =>
  path.split('.').reduce<unknown>((node, key) => (typeof node === 'object' && node !== null ? (node as Json)[key] : undefined), object);
const text = (value: unknown): string => (typeof value === 'string' || typeof value === 'number' ? String(value) : '');

/** Kubernetes' HumanDuration: 45s, 3m20s, 42m, 5h10m, 30h, 3d4h, 120d, 3y. */
export function humanAge(from: string | undefined, now: Date): string {
  if (!from) return '<unknown>';
  const seconds = Math.max(0, Math.floor((now.getTime() - new Date(from).getTime()) / 1000));
  const minutes = Math.floor(seconds / 60);
  const hours = Math.floor(minutes / 60);
  const days = Math.floor(hours / 24);
  if (seconds < 120) return `${seconds}s`;
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 192) return hours % 24 === 0 ? `${days}d` : `${days}d${hours % 24}h`;
  if (days < 730) return `${days}d`;
  return `${Math.floor(days / 365)}y`;
}

const accessModeShort: Record<string, string> = { ReadWriteOnce: 'RWO', ReadOnlyMany: 'ROX', ReadWriteMany: 'RWX', ReadWriteOncePod: 'RWOP' };
const accessModes = (path: string) => (o: KubeObject): string => {
  const modes = field(o, path);
  return Array.isArray(modes) ? modes.map((m) => accessModeShort[String(m)] ?? String(m)).join(',') : '';
};

const name: Column = { name: 'Name', type: 'string', format: 'name', description: 'Name must be unique within a namespace.', cell: (o) => o.metadata.name };
const age: Column = { name: 'Age', type: 'string', description: 'CreationTimestamp is a timestamp representing the server time when this object was created.', cell: (o, now) => humanAge(o.metadata.creationTimestamp, now) };

function column(title: string, description: string, cell: Column['cell'], priority = 0): Column {
  return { name: title, type: 'string', description, priority, cell };
}

/**
 * Events as kube-apiserver's printer shows them (pkg/printers/internalversion printEvent, always wide on the server):
 * LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, and SUBOBJECT, SOURCE, FIRST SEEN, COUNT, NAME for `-o wide`. An
 * events.k8s.io/v1 Event is read through its core/v1 fields (regarding, note, deprecated*), as the server converts it.
 */
const eventColumns: Column[] = [
  column('Last Seen', 'Time when this Event was last observed.', (o, now) => eventTimes(o, now).last),
  column('Type', 'Type of this event (Normal, Warning), new types could be added in the future', (o) => text(o.type)),
  column('Reason', 'The reason for the transition into the object\'s current status.', (o) => text(o.reason)),
  column('Object', 'The object that this event is about.', (o) => {
    const kind = text(field(o, `${eventFields(o).involvedObject}.kind`)).toLowerCase();
    const objectName = text(field(o, `${eventFields(o).involvedObject}.name`));
    return objectName ? `${kind}/${objectName}` : kind;
  }),
  column('Subobject', 'The field of the object the event is about (a container of a pod).', (o) => text(field(o, `${eventFields(o).involvedObject}.fieldPath`)), 1),
  column('Source', 'The component reporting this event.', (o) => {
    const f = eventFields(o);
    const component = text(field(o, `${f.source}.component`)) || text(o[f.reportingController]);
    const host = text(field(o, `${f.source}.host`)) || text(o.reportingInstance);
    return host ? `${component}, ${host}` : component;
  }, 1),
  column('Message', 'A human-readable description of the status of this operation.', (o) => text(o[eventFields(o).message]).trim()),
  column('First Seen', 'The time at which the event was first recorded.', (o, now) => eventTimes(o, now).first, 1),
  column('Count', 'The number of times this event has occurred.', (o, now) => eventTimes(o, now).count, 1),
  { ...name, priority: 1 },
];

/** Where each printed field lives in a core/v1 Event and in an events.k8s.io/v1 one. */
function eventFields(o: KubeObject): { involvedObject: string; message: string; source: string; reportingController: string; first: string; last: string; count: string } {
  return o.apiVersion === 'events.k8s.io/v1'
    ? { involvedObject: 'regarding', message: 'note', source: 'deprecatedSource', reportingController: 'reportingController', first: 'deprecatedFirstTimestamp', last: 'deprecatedLastTimestamp', count: 'deprecatedCount' }
    : { involvedObject: 'involvedObject', message: 'message', source: 'source', reportingController: 'reportingComponent', first: 'firstTimestamp', last: 'lastTimestamp', count: 'count' };
}

/** printEvent's times and count: first from firstTimestamp or eventTime; last from lastTimestamp, the series, or first. */
function eventTimes(o: KubeObject, now: Date): { first: string; last: string; count: number } {
  const f = eventFields(o);
  const firstAt = text(o[f.first]) || text(o.eventTime);
  const first = humanAge(firstAt || undefined, now);
  const seriesAt = text(field(o, 'series.lastObservedTime'));
  const seriesCount = field(o, 'series.count');
  if (seriesAt) return { first, last: humanAge(seriesAt, now), count: typeof seriesCount === 'number' ? seriesCount : 0 };
  const lastAt = text(o[f.last]);
  const count = o[f.count];
  // Singleton events have no count in the new API: printed as 1.
  return { first, last: lastAt ? humanAge(lastAt, now) : first, count: typeof count === 'number' && count !== 0 ? count : 1 };
}

const columnsByKind: Record<string, Column[]> = {
  PersistentVolumeClaim: [
    name,
    column('Status', 'The phase of the claim.', (o) => text(field(o, 'status.phase'))),
    column('Volume', 'The PersistentVolume bound to the claim.', (o) => text(field(o, 'spec.volumeName'))),
    column('Capacity', 'The actual size of the volume.', (o) => text(field(o, 'status.capacity.storage'))),
    column('Access Modes', 'The access modes of the volume.', accessModes('status.accessModes')),
    column('StorageClass', 'The StorageClass of the claim.', (o) => text(field(o, 'spec.storageClassName'))),
    column('VolumeAttributesClass', 'The VolumeAttributesClass of the claim.', (o) => text(field(o, 'spec.volumeAttributesClassName')) || '<unset>'),
    age,
    column('VolumeMode', 'How the volume is consumed.', (o) => text(field(o, 'spec.volumeMode')), 1),
  ],
  PersistentVolume: [
    name,
    column('Capacity', 'The size of the volume.', (o) => text(field(o, 'spec.capacity.storage'))),
    column('Access Modes', 'The access modes of the volume.', accessModes('spec.accessModes')),
    column('Reclaim Policy', 'What happens when the claim is released.', (o) => text(field(o, 'spec.persistentVolumeReclaimPolicy'))),
    column('Status', 'The phase of the volume.', (o) => text(field(o, 'status.phase'))),
    column('Claim', 'The claim bound to the volume.', (o) => (field(o, 'spec.claimRef.name') ? `${text(field(o, 'spec.claimRef.namespace'))}/${text(field(o, 'spec.claimRef.name'))}` : '')),
    column('StorageClass', 'The StorageClass of the volume.', (o) => text(field(o, 'spec.storageClassName'))),
    column('VolumeAttributesClass', 'The VolumeAttributesClass of the volume.', (o) => text(field(o, 'spec.volumeAttributesClassName')) || '<unset>'),
    column('Reason', 'Why the volume is in its phase.', (o) => text(field(o, 'status.reason'))),
    age,
  ],
  StatefulSet: [
    name,
    column('Ready', 'Ready replicas of the desired replicas.', (o) => `${text(field(o, 'status.readyReplicas')) || '0'}/${text(field(o, 'spec.replicas')) || '1'}`),
    age,
    column('Containers', 'Names of each container in the template.', (o) => containersOf(o, 'spec.template.spec').map((c) => text(c.name)).join(','), 1),
    column('Images', 'Images referenced by each container in the template.', (o) => containersOf(o, 'spec.template.spec').map((c) => text(c.image)).join(','), 1),
  ],
  Pod: [
    name,
    column('Ready', 'Ready containers of all containers.', (o) => `${containerStatusesOf(o).filter((s) => s.ready === true).length}/${containersOf(o, 'spec').length}`),
    column('Status', 'The aggregate status of the containers in this pod.', (o) => (o.metadata.deletionTimestamp ? 'Terminating' : text(field(o, 'status.reason')) || text(field(o, 'status.phase')))),
    column('Restarts', 'The number of times the containers have been restarted.', (o) => String(containerStatusesOf(o).reduce((sum, s) => sum + (typeof s.restartCount === 'number' ? s.restartCount : 0), 0))),
    age,
    column('IP', 'IP address allocated to the pod.', (o) => text(field(o, 'status.podIP')) || '<none>', 1),
    column('Node', 'Name of the node the pod is assigned to.', (o) => text(field(o, 'spec.nodeName')) || '<none>', 1),
  ],
  StorageClass: [
    name,
    column('Provisioner', 'The volume plugin or CSI driver.', (o) => text(o.provisioner)),
    column('ReclaimPolicy', 'What happens to volumes of released claims.', (o) => text(o.reclaimPolicy) || 'Delete'),
    column('VolumeBindingMode', 'When volumes are bound.', (o) => text(o.volumeBindingMode) || 'Immediate'),
    column('AllowVolumeExpansion', 'Whether claims of this class may grow.', (o) => String(o.allowVolumeExpansion === true)),
    age,
  ],
  VolumeAttributesClass: [
    name,
    column('DriverName', 'The CSI driver the class is for.', (o) => text(o.driverName)),
    age,
  ],
  ConfigMap: [name, column('Data', 'Number of data entries.', (o) => String(Object.keys((o.data ?? {})).length + Object.keys((o.binaryData ?? {})).length)), age],
  Namespace: [name, column('Status', 'The phase of the namespace.', (o) => text(field(o, 'status.phase'))), age],
  Lease: [name, column('Holder', 'The holder of the lease.', (o) => text(field(o, 'spec.holderIdentity'))), age],
  Event: eventColumns,
};

function listAt(object: KubeObject, path: string): Json[] {
  const value = field(object, path);
  return Array.isArray(value) ? (value as Json[]) : [];
}

const containersOf = (object: KubeObject, podSpecPath: string): Json[] => listAt(object, `${podSpecPath}.containers`);
const containerStatusesOf = (pod: KubeObject): Json[] => listAt(pod, 'status.containerStatuses');

/** Whether the client asked for a Table (kubectl get does; client-node does not). */
export function wantsTable(accept: string | undefined): boolean {
  return (accept ?? '').split(',').some((part) => /;\s*as=Table/.test(part) && /;\s*g=meta\.k8s\.io/.test(part));
}

/** A meta.k8s.io/v1 Table of `objects`; `withColumns` false leaves the column definitions out (watch events after the first). */
export function toTable(type: ResourceType, objects: readonly KubeObject[], now: Date, resourceVersion: string, withColumns = true): Json {
  const columns = columnsByKind[type.kind] ?? [name, age];
  return {
    kind: 'Table', apiVersion: 'meta.k8s.io/v1', metadata: { resourceVersion },
    ...(withColumns ? { columnDefinitions: columns.map(({ cell: _cell, priority, ...definition }) => ({ ...definition, priority: priority ?? 0 })) } : {}),
    rows: objects.map((object) => ({
      cells: columns.map((c) => c.cell(object, now)),
      object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: object.metadata },
    })),
  };
}
