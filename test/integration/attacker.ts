// Someone other than the tool with a narrow grant on ConfigMaps in the state namespace (the findings of the security
// reviews: `create` alone plants a forgery; `get` too copies a genuine record while it exists, to put back later).
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { applyObjects } from '../../sandbox/kube/apply-objects.ts';
import type { Harness } from './harness.ts';

/** The client of user `mallory`, granted `verbs` on ConfigMaps in the state namespace and nothing else. */
export async function attacker(h: Harness, verbs: readonly string[] = ['create']): Promise<CoreV1Api> {
  const labels = { 'app.kubernetes.io/name': 'attacker' };
  await applyObjects(h.kube, [
    { apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'Role', metadata: { name: 'configmap-writer', namespace: h.stateNamespace, labels }, rules: [{ apiGroups: [''], resources: ['configmaps'], verbs: [...verbs] }] },
    {
      apiVersion: 'rbac.authorization.k8s.io/v1', kind: 'RoleBinding', metadata: { name: 'configmap-writer', namespace: h.stateNamespace, labels },
      roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'configmap-writer' }, subjects: [{ kind: 'User', apiGroup: 'rbac.authorization.k8s.io', name: 'mallory' }],
    },
  ]);
  const { kubeconfigPath } = await h.kube.addIdentity({ name: 'mallory', groups: [] });
  const config = new KubeConfig();
  config.loadFromFile(kubeconfigPath);
  return config.makeApiClient(CoreV1Api);
}
