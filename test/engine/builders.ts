// Builders for engine test data: plain objects with sensible defaults, overridden per case.
import type { DesiredStatefulSet, DesiredTemplate } from '../../functions/domain/desired-state.ts';
import type {
  ClusterSnapshot, LivePod, LivePvc, LiveQuota, LiveStatefulSet, LiveStorageClass, NamespaceSnapshot,
} from '../../functions/domain/live-state.ts';
import { parseQuantity } from '../../functions/domain/quantity.ts';
import type { TemplatePlan } from '../../functions/engine/plan/plan-types.ts';

export const q = parseQuantity;

export function desiredTemplate(overrides: Partial<DesiredTemplate> & { size?: string } = {}): DesiredTemplate {
  const { size = '20Gi', ...rest } = overrides;
  const name = rest.name ?? 'data';
  return {
    name,
    storageClassName: 'standard',
    storage: q(size),
    storageText: size,
    storageLocation: { path: 'k8s/db/pg.yaml', line: 30, column: 22 },
    storageRange: [0, 0],
    templateWithoutStorage: {
      metadata: { name },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: rest.storageClassName ?? 'standard', resources: { requests: {} } },
    },
    ...rest,
  };
}

export function desiredSet(overrides: Partial<DesiredStatefulSet> = {}): DesiredStatefulSet {
  return {
    namespace: 'db', name: 'pg', replicas: 3, podManagementPolicy: 'OrderedReady',
    templates: [desiredTemplate()], location: { path: 'k8s/db/pg.yaml', line: 1, column: 1 },
    ...overrides,
  };
}

export function liveSet(overrides: Partial<LiveStatefulSet> & { size?: string; templateNames?: string[] } = {}): LiveStatefulSet {
  const { size = '10Gi', templateNames = ['data'], ...rest } = overrides;
  const name = rest.name ?? 'pg';
  const templates = templateNames.map((t) => ({
    name: t,
    storageClassName: 'standard',
    storage: q(size),
    templateWithoutStorage: {
      apiVersion: 'v1', kind: 'PersistentVolumeClaim', metadata: { name: t },
      spec: { accessModes: ['ReadWriteOnce'], storageClassName: 'standard', volumeMode: 'Filesystem', resources: { requests: {} } },
      status: { phase: 'Pending' },
    },
  }));
  return {
    namespace: 'db', name, uid: 'uid-1', resourceVersion: '100', generation: 1, replicas: 3,
    podManagementPolicy: 'OrderedReady', updateRevision: `${name}-rev1`, templates, annotations: {}, deleting: false,
    raw: { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace: 'db' }, spec: {} },
    ...rest,
  };
}

export function livePvc(name: string, overrides: Partial<Omit<LivePvc, 'request' | 'capacity' | 'allocated'>> & { request?: string; capacity?: string; allocated?: string } = {}): LivePvc {
  const { request = '10Gi', capacity = request, allocated, ...rest } = overrides;
  return {
    namespace: 'db', name, uid: `uid-${name}`, resourceVersion: '7', phase: 'Bound', storageClassName: 'standard',
    request: q(request), capacity: q(capacity), allocated: allocated === undefined ? undefined : q(allocated),
    resizeStatus: undefined, conditions: [], deleting: false,
    ...rest,
  };
}

export function runningPod(name: string, revision = 'pg-rev1', overrides: Partial<LivePod> = {}): LivePod {
  return { namespace: 'db', name, phase: 'Running', deleting: false, revision, ...overrides };
}

export function storageClasses(): LiveStorageClass[] {
  return [
    { name: 'standard', allowVolumeExpansion: true, isDefault: true },
    { name: 'fixed', allowVolumeExpansion: false, isDefault: false },
  ];
}

export function snapshot(namespaces: Array<Partial<NamespaceSnapshot> & { namespace: string }>, classes = storageClasses()): ClusterSnapshot {
  return {
    storageClasses: classes,
    namespaces: new Map(namespaces.map((n) => [n.namespace, {
      statefulSets: [], pvcs: [], pods: [], quotas: [], recreationRecords: [], ...n,
    }])),
  };
}

export function quota(name: string, hard: Record<string, string>, namespace = 'db'): LiveQuota {
  return { namespace, name, hard: Object.fromEntries(Object.entries(hard).map(([k, v]) => [k, q(v)])) };
}

/** Three replicas of db/pg with `data` PVCs at 10Gi. */
export function pgWorld(pvcOverrides: Record<number, Parameters<typeof livePvc>[1]> = {}, setOverrides: Parameters<typeof liveSet>[0] = {}): ClusterSnapshot {
  const sts = liveSet(setOverrides);
  const pvcs = [0, 1, 2].map((i) => livePvc(`data-pg-${i}`, pvcOverrides[i] ?? {}));
  const pods = [0, 1, 2].map((i) => runningPod(`pg-${i}`));
  return snapshot([{ namespace: 'db', statefulSets: [sts], pvcs, pods }]);
}

/** A template's plan as planTarget leaves it for a set whose live template already asks for Git's size (and class). */
export function templatePlan(pvcs: LivePvc[], overrides: Partial<TemplatePlan> & { size?: string; className?: string } = {}): TemplatePlan {
  const { size = '20Gi', className, ...rest } = overrides;
  return {
    templateName: 'data', desired: desiredTemplate({ size, ...(className !== undefined ? { volumeAttributesClassName: className } : {}) }), live: undefined,
    action: 'unchanged', from: q(size), to: q(size), storageClassName: 'standard', storageClassExpandable: true, templateNeedsUpdate: false,
    pvcsToPatch: [], ...(className !== undefined ? { volumeAttributesClassName: className } : {}), pvcs, quotaChecks: [], reasons: [],
    ...rest,
  };
}
