// Who is asking, and may they: bearer tokens to users, impersonation, and RBAC over the Role, ClusterRole, RoleBinding
// and ClusterRoleBinding objects in the store, answered with kube-apiserver's own 403 texts
// (apiserver/pkg/endpoints/handlers/responsewriters/errors.go forbiddenMessage, apimachinery NewForbidden).
//
// The sandbox's admin (its kubeconfig token, and requests without credentials, which kubectl sends over plain http) is
// in system:masters and may do anything, as on a real cluster. Other identities are tokens added with addToken and
// users named by impersonation; they get only what bindings grant. Discovery, /version and /openapi are open to
// everyone, as the default system:discovery and system:public-info-viewer bindings make them. Not modelled: privilege
// escalation checks on writing roles and bindings (only the admin writes them here), aggregated ClusterRoles.
import type { IncomingHttpHeaders } from 'node:http';
import { ApiError } from './api-errors.ts';
import { mustResourceType, type KubeObject, type ObjectStore } from './store.ts';

export interface UserInfo {
  name: string;
  groups: readonly string[];
}

/** What a resource request asks, as the authorizer sees it. */
export interface RequestAttributes {
  verb: string;
  group: string;
  resource: string;
  subresource?: string | undefined;
  namespace?: string | undefined;
  name?: string | undefined;
}

export const mastersGroup = 'system:masters';
export const sandboxAdmin: UserInfo = { name: 'sandbox-admin', groups: [mastersGroup, 'system:authenticated'] };

interface PolicyRule {
  verbs?: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
}

interface Subject {
  kind?: string;
  name?: string;
  namespace?: string;
}

interface Binding extends KubeObject {
  roleRef?: { kind?: string; name?: string };
  subjects?: Subject[];
}

const rbacTypes = {
  role: mustResourceType('rbac.authorization.k8s.io/v1', 'Role'),
  clusterRole: mustResourceType('rbac.authorization.k8s.io/v1', 'ClusterRole'),
  roleBinding: mustResourceType('rbac.authorization.k8s.io/v1', 'RoleBinding'),
  clusterRoleBinding: mustResourceType('rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'),
};

const serviceAccountPrefix = 'system:serviceaccount:';

/** Maps a bearer token no fixed token matches to a user, or refuses it (webhook token authentication, as EKS's). */
export type TokenAuthenticator = (token: string) => UserInfo | undefined;

/** An authenticated user: every authenticator adds `system:authenticated` to the groups it found. */
function authenticatedAs(user: UserInfo): UserInfo {
  return { name: user.name, groups: user.groups.includes('system:authenticated') ? user.groups : [...user.groups, 'system:authenticated'] };
}

export class AccessControl {
  private readonly tokens = new Map<string, { user: UserInfo; stillValid?: (() => boolean) | undefined }>();
  private readonly authenticators: TokenAuthenticator[] = [];

  constructor(private readonly store: ObjectStore, adminToken: string) {
    this.tokens.set(adminToken, { user: sandboxAdmin });
  }

  /**
   * A bearer token that authenticates as `user` (`system:authenticated` is added to its groups, as authenticators do),
   * while `stillValid` holds (a TokenRequest's token: until it expires or its ServiceAccount is gone).
   */
  addToken(token: string, user: UserInfo, stillValid?: () => boolean): void {
    this.tokens.set(token, { user: authenticatedAs(user), stillValid });
  }

  /**
   * Tokens that are not fixed (an EKS token is a presigned STS URL, new each time) go to `authenticate`, as a real
   * API server hands them to its webhook token authenticator (aws-iam-authenticator on EKS).
   */
  addTokenAuthenticator(authenticate: TokenAuthenticator): void {
    this.authenticators.push(authenticate);
  }

  /** The requester after authentication and impersonation; a 401 or 403 Status as an ApiError otherwise. */
  identify(headers: IncomingHttpHeaders): UserInfo | ApiError {
    const auth = headers.authorization;
    const bearer = auth?.replace(/^Bearer /, '');
    const entry = bearer === undefined ? { user: sandboxAdmin } : this.tokens.get(bearer);
    const requester = entry ? ((entry.stillValid?.() ?? true) ? entry.user : undefined) : this.authenticated(bearer ?? '');
    if (requester === undefined || (auth !== undefined && !auth.startsWith('Bearer '))) return new ApiError(401, 'Unauthorized', 'Unauthorized');
    return this.impersonate(requester, headers);
  }

  private authenticated(token: string): UserInfo | undefined {
    for (const authenticate of this.authenticators) {
      const user = authenticate(token);
      if (user) return authenticatedAs(user);
    }
    return undefined;
  }

