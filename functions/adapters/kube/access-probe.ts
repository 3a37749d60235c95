// What `check` asks a cluster, read-only: the server's version, SelfSubjectAccessReviews (may I VERB RESOURCE in
// NAMESPACE, answered by the server's authorizer for whoever the kubeconfig is), whether namespaces exist (a GET
// of the Namespace, which the tool's identity is usually not granted, and for the Lease namespace a server-side
// dry-run create of the Lease: nothing is stored), and the RBAC objects that grant anything in the state namespace
// (rbac-reads.ts).
import { AuthorizationV1Api, CoordinationV1Api, CoreV1Api, RbacAuthorizationV1Api, VersionApi, type KubeConfig } from '@kubernetes/client-node';
import type { NamespaceGrants } from '../../domain/rbac-grants.ts';
import { ClusterError } from '../../engine/ports.ts';
import { call, readVersionInfo } from './api-calls.ts';
import { pooledKubeConfig } from './pooled-kube-config.ts';
import { readNamespaceGrants } from './rbac-reads.ts';

export interface AccessReviewQuestion {
  verb: string;
  apiGroup: string;
  resource: string;
  namespace: string | undefined;
  name?: string;
}

/** `refused`: this identity may not read Namespaces (403), as the tool's own may not: the RBAC manifest does not grant it. */
export type NamespacePresence = 'exists' | 'missing' | { unknown: string; refused?: true };

export class KubeAccessProbe {
  private readonly version: VersionApi;
  private readonly authorization: AuthorizationV1Api;
  private readonly coordination: CoordinationV1Api;
  private readonly rbac: RbacAuthorizationV1Api;
  private readonly core: CoreV1Api;

  private readonly server: string;

  constructor(config: KubeConfig) {
    this.server = config.getCurrentCluster()?.server ?? 'the cluster';
    const pooled = pooledKubeConfig(config);
    this.version = pooled.makeApiClient(VersionApi);
    this.authorization = pooled.makeApiClient(AuthorizationV1Api);
    this.coordination = pooled.makeApiClient(CoordinationV1Api);
    this.rbac = pooled.makeApiClient(RbacAuthorizationV1Api);
    this.core = pooled.makeApiClient(CoreV1Api);
  }

  /** Roles and RoleBindings in `namespace`, every ClusterRole and ClusterRoleBinding; RbacReadRefused names the lists refused. */
  namespaceGrants(namespace: string): Promise<NamespaceGrants> {
    return readNamespaceGrants(this.rbac, namespace);
  }

  /** `GET /version`: open to every identity (system:public-info-viewer). */
  async serverVersion(): Promise<{ major: string; minor: string; gitVersion: string }> {
    const info = await readVersionInfo(this.version, this.server);
    return { major: info.major, minor: info.minor, gitVersion: info.gitVersion };
  }

  /** One SelfSubjectAccessReview (every authenticated identity may ask about itself). */
  async canI(question: AccessReviewQuestion): Promise<{ allowed: boolean; reason?: string }> {
    const review = await call(() => this.authorization.createSelfSubjectAccessReview({
      body: {
        apiVersion: 'authorization.k8s.io/v1', kind: 'SelfSubjectAccessReview',
        spec: {
          resourceAttributes: {
            verb: question.verb, group: question.apiGroup, resource: question.resource,
            ...(question.namespace !== undefined ? { namespace: question.namespace } : {}),
            ...(question.name !== undefined ? { name: question.name } : {}),
          },
        },
      },
    }));
    const status = review.status;
    return { allowed: status?.allowed === true, ...(status?.reason ? { reason: status.reason } : {}) };
  }

  /**
   * Whether `namespace` exists, learnt from a dry-run create of the Lease `name` there: created or already there, it
   * exists; 404 (a create finds nothing else missing) it does not. Refused or failed: unknown, with the reason.
   */
  async namespaceOfLease(namespace: string, name: string): Promise<NamespacePresence> {
    try {
      await call(() => this.coordination.createNamespacedLease({
        namespace, dryRun: 'All',
        body: { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease', metadata: { name, namespace } },
      }));
      return 'exists';
    } catch (error) {
      if (!(error instanceof ClusterError)) throw error;
      if (error.status === 409) return 'exists';
      if (error.status === 404) return 'missing';
      return { unknown: error.message };
    }
  }

  /** Whether `namespace` exists, from a GET of it: refused (403) or failed, unknown with the reason. */
  async namespace(namespace: string): Promise<NamespacePresence> {
    try {
      await call(() => this.core.readNamespace({ name: namespace }));
      return 'exists';
    } catch (error) {
      if (!(error instanceof ClusterError)) throw error;
      if (error.status === 404) return 'missing';
      // Not the 403's own words: they ask for a grant of `get` on namespaces, which the tool never needs.
      if (error.status === 403) return { unknown: 'this identity may not read Namespaces', refused: true };
      return { unknown: error.message };
    }
  }

  /** Every namespace's name, for a "did you mean"; undefined when this identity may not list them. */
  async namespaceNames(): Promise<string[] | undefined> {
    try {
      const list = await call(() => this.core.listNamespace());
      return list.items.flatMap((n) => (n.metadata?.name ? [n.metadata.name] : []));
    } catch (error) {
      if (error instanceof ClusterError && error.status === 403) return undefined;
      throw error;
    }
  }
}
