// Whether each size source names a StatefulSet and a volumeClaimTemplate the cluster has (pure). A mapping to a set
// the chart does not render (`...-server` for `...-server-single`), or to a template the set lacks, would be blocked
// by every plan; check says so first, with the name it probably meant. The sentences are the plan's
// (engine/desired/size-source-mistakes.ts).
import type { ClusterSnapshot } from '../domain/live-state.ts';
import { mappedValuesOf, type DesiredInput } from '../engine/desired/desired-input.ts';
import { isNamespaceAllowed, type NamespaceScope } from '../engine/plan/allowed-namespaces.ts';
import { missingStatefulSet, missingTemplate, type MappingMistake } from '../engine/desired/size-source-mistakes.ts';
import { error, ok, type CheckResult } from './check-result.ts';
import { count } from '../domain/spelling.ts';

export function judgeSizeSourceTargets(
  desired: DesiredInput, live: ClusterSnapshot['namespaces'], scope: NamespaceScope,
): CheckResult[] {
  const results: CheckResult[] = [];
  const seen = new Set<string>();
  let checked = 0;
  for (const value of mappedValuesOf(desired)) {
    // A namespace the target may not write is source.namespaces' error; a mapping named twice is said once.
    const key = `${value.namespace}/${value.name}/${value.template}/${value.source.value ?? 'storage'}`;
    if (!isNamespaceAllowed(value.namespace, scope) || seen.has(key)) continue;
    seen.add(key);
    checked += 1;
    const namespace = live.get(value.namespace);
    const set = namespace?.statefulSets.find((s) => s.name === value.name);
    const mistake: MappingMistake | undefined = !set ? missingStatefulSet(value, namespace)
      : set.templates.some((t) => t.name === value.template) ? undefined : missingTemplate(value, set);
    if (mistake) results.push(error('cluster.size-sources', `${value.location.path}:${value.location.line}`, mistake.problem, mistake.fix));
  }
  if (results.length === 0 && checked > 0) {
    results.push(ok('cluster.size-sources', 'size sources', `every size source names a StatefulSet and a volumeClaimTemplate the cluster has (${count(checked, 'mapping')})`));
  }
  return results;
}
