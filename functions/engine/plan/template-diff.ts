// "Only the storage request (and the volume attributes class) changed" check (KEP-0661 non-goal: every other template
// field stays immutable).
// Live templates carry server-filled defaults that Git never has (Argo CD #11143), so both sides are normalised first.
import type { JsonObject } from '../../domain/live-state.ts';

export interface TemplateDifference {
  /** Dotted path inside the template, e.g. `spec.accessModes`. */
  path: string;
  live: unknown;
  desired: unknown;
}

/** Fields the API server or the StatefulSet controller fill in; they say nothing about what the user asked for. */
function normaliseTemplate(template: JsonObject): JsonObject {
  const copy = structuredClone(template);
  delete copy.apiVersion;
  delete copy.kind;
  delete copy.status;
  const metadata = asObject(copy.metadata);
  if (metadata) {
    delete metadata.creationTimestamp;
    delete metadata.namespace;
  }
  const spec = asObject(copy.spec);
  if (spec && spec.volumeMode === undefined) spec.volumeMode = 'Filesystem';
  // The class may change like the size (KEP-3751, mutable on a bound PVC); the plan compares it on its own.
  if (spec) delete spec.volumeAttributesClassName;
  return pruneEmpty(copy) as JsonObject;
}

/** Differences between the live template and the Git template, both without their storage request and class. */
export function diffTemplates(live: JsonObject, desired: JsonObject): TemplateDifference[] {
  const differences: TemplateDifference[] = [];
  collectDifferences(normaliseTemplate(live), normaliseTemplate(desired), '', differences);
  return differences;
}

export function describeDifference(d: TemplateDifference): string {
  return `${d.path}: ${JSON.stringify(d.live) ?? '(absent)'} in the cluster, ${JSON.stringify(d.desired) ?? '(absent)'} in Git`;
}

function collectDifferences(live: unknown, desired: unknown, path: string, out: TemplateDifference[]): void {
  // An absent map on one side is compared as an empty one, so the difference is reported at its leaves.
  const liveObject = asObject(live) ?? (live === undefined && asObject(desired) ? {} : undefined);
  const desiredObject = asObject(desired) ?? (desired === undefined && asObject(live) ? {} : undefined);
  if (liveObject && desiredObject) {
    const keys = [...new Set([...Object.keys(liveObject), ...Object.keys(desiredObject)])].sort();
    for (const key of keys) collectDifferences(liveObject[key], desiredObject[key], path ? `${path}.${key}` : key, out);
    return;
  }
  if (JSON.stringify(live) !== JSON.stringify(desired)) out.push({ path: path || '(template)', live, desired });
}

function asObject(value: unknown): JsonObject | undefined {
  return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as JsonObject) : undefined;
}

/** Empty objects and undefined values carry no meaning in a manifest (`labels: {}` equals no labels). */
function pruneEmpty(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(pruneEmpty);
  const object = asObject(value);
  if (!object) return value;
  const result: JsonObject = {};
  for (const [key, child] of Object.entries(object)) {
    const pruned = pruneEmpty(child);
    if (pruned === undefined || pruned === null) continue;
    if (asObject(pruned) && Object.keys(pruned).length === 0) continue;
    result[key] = pruned;
  }
  return result;
}
