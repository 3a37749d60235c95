// What the hostile manifest cases are read and planned against: a good StatefulSet in its own file (db/good, growing
// 10Gi -> 20Gi, which every case must leave planned), the live cluster as plain data (db/good and db/pg at 10Gi), and
// a manifest builder whose every part a case can replace with something hostile.
import { readDesiredState } from '../../functions/domain/manifests.ts';
import type { DesiredState } from '../../functions/domain/desired-state.ts';
import { planTarget, type StatefulSetPlan } from '../../functions/engine/plan.ts';
import { liveSet, livePvc, runningPod, snapshot } from '../engine/builders.ts';

export const allowedNamespaces = ['db'];
export const globs = ['k8s/**/*.yaml', 'k8s/**/*.yml'];

export interface ManifestParts {
  name?: string;
  namespace?: string | null;
  storage?: string;
  apiVersion?: string;
  replicas?: string;
  labels?: string;
  annotations?: string;
  /** Extra lines inside the volumeClaimTemplate's metadata (indented by the builder). */
  templateMetadata?: string;
  extraTemplates?: string;
}

/** A StatefulSet manifest; each part is YAML text put where it belongs. */
export function statefulSet(parts: ManifestParts = {}): string {
  const name = parts.name ?? 'pg';
  const namespace = parts.namespace === null ? '' : `\n  namespace: ${parts.namespace ?? 'db'}`;
  return `apiVersion: ${parts.apiVersion ?? 'apps/v1'}
kind: StatefulSet
metadata:
  name: ${name}${namespace}
  labels: ${parts.labels ?? `{ app: ${name} }`}${parts.annotations === undefined ? '' : `\n  annotations: ${parts.annotations}`}
spec:
  serviceName: ${name}
  replicas: ${parts.replicas ?? '2'}
  selector:
    matchLabels: { app: ${name} }
  template:
    metadata:
      labels: { app: ${name} }
    spec:
      containers: [{ name: main, image: "busybox:1.36" }]
  volumeClaimTemplates:
    - metadata:
        name: data${parts.templateMetadata === undefined ? '' : `\n        ${parts.templateMetadata}`}
      spec:
        accessModes: [ReadWriteOnce]
        storageClassName: standard
        resources:
          requests:
            storage: ${parts.storage ?? '20Gi'}
${parts.extraTemplates ?? ''}`;
}

export const goodFile = { 'k8s/good.yaml': statefulSet({ name: 'good', storage: '20Gi' }) };

const live = snapshot([{
  namespace: 'db',
  statefulSets: [
    liveSet({ name: 'good', replicas: 2, updateRevision: 'good-rev1' }),
    liveSet({ name: 'pg', replicas: 2, updateRevision: 'pg-rev1' }),
  ],
  pvcs: ['good', 'pg'].flatMap((name) => [0, 1].map((i) => livePvc(`data-${name}-${i}`))),
  pods: ['good', 'pg'].flatMap((name) => [0, 1].map((i) => runningPod(`${name}-${i}`, `${name}-rev1`))),
}]);

/** Git blobs become text the way the GitHub source decodes them (UTF-8, invalid bytes replaced). */
export function asText(content: string | Buffer): string {
  return typeof content === 'string' ? content : content.toString('utf8');
}

export function readAndPlan(files: Record<string, string | Buffer>): { state: DesiredState; plans: StatefulSetPlan[] } {
  const texts = new Map(Object.entries({ ...goodFile, ...files }).map(([path, content]) => [path, asText(content)]));
  const state = readDesiredState(texts, { globs, defaultNamespace: 'db' });
  return { state, plans: planTarget(state.statefulSets, live, { allowedNamespaces }) };
}
