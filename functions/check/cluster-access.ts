// Which Kubernetes permissions a target needs, question by question (one SelfSubjectAccessReview each), and what the
// answers mean (pure). The questions are the grants of the RBAC manifest `sts-volume-gitops rbac` generates for the
// target (from adapters/kube/permissions.ts, the single source of what the tool's calls need); a permission refused is
// said as the grant to make (adapters/kube/forbidden.ts), as the pass report says it when a call is refused.
import { clusterPermissions, leasePermissions, previousLeaseNamespacePermissions, workloadPermissions } from '../adapters/kube/permissions.ts';
import { grantToMake } from '../adapters/kube/forbidden.ts';
import { leasePrefix } from '../engine/run-pass.ts';
import { rbacObjects } from '../app/rbac-manifest.ts';
import type { TargetConfig } from '../domain/config.ts';
import { error, ok, type CheckResult } from './check-result.ts';

/** One `can I VERB RESOURCE [NAME] in NAMESPACE` (namespace undefined: at the cluster scope, or in every namespace). */
export interface AccessQuestion {
  verb: string;
  apiGroup: string;
  resource: string;
  namespace: string | undefined;
  /** Asked with no namespace for a namespaced resource: in every namespace (`namespaces.allow: ["*"]`). */
  everyNamespace?: boolean;
  name?: string;
  /** Why the tool needs it, `to ...` (permissions.ts). */
  why: string;
}

export interface AccessAnswer {
  allowed: boolean;
  /** The authorizer's words, when it gave some. */
  reason?: string;
}

/** Where the target's Lease (and its recreation records) live: the state namespace. */
export function leaseNamespaceOf(target: Pick<TargetConfig, 'namespaces'>): string {
  return target.namespaces.state;
}

export function leaseNameOf(target: Pick<TargetConfig, 'name'>): string {
  return `${leasePrefix}${target.name}`;
}

/**
 * Every verb the tool needs, asked exactly where `sts-volume-gitops rbac` grants it (its objects for this target are
 * the questions, so check and the manifest cannot disagree): the ClusterRole's rules at the cluster scope (in every
 * namespace for the workload rules of `allow: ["*"]`), each Role's rules in its namespace, by name where the grant is.
 */
export function accessQuestions(target: Pick<TargetConfig, 'name' | 'namespaces'>): AccessQuestion[] {
  const known = [
    ...clusterPermissions.map((rule) => ({ rule, clusterScoped: true })),
    ...workloadPermissions.map((rule) => ({ rule, clusterScoped: false })),
    ...leasePermissions([leaseNameOf(target)]).map((rule) => ({ rule, clusterScoped: false })),
    ...previousLeaseNamespacePermissions.map((rule) => ({ rule, clusterScoped: false })),
  ];
  const questions: AccessQuestion[] = [];
  for (const object of rbacObjects([target])) {
    if (object.kind !== 'Role' && object.kind !== 'ClusterRole') continue;
    for (const rule of (object.rules ?? []) as GrantedRule[]) {
      const [apiGroup = '', resource = ''] = [rule.apiGroups[0], rule.resources[0]];
      // Which permission the rule grants (permissions.ts), for why it is needed and whether it is cluster-scoped.
      const source = known.find(({ rule: p }) => p.apiGroup === apiGroup && p.resource === resource && sameList(p.verbs, rule.verbs) && (p.resourceNames !== undefined) === (rule.resourceNames !== undefined));
      const namespace = object.kind === 'Role' ? object.metadata.namespace : undefined;
      const everyNamespace = object.kind === 'ClusterRole' && source !== undefined && !source.clusterScoped;
      for (const verb of rule.verbs) {
        for (const name of rule.resourceNames ?? [undefined]) {
          questions.push({
            verb, apiGroup, resource, namespace,
            ...(everyNamespace ? { everyNamespace } : {}), ...(name !== undefined ? { name } : {}),
            why: source?.rule.why[verb] ?? 'for what `npx sts-volume-gitops rbac` grants it',
          });
        }
      }
    }
  }
  return questions;
}

interface GrantedRule {
  apiGroups: string[];
  resources: string[];
  verbs: string[];
  resourceNames?: string[];
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((item, index) => item === b[index]);
}

