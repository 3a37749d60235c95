// What the hostile manifest cases are read and planned against: a good StatefulSet in its own file (db/good, growing
// 10Gi -> 20Gi, which every case must leave planned), the live cluster as plain data (db/good and db/pg at 10Gi), and
// a manifest builder whose every part a case can replace with something hostile.
import { readDesiredState } from '../../functions/domain/manifests.ts';
import type { DesiredState } from '../../functions/domain/desired-state.ts';
import { planTarget, type StatefulSetPlan } from '../../functions/engine/plan/plan.ts';
import { liveSet, livePvc, runningPod, snapshot } from '../engine/builders.ts';
import { statefulSetManifest, type ManifestParts } from '../support/statefulset-manifest.ts';

export type { ManifestParts };

export const allowedNamespaces = ['db'];
export const globs = ['k8s/**/*.yaml', 'k8s/**/*.yml'];

/** A StatefulSet manifest (labelled with its name unless a case says otherwise); each part is YAML text. */
export function statefulSet(parts: ManifestParts = {}): string {
  return statefulSetManifest({ labels: `{ app: ${parts.name ?? 'pg'} }`, ...parts });
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
  // The corpus is about how sizes are spelled, not how far they grow: the growth guardrail (tested on its own in
  // test/engine/guardrails.test.ts) is opened wide so that 1.5Ti or 2e11 from 10Gi still plans as a resize.
  return { state, plans: planTarget(state.statefulSets, live, { allowedNamespaces, guardrails: { maxGrowthFactor: 1_000 } }) };
}
