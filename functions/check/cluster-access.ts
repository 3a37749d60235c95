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

/** `patch persistentvolumeclaims in namespace "db"`, `get leases "sts-volume-gitops-prod" in namespace "platform"`. */
export function describeQuestion(question: AccessQuestion): string {
  const resource = question.apiGroup === '' ? question.resource : `${question.resource}.${question.apiGroup}`;
  const object = question.name === undefined ? resource : `${resource} "${question.name}"`;
  const scope = question.namespace !== undefined ? `in namespace "${question.namespace}"` : question.everyNamespace ? 'in every namespace' : 'at the cluster scope';
  return `${question.verb} ${object} ${scope}`;
}

/** One error per permission refused, naming the grant to make; one ok line when all are granted. */
export function judgeAccess(questions: readonly AccessQuestion[], answers: readonly AccessAnswer[]): CheckResult[] {
  const refused = questions.flatMap((question, index) => {
    const answer = answers[index];
    if (answer?.allowed) return [];
    return [error(
      'cluster.access', describeQuestion(question),
      `not allowed${answer?.reason ? ` (${answer.reason})` : ''}; needed for ${question.why}`,
      question.everyNamespace ? `${grantToMake(question)} with a ClusterRole bound cluster-wide (namespaces.allow has "*")` : grantToMake(question),
    )];
  });
  if (refused.length > 0) return refused;
  const namespaces = [...new Set(questions.flatMap((q) => (q.namespace === undefined ? [] : [q.namespace])))];
  const everywhere = questions.some((q) => q.everyNamespace);
  return [ok('cluster.access', 'permissions', `all ${questions.length} verbs the tool uses are allowed (cluster scope${everywhere ? ', every namespace' : ''}${namespaces.length > 0 ? `, namespaces ${namespaces.join(', ')}` : ''})`)];
}
