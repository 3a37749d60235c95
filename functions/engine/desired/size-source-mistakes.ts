// A size source that names what the cluster does not have: a StatefulSet (the chart renders another name) or a
// volumeClaimTemplate the set lacks. Both are mistakes in the mapping, never "not created yet": the value in the values
// file would never be applied. Said the same way by the plan (blocked, at the value's file:line) and by `check`. Pure.
import type { DesiredStatefulSet, DesiredTemplate, SourceLocation } from '../../domain/desired-state.ts';
import type { LiveStatefulSet, NamespaceSnapshot } from '../../domain/live-state.ts';
import { mapsClass, type SizeSource } from '../../domain/size-sources.ts';
import { closestName } from '../../domain/similar-names.ts';

export interface MappedRef {
  namespace: string;
  name: string;
  template: string;
  source: SizeSource;
  location: SourceLocation;
}

/** The mapping behind one template of a set assembled from size sources (its size's, else its class's). */
export function mappedRefOf(sts: DesiredStatefulSet, template: DesiredTemplate): MappedRef | undefined {
  const sources = (sts.sizedBy ?? []).filter((s) => s.template === template.name);
  const source = sources.find((s) => !mapsClass(s)) ?? sources[0];
  return source && { namespace: sts.namespace, name: sts.name, template: template.name, source, location: template.storageLocation };
}

/** What is wrong and what to do: `check` shows them apart, the plan as one sentence (`mistakeSentence`). */
export interface MappingMistake {
  problem: string;
  fix: string;
}

export function mistakeSentence(mistake: MappingMistake): string {
  return `${mistake.problem}; ${mistake.fix}`;
}

/** A mapping whose StatefulSet is not in the cluster (`namespace` undefined: nothing was read there). */
export function missingStatefulSet(ref: MappedRef, namespace: NamespaceSnapshot | undefined): MappingMistake {
  const names = (namespace?.statefulSets ?? []).map((s) => s.name);
  const closest = closestName(ref.name, names);
  const there = names.length === 0 ? `namespace ${ref.namespace} has no StatefulSet` : `namespace ${ref.namespace} has ${listed(names)}`;
  return {
    problem: `the ${kindOf(ref)} at ${where(ref)} names StatefulSet ${ref.namespace}/${ref.name}, which is not in the cluster (${there}): its value is never applied`,
    fix: `${closest !== undefined ? `did you mean ${ref.namespace}/${closest}? Set` : 'set'} the mapping's statefulSet to namespace/name as the chart renders it (\`kubectl get statefulsets -n ${ref.namespace}\`)`,
  };
}

/** A mapping whose template the live StatefulSet does not have. */
export function missingTemplate(ref: MappedRef, live: LiveStatefulSet): MappingMistake {
  const names = live.templates.map((t) => t.name);
  const closest = closestName(ref.template, names) ?? (names.length === 1 ? names[0] : undefined);
  return {
    problem: `the ${kindOf(ref)} at ${where(ref)} names volumeClaimTemplate ${ref.template}, which the live StatefulSet ${live.namespace}/${live.name} does not have `
      + `(it has ${names.join(', ') || 'none'}): its value is never applied`,
    fix: `${closest !== undefined ? `did you mean ${closest}? Set` : 'set'} the mapping's template to one of the set's volumeClaimTemplates`,
  };
}

function kindOf(ref: MappedRef): string {
  return `${mapsClass(ref.source) ? 'class' : 'size'} source`;
}

function where(ref: MappedRef): string {
  return `${ref.location.path}:${ref.location.line} (${ref.source.path})`;
}

function listed(names: readonly string[]): string {
  const sorted = [...names].sort();
  return sorted.length <= 5 ? sorted.join(', ') : `${sorted.slice(0, 5).join(', ')} and ${sorted.length - 5} more`;
}