  /** undefined when RBAC allows the request, else the 403 the real server sends. */
  authorize(user: UserInfo, asked: RequestAttributes): ApiError | undefined {
    if (user.groups.includes(mastersGroup)) return undefined;
    // A request for one Namespace object is in that namespace, as the API server's RequestInfo reads the path.
    const request = asked.group === '' && asked.resource === 'namespaces' && asked.namespace === undefined && asked.name ? { ...asked, namespace: asked.name } : asked;
    // system:basic-user, bound to every authenticated user: anyone may ask what they may do.
    if (request.group === 'authorization.k8s.io' && request.resource === 'selfsubjectaccessreviews' && request.verb === 'create') return undefined;
    const { allowed, errors } = this.decide(user, request);
    if (allowed !== undefined) return undefined;
    return forbidden(user, request, rbacErrors(errors));
  }

  /** A SelfSubjectAccessReview answered for `user` (`kubectl auth can-i VERB RESOURCE [-n NS] [--as ...]`). */
  review(user: UserInfo, body: unknown): Record<string, unknown> {
    const spec = (typeof body === 'object' && body !== null ? (body as { spec?: unknown }).spec : undefined) ?? {};
    const asked = (spec as { resourceAttributes?: Partial<RequestAttributes> & { subresource?: string } }).resourceAttributes;
    let status: { allowed: boolean; reason?: string };
    if (user.groups.includes(mastersGroup)) {
      status = { allowed: true };
    } else if (asked === undefined) {
      status = { allowed: false, reason: 'only resourceAttributes are reviewed by this sandbox' };
    } else {
      const request: RequestAttributes = {
        verb: asked.verb ?? '', group: asked.group ?? '', resource: asked.resource ?? '',
        subresource: asked.subresource || undefined, namespace: asked.namespace || undefined, name: asked.name || undefined,
      };
      const { allowed, errors } = this.decide(user, request);
      const reason = allowed ?? rbacErrors(errors);
      status = { allowed: allowed !== undefined, ...(reason ? { reason } : {}) };
    }
    return { kind: 'SelfSubjectAccessReview', apiVersion: 'authorization.k8s.io/v1', metadata: { creationTimestamp: null }, spec, status };
  }

  /**
   * `Impersonate-User` (a `system:serviceaccount:NS:NAME` user is a ServiceAccount) and `Impersonate-Group`, each allowed
   * only with the `impersonate` verb on users, serviceaccounts or groups. Without groups, a service account gets its
   * fixed groups and everyone `system:authenticated`, as the real filter does.
   */
  private impersonate(requester: UserInfo, headers: IncomingHttpHeaders): UserInfo | ApiError {
    const wantedUser = headerValues(headers['impersonate-user'])[0];
    const wantedGroups = headerValues(headers['impersonate-group']);
    if (wantedUser === undefined) {
      if (wantedGroups.length === 0) return requester;
      return new ApiError(500, 'InternalError', `Internal error occurred: requested ${wantedGroups.map((g) => `{Group ${g}}`).join(' ')} without impersonating a user`);
    }
    const groups: string[] = [];
    const serviceAccount = wantedUser.startsWith(serviceAccountPrefix) ? wantedUser.slice(serviceAccountPrefix.length).split(':') : undefined;
    const checks: RequestAttributes[] = [];
    if (serviceAccount && serviceAccount.length === 2 && serviceAccount.every((part) => part !== '')) {
      const [namespace = '', name = ''] = serviceAccount;
      checks.push({ verb: 'impersonate', group: '', resource: 'serviceaccounts', namespace, name });
      if (wantedGroups.length === 0) groups.push('system:serviceaccounts', `system:serviceaccounts:${namespace}`);
    } else {
      checks.push({ verb: 'impersonate', group: '', resource: 'users', name: wantedUser });
    }
    for (const group of wantedGroups) {
      checks.push({ verb: 'impersonate', group: '', resource: 'groups', name: group });
      groups.push(group);
    }
    for (const check of checks) {
      const denied = this.authorize(requester, check);
      if (denied) return denied;
    }
    if (wantedGroups.length === 0 && wantedUser !== 'system:anonymous' && !groups.includes('system:unauthenticated')) groups.push('system:authenticated');
    return { name: wantedUser, groups };
  }

