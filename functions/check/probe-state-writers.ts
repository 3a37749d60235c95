// Reads the RBAC objects that grant anything in the target's state namespace and judges who besides the tool may
// write there (state-namespace-writers.ts). An identity that may not list them (the tool's own, for one: it never
// needs to) gets an info line saying who can tell: neither an error nor a warning, since that identity can never clear
// it (it must not be granted these reads), and check is usually run once by an operator who can.
import type { KubeAccessProbe } from '../adapters/kube/access-probe.ts';
import { RbacReadRefused } from '../adapters/kube/rbac-reads.ts';
import { info, warning, type CheckResult } from './check-result.ts';
import { judgeStateNamespaceWriters, stateWritersCheck } from './state-namespace-writers.ts';

export async function probeStateNamespaceWriters(namespace: string, probe: Pick<KubeAccessProbe, 'namespaceGrants'>): Promise<CheckResult[]> {
  try {
    return judgeStateNamespaceWriters(await probe.namespaceGrants(namespace));
  } catch (cause) {
    const cannotTell = `cannot tell who besides the tool may write ConfigMaps or Leases in ${namespace} (recreation records and the Lease)`;
    if (cause instanceof RbacReadRefused) {
      return [info(stateWritersCheck, namespace, `${cannotTell}: ${cause.message}, and an access review answers only for the identity asking`,
        `run check as an identity that may list roles, rolebindings, clusterroles and clusterrolebindings (a cluster administrator), or look yourself: `
        + `\`kubectl -n ${namespace} get rolebindings -o wide\` and \`kubectl get clusterrolebindings -o wide\`; the tool never needs these reads, so do not grant them to it`)];
    }
    return [warning(stateWritersCheck, namespace, `${cannotTell}: ${cause instanceof Error ? cause.message : String(cause)}`)];
  }
}
