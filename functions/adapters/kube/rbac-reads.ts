// The RBAC objects that grant anything in one namespace (its Roles and RoleBindings, every ClusterRole and
// ClusterRoleBinding), read for `check` (check/state-namespace-writers.ts) as plain data from the server's JSON. Only
// whoever runs check needs these reads, usually an operator: the tool's own RBAC never grants them.
import type { ConfigurationOptions, RbacAuthorizationV1Api } from '@kubernetes/client-node';
import type { JsonObject } from '../../domain/live-state.ts';
import type { BindingSubject, NamespaceGrants, RbacBinding, RbacRole, RbacRule } from '../../domain/rbac-grants.ts';
import { ClusterError } from '../../engine/ports.ts';
import { listPageSize, listWire } from './api-calls.ts';

/** Some of the reads were refused (403): the identity may not list these. */
export class RbacReadRefused extends Error {
  constructor(readonly refused: readonly string[]) {
    super(`this identity may not list ${refused.join(', ')}`);
    this.name = 'RbacReadRefused';
  }
}

const strings = (value: unknown): string[] => (Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : []);
const text = (value: unknown): string => (typeof value === 'string' ? value : '');
const metadataOf = (json: JsonObject): { name: string; namespace: string | undefined } => {
  const metadata = (json.metadata ?? {}) as JsonObject;
  return { name: text(metadata.name), namespace: typeof metadata.namespace === 'string' ? metadata.namespace : undefined };
};

function toRule(json: JsonObject): RbacRule {
  return { verbs: strings(json.verbs), apiGroups: strings(json.apiGroups), resources: strings(json.resources), resourceNames: strings(json.resourceNames) };
}

/** A ClusterRole's rules as served: an aggregated one's are already filled in by the aggregation controller. */
function toRole(kind: RbacRole['kind']): (json: JsonObject) => RbacRole {
  return (json) => ({ kind, ...metadataOf(json), rules: (Array.isArray(json.rules) ? (json.rules as JsonObject[]) : []).map(toRule) });
}

function toSubject(json: JsonObject): BindingSubject {
  return { kind: text(json.kind), name: text(json.name), namespace: typeof json.namespace === 'string' && json.namespace !== '' ? json.namespace : undefined };
}

function toBinding(kind: RbacBinding['kind']): (json: JsonObject) => RbacBinding {
  return (json) => {
    const roleRef = (json.roleRef ?? {}) as JsonObject;
    return {
      kind, ...metadataOf(json), roleRef: { kind: text(roleRef.kind), name: text(roleRef.name) },
      subjects: (Array.isArray(json.subjects) ? (json.subjects as JsonObject[]) : []).map(toSubject),
    };
  };
}

type ReadPage = (page: { limit: number; _continue?: string }, options: ConfigurationOptions) => Promise<unknown>;

/** The four lists at once; those refused are named together in one RbacReadRefused, any other failure is thrown as it is. */
export async function readNamespaceGrants(rbac: RbacAuthorizationV1Api, namespace: string): Promise<NamespaceGrants> {
  const read = <T>(what: string, readPage: ReadPage, map: (json: JsonObject) => T): Promise<T[]> =>
    listWire(listPageSize, readPage, map).catch((error: unknown) => {
      throw error instanceof ClusterError && error.status === 403 ? new RbacReadRefused([what]) : error;
    });
  const settled = await Promise.allSettled([
    read(`roles in namespace ${namespace}`, (page, options) => rbac.listNamespacedRole({ namespace, ...page }, options), toRole('Role')),
    read(`rolebindings in namespace ${namespace}`, (page, options) => rbac.listNamespacedRoleBinding({ namespace, ...page }, options), toBinding('RoleBinding')),
    read('clusterroles', (page, options) => rbac.listClusterRole(page, options), toRole('ClusterRole')),
    read('clusterrolebindings', (page, options) => rbac.listClusterRoleBinding(page, options), toBinding('ClusterRoleBinding')),
  ] as const);
  const failures = settled.flatMap((s) => (s.status === 'rejected' ? [s.reason instanceof Error ? s.reason : new Error('a list of RBAC objects failed')] : []));
  const other = failures.find((f) => !(f instanceof RbacReadRefused));
  if (other !== undefined) throw other;
  if (failures.length > 0) throw new RbacReadRefused(failures.flatMap((f) => (f instanceof RbacReadRefused ? f.refused : [])));
  const [roles, roleBindings, clusterRoles, clusterRoleBindings] = settled;
  const value = <T>(result: PromiseSettledResult<T[]>): T[] => (result.status === 'fulfilled' ? result.value : []);
  return { namespace, roles: value(roles), roleBindings: value(roleBindings), clusterRoles: value(clusterRoles), clusterRoleBindings: value(clusterRoleBindings) };
}
