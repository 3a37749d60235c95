// The target's cluster, read-only: reachable and which version (and what that means), every verb the tool needs in
// every namespace it may write (one SelfSubjectAccessReview each), the Lease namespace, and the StorageClasses the
// templates use. Nothing is written: access reviews store nothing, the Lease probe is a server-side dry run.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeAccessProbe } from '../adapters/kube/access-probe.ts';
import { KubeCluster } from '../adapters/kube/kube-cluster.ts';
import { defaultStateNamespace, type TargetConfig } from '../domain/config.ts';
import type { ClusterSnapshot } from '../domain/live-state.ts';
import { parseServerVersion } from '../domain/server-capabilities.ts';
import { mapWithConcurrency } from '../engine/concurrency.ts';
import { assembleDesired, mappedValuesOf, type TargetDesired } from '../engine/desired-input.ts';
import { isNamespaceAllowed } from '../engine/plan.ts';
import { accessQuestions, judgeAccess, leaseNameOf, leaseNamespaceOf } from './cluster-access.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';
import { judgeServerVersion } from './server-version.ts';
import { judgeSizeSourceTargets } from './size-source-targets.ts';
import { judgeStorageClasses, type ClassUsage } from './storage-classes.ts';

const reviewConcurrency = 8;

export async function probeCluster(config: TargetConfig, kubeConfig: KubeConfig, desired: TargetDesired | undefined): Promise<CheckResult[]> {
  const server = kubeConfig.getCurrentCluster()?.server ?? 'the cluster';
  const probe = new KubeAccessProbe(kubeConfig);
  const results: CheckResult[] = [];
  try {
    const version = parseServerVersion(await probe.serverVersion());
    results.push(ok('cluster.reach', server, `reachable as ${kubeConfig.getCurrentUser()?.name ?? 'the configured user'}`), ...judgeServerVersion(version, config.pullRequests.recovery));
  } catch (cause) {
    return [error('cluster.reach', server, `the API server cannot be reached or read: ${messageOf(cause)}`,
      'eks' in config.cluster
        ? 'check the cluster name and region, that the function\'s role (or roleArn) has an EKS access entry, and that the endpoint is reachable from where this runs'
        : `check the kubeconfig (${config.cluster.kubeconfig.path}${config.cluster.kubeconfig.context ? `, context ${config.cluster.kubeconfig.context}` : ''}) and the network path to ${server}`)];
  }
  results.push(...await accessResults(config, probe));
  results.push(await leaseNamespaceResult(config, probe));
  results.push(...await templateResults(new KubeCluster(kubeConfig), desired, config.namespaces.allow));
  return results;
}

async function accessResults(config: TargetConfig, probe: KubeAccessProbe): Promise<CheckResult[]> {
  const questions = accessQuestions(config);
  try {
    const answers = await mapWithConcurrency(questions, reviewConcurrency, (question) => probe.canI(question));
    return judgeAccess(questions, answers);
  } catch (cause) {
    return [error('cluster.access', 'SelfSubjectAccessReview', `cannot ask the cluster what this identity may do: ${messageOf(cause)}`,
      'every authenticated identity may create SelfSubjectAccessReviews (ClusterRole system:basic-user); check that binding and the credentials')];
  }
}

async function leaseNamespaceResult(config: TargetConfig, probe: KubeAccessProbe): Promise<CheckResult> {
  const namespace = leaseNamespaceOf(config);
  const presence = await probe.namespaceOfLease(namespace, leaseNameOf(config)).catch((cause: unknown) => ({ unknown: messageOf(cause) }));
  if (presence === 'exists') return ok('cluster.lease-namespace', namespace, `exists; the target's Lease ${leaseNameOf(config)} can be created there`);
  if (presence === 'missing') {
    return error('cluster.lease-namespace', namespace, 'the namespace that holds the target\'s Lease and recreation records does not exist: the first pass that writes would fail',
      namespace === defaultStateNamespace
        ? `apply the RBAC manifest \`sts-volume-gitops rbac\` generates: it creates ${namespace}`
        : `kubectl create namespace ${namespace} (then apply the RBAC manifest again: its Role there could not be created without it)`);
  }
  return warning('cluster.lease-namespace', namespace, `could not tell whether it exists: ${presence.unknown}`, 'grant the Lease permissions (see cluster.access) and run check again');
}

/** The StatefulSets and templates the size sources name (they must exist), and the classes every template uses. */
async function templateResults(cluster: KubeCluster, desired: TargetDesired | undefined, allow: readonly string[]): Promise<CheckResult[]> {
  if (!desired) return [warning('cluster.storageclass', 'templates', 'not checked: the source could not be read (see source.read)')];
  let storageClasses;
  try {
    ({ storageClasses } = await cluster.readSnapshot([]));
  } catch (cause) {
    return [error('cluster.storageclass', 'StorageClasses', `cannot list StorageClasses: ${messageOf(cause)}`, 'grant the permissions cluster.access names')];
  }
  // A StatefulSet sized from a values file is the live object (its templates, their classes): read where those live.
  const mappedNamespaces = [...new Set(mappedValuesOf(desired).map((v) => v.namespace))].filter((n) => isNamespaceAllowed(n, allow));
  const results: CheckResult[] = [];
  let live: ClusterSnapshot = { storageClasses, namespaces: new Map() };
  if (mappedNamespaces.length > 0) {
    try {
      live = { storageClasses, namespaces: (await cluster.readSnapshot(mappedNamespaces)).namespaces };
      results.push(...judgeSizeSourceTargets(desired, live.namespaces, allow));
    } catch (cause) {
      results.push(warning('cluster.size-sources', 'size sources', `the StatefulSets the size sources name were not read, so neither they nor their classes were checked: ${messageOf(cause)}`, 'grant the permissions cluster.access names'));
    }
  }
  const usages: ClassUsage[] = assembleDesired(desired, live).flatMap((set) => set.templates.flatMap((template) => {
    // The plan's rule: the template's class, else the live template's, else the cluster's default (engine/plan.ts).
    const liveTemplate = live.namespaces.get(set.namespace)?.statefulSets.find((s) => s.name === set.name)?.templates.find((t) => t.name === template.name);
    // A mapped set or template not in the cluster has no class to check: cluster.size-sources says so.
    if (set.sizedBy && !liveTemplate) return [];
    const where = `${template.storageLocation.path}:${template.storageLocation.line}`;
    return [{ className: template.storageClassName ?? liveTemplate?.storageClassName, usedBy: `${set.namespace}/${set.name} ${template.name} (${where})` }];
  }));
  return [...results, ...judgeStorageClasses(usages, storageClasses)];
}

function messageOf(cause: unknown): string {
  return cause instanceof Error ? cause.message : String(cause);
}
