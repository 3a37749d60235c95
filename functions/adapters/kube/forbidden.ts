// An RBAC refusal, read back from the API server's 403 text, and said as the grant that would fix it. kube-apiserver
// words every authorization failure the same way (apiserver responsewriters forbiddenMessage):
//   `<resource>[.<group>] ["<name>"] is forbidden: User "<user>" cannot <verb> resource "<resource>[/<sub>]" in API group
//   "<group>" (at the cluster scope | in the namespace "<ns>")[: <reason>]`
// Admission refusals (quota, resize rules) are 403 Forbidden too but read differently; they stay as the server said.

export interface MissingPermission {
  user: string;
  verb: string;
  resource: string;
  apiGroup: string;
  /** undefined at the cluster scope. */
  namespace: string | undefined;
  name: string | undefined;
}

const denial = /^(?:\S+ (?:"((?:[^"\\]|\\.)*)" )?is forbidden: )?User "((?:[^"\\]|\\.)*)" cannot (\S+) resource "([^"]*)" in API group "([^"]*)" (?:at the cluster scope|in the namespace "([^"]*)")/;

export function parseMissingPermission(message: string): MissingPermission | undefined {
  const match = denial.exec(message);
  if (!match) return undefined;
  const [, name, user = '', verb = '', resource = '', apiGroup = '', namespace] = match;
  return { user, verb, resource, apiGroup, namespace, name };
}

/**
 * `the cluster refused: grant "patch" on "persistentvolumeclaims" in namespace "db" (... grants what the configuration needs): User "x"
 * may not patch persistentvolumeclaims "data-pg-0"`.
 */
export function describeMissingPermission(missing: MissingPermission): string {
  const object = missing.name === undefined ? missing.resource : `${missing.resource} "${missing.name}"`;
  return `the cluster refused: ${grantToMake(missing)}: User "${missing.user}" may not ${missing.verb} ${object}`;
}

/**
 * `grant "patch" on "persistentvolumeclaims" in namespace "db" (... rbac --config FILE | kubectl apply -f -...)`: the grant
 * that allows a request (a refused call's, or one a SelfSubjectAccessReview said no to), and the manifest generated for
 * the configuration, never infra/k8s/rbac.yaml: that one is the example's (its Lease name and namespaces), and applied
 * for another configuration takes grants away. A namespace of undefined is the cluster scope; `binding` says how it is
 * bound when that is not a Role's.
 */
export function grantToMake(access: Pick<MissingPermission, 'resource' | 'apiGroup' | 'namespace'> & { verb: string | readonly string[] }, binding = ''): string {
  const verbs = (typeof access.verb === 'string' ? [access.verb] : access.verb).map((v) => `"${v}"`).join(', ');
  const resource = access.apiGroup === '' ? `"${access.resource}"` : `"${access.resource}" (API group "${access.apiGroup}")`;
  const scope = access.namespace === undefined ? 'at the cluster scope' : `in namespace "${access.namespace}"`;
  return `grant ${verbs} on ${resource} ${scope}${binding} (\`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -\` grants what the configuration needs)`;
}
