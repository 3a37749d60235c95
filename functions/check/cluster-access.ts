// Which Kubernetes permissions a target needs, question by question (one SelfSubjectAccessReview each), and what the
// answers mean (pure). The permissions come from adapters/kube/permissions.ts, the single source of what the tool's
// calls need; a permission refused is said as the grant to make (adapters/kube/forbidden.ts), as the pass report says
// it when a call is refused.
import { clusterPermissions, leasePermissions, workloadPermissions, type PermissionRule } from '../adapters/kube/permissions.ts';
import { grantToMake } from '../adapters/kube/forbidden.ts';
import { leasePrefix } from '../engine/run-pass.ts';
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
  /** Which calls need it (permissions.ts). */
  why: string;
}

export interface AccessAnswer {
  allowed: boolean;
  /** The authorizer's words, when it gave some. */
  reason?: string;
}

/** Where the target's Lease (and its recreation records) live. */
export function leaseNamespaceOf(target: Pick<TargetConfig, 'namespaces'>): string {
  return target.namespaces.default;
}

export function leaseNameOf(target: Pick<TargetConfig, 'name'>): string {
  return `${leasePrefix}${target.name}`;
}

/**
 * Every verb the tool needs: cluster-scoped reads, the workload verbs in each allowed namespace (in every namespace for
 * `*`), the Lease verbs in the Lease namespace (on the Lease's own name where the grant is by name).
 */
export function accessQuestions(target: Pick<TargetConfig, 'name' | 'namespaces'>): AccessQuestion[] {
  const questions: AccessQuestion[] = [];
  const ask = (rules: readonly PermissionRule[], namespace: string | undefined, everyNamespace = false): void => {
    for (const rule of rules) {
      for (const verb of rule.verbs) {
        const names = rule.resourceNames ?? [undefined];
        for (const name of names) {
          questions.push({
            verb, apiGroup: rule.apiGroup, resource: rule.resource, namespace,
            ...(everyNamespace ? { everyNamespace } : {}), ...(name !== undefined ? { name } : {}), why: rule.why,
          });
        }
      }
    }
  };
  ask(clusterPermissions, undefined);
  const allow = target.namespaces.allow;
  if (allow.includes('*')) ask(workloadPermissions, undefined, true);
  for (const namespace of [...new Set(allow.filter((n) => n !== '*'))].sort()) ask(workloadPermissions, namespace);
  ask(leasePermissions([leaseNameOf(target)]), leaseNamespaceOf(target));
  return questions;
}

/** `persistentvolumeclaims in namespace "db"`, `leases.coordination.k8s.io "sts-volume-gitops-prod" in namespace "platform"`. */
export function describeScope(question: AccessQuestion): string {
  const resource = question.apiGroup === '' ? question.resource : `${question.resource}.${question.apiGroup}`;
  const object = question.name === undefined ? resource : `${resource} "${question.name}"`;
  const scope = question.namespace !== undefined ? `in namespace "${question.namespace}"` : question.everyNamespace ? 'in every namespace' : 'at the cluster scope';
  return `${object} ${scope}`;
}

/**
 * The refused verbs, one error per resource and scope (as a Role rule is written) naming the grant to make; one ok
 * line when all are granted. An identity granted none of them is told to apply the generated manifest first.
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
    results.push(error('cluster.access', 'permissions', 'this identity has none of the permissions the tool needs',
      'apply the manifest the config needs (`sts-volume-gitops rbac --config FILE | kubectl apply -f -`), bound to this identity (--group, --user or --service-account)'));
  }
  for (const [scope, group] of refused) {
    const grant = grantToMake({ ...group.question, verb: group.verbs });
    results.push(error(
      'cluster.access', `${group.verbs.join(', ')} ${scope}`,
      `not allowed${group.reasons.size > 0 ? ` (${[...group.reasons].join('; ')})` : ''}; needed for ${[...group.why].join('; ')}`,
      group.question.everyNamespace ? `${grant} with a ClusterRole bound cluster-wide (namespaces.allow has "*")` : grant,
    ));
  }
  if (results.length > 0) return results;
  const namespaces = [...new Set(questions.flatMap((q) => (q.namespace === undefined ? [] : [q.namespace])))];
  const everywhere = questions.some((q) => q.everyNamespace);
  return [ok('cluster.access', 'permissions', `all ${questions.length} verbs the tool uses are allowed (cluster scope${everywhere ? ', every namespace' : ''}${namespaces.length > 0 ? `, namespaces ${namespaces.join(', ')}` : ''})`)];
}
