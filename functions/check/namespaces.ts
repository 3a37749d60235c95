// Whether the namespaces the target's files name are ones it may write (pure): a StatefulSet in a namespace that
// `namespaces.allow` forgot is blocked by every plan; check says so, with the two edits that fix it. One in the state
// namespace is blocked whatever `allow` says (engine/plan/allowed-namespaces.ts).
import { mappedValuesOf, type TargetDesired } from '../engine/desired/desired-input.ts';
import { isNamespaceAllowed, namespaceNotAllowedReason, type NamespaceScope } from '../engine/plan/allowed-namespaces.ts';
import { error, ok, type CheckResult } from './check-result.ts';

export function judgeNamespaces(desired: Pick<TargetDesired, 'statefulSets' | 'sizeValues' | 'classValues'>, namespaces: NamespaceScope): CheckResult[] {
  const { allow } = namespaces;
  const named = new Map<string, string[]>();
  const add = (namespace: string, what: string): void => { named.set(namespace, [...(named.get(namespace) ?? []), what]); };
  for (const set of desired.statefulSets) add(set.namespace, `${set.namespace}/${set.name} (${set.location.path}:${set.location.line})`);
  for (const value of mappedValuesOf(desired)) add(value.namespace, `${value.namespace}/${value.name} (${value.location.path}:${value.location.line})`);
  const results: CheckResult[] = [];
  for (const [namespace, sets] of [...named].sort(([a], [b]) => a.localeCompare(b))) {
    if (isNamespaceAllowed(namespace, namespaces)) continue;
    if (namespace === namespaces.state) {
      results.push(error('source.namespaces', namespace, `${sets.join(', ')}: ${namespaceNotAllowedReason(namespace, namespaces)}`,
        `move ${sets.length === 1 ? 'it' : 'them'} to a namespace of namespaces.allow, or give the target another namespaces.state`));
      continue;
    }
    results.push(error('source.namespaces', namespace, `${sets.join(', ')} ${sets.length === 1 ? 'is' : 'are'} in namespace ${namespace}, which namespaces.allow (${allow.join(', ')}) does not list: every plan blocks ${sets.length === 1 ? 'it' : 'them'}`,
      `add ${namespace} to namespaces.allow, then apply the RBAC manifest again (\`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -\`)`));
  }
  if (results.length === 0 && named.size > 0) results.push(ok('source.namespaces', [...named.keys()].sort().join(', '), 'every namespace the files name is in namespaces.allow'));
  return results;
}