  /**
   * RBAC's rule walk: ClusterRoleBindings grant everywhere, RoleBindings only in their namespace. `allowed` is RBAC's
   * reason for allowing (`RBAC: allowed by ClusterRoleBinding "x" of ClusterRole "y" to Group "z"`), undefined if not.
   */
  private decide(user: UserInfo, request: RequestAttributes): { allowed: string | undefined; errors: string[] } {
    const errors: string[] = [];
    const bindings: Array<{ binding: Binding; namespace: string | undefined }> = [
      ...this.store.list(rbacTypes.clusterRoleBinding).map((binding) => ({ binding, namespace: undefined })),
      ...(request.namespace ? this.store.list(rbacTypes.roleBinding, request.namespace).map((binding) => ({ binding, namespace: request.namespace })) : []),
    ];
    for (const { binding, namespace } of bindings) {
      const subject = (binding.subjects ?? []).find((s) => appliesTo(s, user, namespace));
      if (!subject) continue;
      const rules = this.rulesOf(binding, namespace);
      if (typeof rules === 'string') {
        errors.push(rules);
        continue;
      }
      if (rules.some((rule) => ruleAllows(rule, request))) {
        const source = namespace === undefined ? `ClusterRoleBinding "${binding.metadata.name}"` : `RoleBinding "${binding.metadata.name}/${namespace}"`;
        return { allowed: `RBAC: allowed by ${source} of ${binding.roleRef?.kind ?? ''} "${binding.roleRef?.name ?? ''}" to ${describeSubject(subject, namespace)}`, errors };
      }
    }
    return { allowed: undefined, errors };
  }

  /** The referenced role's rules, or RBAC's error text when it does not exist. */
  private rulesOf(binding: Binding, namespace: string | undefined): PolicyRule[] | string {
    const name = binding.roleRef?.name ?? '';
    const clusterWide = binding.roleRef?.kind !== 'Role';
    const role = clusterWide ? this.store.get(rbacTypes.clusterRole, undefined, name) : this.store.get(rbacTypes.role, namespace, name);
    if (!role) return `${clusterWide ? 'clusterrole' : 'role'}.rbac.authorization.k8s.io "${name}" not found`;
    return Array.isArray(role.rules) ? (role.rules as PolicyRule[]) : [];
  }
}

/** RBAC's reason when bindings point at roles that do not exist: `RBAC: role.rbac.authorization.k8s.io "x" not found`. */
function rbacErrors(errors: readonly string[]): string {
  if (errors.length === 0) return '';
  return `RBAC: ${errors.length === 1 ? errors[0] ?? '' : `[${errors.join(', ')}]`}`;
}

/** As RBAC's describeSubject: a ServiceAccount is `name/namespace`. */
function describeSubject(subject: Subject, bindingNamespace: string | undefined): string {
  if (subject.kind === 'ServiceAccount') return `ServiceAccount "${subject.name ?? ''}/${subject.namespace ?? bindingNamespace ?? ''}"`;
  return `${subject.kind ?? ''} "${subject.name ?? ''}"`;
}

function headerValues(value: string | string[] | undefined): string[] {
  if (value === undefined) return [];
  return (Array.isArray(value) ? value : value.split(',')).map((v) => v.trim()).filter((v) => v !== '');
}

function appliesTo(subject: Subject, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (subject.kind) {
    case 'User': return subject.name === user.name;
    case 'Group': return subject.name !== undefined && user.groups.includes(subject.name);
    case 'ServiceAccount': {
      // A RoleBinding's ServiceAccount subject without a namespace means one in the binding's namespace.
      const namespace = subject.namespace ?? bindingNamespace;
      return namespace !== undefined && user.name === `${serviceAccountPrefix}${namespace}:${subject.name ?? ''}`;
    }
    default: return false;
  }
}

function ruleAllows(rule: PolicyRule, request: RequestAttributes): boolean {
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const resources = rule.resources ?? [];
  const resourceMatches = resources.includes('*') || resources.includes(resource)
    || (request.subresource !== undefined && resources.includes(`*/${request.subresource}`));
  const names = rule.resourceNames ?? [];
  return (rule.verbs ?? []).some((v) => v === '*' || v === request.verb)
    && (rule.apiGroups ?? []).some((g) => g === '*' || g === request.group)
    && resourceMatches
    && (names.length === 0 || (request.name !== undefined && names.includes(request.name)));
}

/** `storageclasses.storage.k8s.io is forbidden: User "X" cannot list resource "storageclasses" in API group ...`. */
function forbidden(user: UserInfo, request: RequestAttributes, reason: string): ApiError {
  const resource = request.subresource ? `${request.resource}/${request.subresource}` : request.resource;
  const scope = request.namespace ? `in the namespace ${JSON.stringify(request.namespace)}` : 'at the cluster scope';
  const denial = `User ${JSON.stringify(user.name)} cannot ${request.verb} resource ${JSON.stringify(resource)} in API group ${JSON.stringify(request.group)} ${scope}`;
  const why = reason === '' ? denial : `${denial}: ${reason}`;
  const qualified = request.group === '' ? request.resource : `${request.resource}.${request.group}`;
  const message = request.name ? `${qualified} ${JSON.stringify(request.name)} is forbidden: ${why}` : `${qualified} is forbidden: ${why}`;
  return new ApiError(403, 'Forbidden', message, {
    ...(request.name ? { name: request.name } : {}), ...(request.group !== '' ? { group: request.group } : {}), kind: request.resource,
  });
}