/** `persistentvolumeclaims in namespace "db"`, `leases.coordination.k8s.io "sts-volume-gitops-prod" in namespace "platform"`. */
export function describeScope(question: AccessQuestion): string {
  const resource = question.apiGroup === '' ? question.resource : `${question.resource}.${question.apiGroup}`;
  const object = question.name === undefined ? resource : `${resource} "${question.name}"`;
  const scope = question.namespace !== undefined ? `in namespace "${question.namespace}"` : question.everyNamespace ? 'in every namespace' : 'at the cluster scope';
  return `${object} ${scope}`;
}

/** `list storageclasses, ... at the cluster scope; get, list ... statefulsets, ... in namespaces analytics, cache, db; ...`: scopes that refuse the same, together. */
function describeRefusals(groups: ReadonlyArray<{ question: AccessQuestion; verbs: string[] }>): string {
  const byScope = new Map<string, string[]>();
  for (const { question, verbs } of groups) {
    const scope = question.namespace !== undefined ? question.namespace : question.everyNamespace ? 'every namespace' : 'the cluster scope';
    const resource = `${verbs.join('/')} ${question.resource}${question.name !== undefined ? ` "${question.name}"` : ''}`;
    byScope.set(scope, [...(byScope.get(scope) ?? []), resource]);
  }
  const byGrants = new Map<string, string[]>();
  for (const [scope, resources] of byScope) byGrants.set(resources.join(', '), [...(byGrants.get(resources.join(', ')) ?? []), scope]);
  return [...byGrants].map(([resources, scopes]) => {
    const namespaces = scopes.filter((s) => s !== 'the cluster scope' && s !== 'every namespace');
    const where = [...scopes.filter((s) => !namespaces.includes(s)).map((s) => (s === 'every namespace' ? 'in every namespace' : 'at the cluster scope')),
      ...(namespaces.length > 0 ? [`in namespace${namespaces.length > 1 ? 's' : ''} ${namespaces.join(', ')}`] : [])];
    return `${resources} ${where.join(' and ')}`;
  }).join('; ');
}

/**
 * The refused verbs, one error per resource and scope (as a Role rule is written) naming the grant to make; one ok
 * line when all are granted. An identity granted none of them gets one error: apply the generated manifest, with
 * the list of what that grants.
 */
export function judgeAccess(questions: readonly AccessQuestion[], answers: readonly AccessAnswer[]): CheckResult[] {
  const refused = new Map<string, { question: AccessQuestion; verbs: string[]; reasons: Set<string>; why: Set<string> }>();
  for (const [index, question] of questions.entries()) {
    const answer = answers[index];
    if (answer?.allowed) continue;
    const key = describeScope(question);
    const group = refused.get(key) ?? { question, verbs: [], reasons: new Set<string>(), why: new Set<string>() };
    group.verbs.push(question.verb);
    if (answer?.reason) group.reasons.add(answer.reason);
    group.why.add(question.why);
    refused.set(key, group);
  }
  const results: CheckResult[] = [];
  const refusedCount = [...refused.values()].reduce((sum, g) => sum + g.verbs.length, 0);
  if (refusedCount > 0 && refusedCount === questions.length) {
    // One fix for all of them: said once, with the list of what it grants, not once per resource and namespace.
    return [error('cluster.access', 'permissions', `this identity has none of the ${questions.length} permissions the tool needs: ${describeRefusals([...refused.values()])}`,
      'apply the manifest the config needs (`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -`), bound to this identity (--group, --user or --service-account)')];
  }
  for (const [scope, group] of refused) {
    const binding = group.question.everyNamespace ? ' with a ClusterRole bound cluster-wide (namespaces.allow has "*")' : '';
    results.push(error(
      'cluster.access', `${group.verbs.join(', ')} ${scope}`,
      `not allowed${group.reasons.size > 0 ? ` (${[...group.reasons].join('; ')})` : ''}; needed ${[...group.why].join(', and ')}`,
      grantToMake({ ...group.question, verb: group.verbs }, binding),
    ));
  }
  if (results.length > 0) return results;
  const namespaces = [...new Set(questions.flatMap((q) => (q.namespace === undefined ? [] : [q.namespace])))];
  const everywhere = questions.some((q) => q.everyNamespace);
  return [ok('cluster.access', 'permissions', `all ${questions.length} verbs the tool uses are allowed (cluster scope${everywhere ? ', every namespace' : ''}${namespaces.length > 0 ? `, namespaces ${namespaces.join(', ')}` : ''})`)];
}
