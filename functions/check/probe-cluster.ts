// The target's cluster, read-only: reachable and which version (and what that means), the namespaces the target
// names (they exist), every verb the tool needs in each (one SelfSubjectAccessReview each), who else may write the
// state namespace (its RBAC objects), the StatefulSets and templates the size sources name, and the StorageClasses the
// templates use. Nothing is written: access reviews store nothing, the Lease probe is a server-side dry run.
import type { KubeConfig } from '@kubernetes/client-node';
import { KubeAccessProbe } from '../adapters/kube/access-probe.ts';
import { KubeCluster } from '../adapters/kube/kube-cluster.ts';
import { ClusterError } from '../engine/ports.ts';
import type { TargetConfig } from '../domain/config.ts';
import type { ClusterSnapshot } from '../domain/live-state.ts';
import { parseServerVersion } from '../domain/server-capabilities.ts';
import { mapWithConcurrency } from '../engine/concurrency.ts';
import { assembleDesired, mappedValuesOf, type TargetDesired } from '../engine/desired/desired-input.ts';
import { isNamespaceAllowed, type NamespaceScope } from '../engine/plan/allowed-namespaces.ts';
import { accessQuestions, judgeAccess } from './cluster-access.ts';
import { judgeNamespacePresence, missingNamespaces, probablyMissingNamespaces, probeNamespaces } from './namespace-presence.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';
import { probeStateNamespaceWriters } from './probe-state-writers.ts';
import { judgeReachFailure } from './reach-failure.ts';
import { judgeServerVersion } from './server-version.ts';
import { judgeSizeSourceTargets } from './size-source-targets.ts';
import { judgeStorageClasses, type ClassUsage } from './storage-classes.ts';

const reviewConcurrency = 8;

/** `unread`: when `desired` is undefined, the id of the result above that says why the source was not read. */
export async function probeCluster(config: TargetConfig, kubeConfig: KubeConfig, desired: TargetDesired | undefined, unread?: string): Promise<CheckResult[]> {
  const server = kubeConfig.getCurrentCluster()?.server ?? 'the cluster';
  const probe = new KubeAccessProbe(kubeConfig);
  const results: CheckResult[] = [];
  try {
    const version = parseServerVersion(await probe.serverVersion());
    results.push(ok('cluster.reach', server, `reachable as ${kubeConfig.getCurrentUser()?.name ?? 'the configured user'}`), ...judgeServerVersion(version, config.pullRequests.recovery));
  } catch (cause) {
    return [judgeReachFailure(config, kubeConfig, cause)];
  }
  results.push(...await namespaceAndAccessResults(config, probe));
  results.push(...await probeStateNamespaceWriters(config.namespaces.state, probe));
  results.push(...await templateResults(new KubeCluster(kubeConfig), desired, config.namespaces, unread));
  return results;
}

/**
 * The namespaces first (one that does not exist explains every refusal there), then one SelfSubjectAccessReview per
 * verb, except in namespaces known not to exist: no Role can be there, and an identity allowed everything (an admin's
 * kubeconfig) would otherwise be told all is well in them. A namespace inferred missing gets no access lines either.
 */
async function namespaceAndAccessResults(config: TargetConfig, probe: KubeAccessProbe): Promise<CheckResult[]> {
  const questions = accessQuestions(config);
  const namespaces = await probeNamespaces(config, probe, questions);
  const missing = missingNamespaces(namespaces);
  const asked = questions.filter((q) => q.namespace === undefined || !missing.has(q.namespace));
  try {
    const answers = await mapWithConcurrency(asked, reviewConcurrency, (question) => probe.canI(question));
    const probablyMissing = probablyMissingNamespaces(namespaces, asked, answers);
    const judged = asked.flatMap((question, index) => (question.namespace !== undefined && probablyMissing.has(question.namespace) ? [] : [{ question, answer: answers[index] ?? { allowed: false } }]));
    return [...judgeNamespacePresence(config, namespaces, asked, answers), ...judgeAccess(judged.map((j) => j.question), judged.map((j) => j.answer))];
  } catch (cause) {
    return [...judgeNamespacePresence(config, namespaces, [], []), error('cluster.access', 'SelfSubjectAccessReview', `cannot ask the cluster what this identity may do: ${messageOf(cause)}`,
      'every authenticated identity may create SelfSubjectAccessReviews (ClusterRole system:basic-user); check that binding and the credentials')];
  }
}

/** The StatefulSets and templates the size sources name (they must exist), and the classes every template uses. */
async function templateResults(cluster: KubeCluster, desired: TargetDesired | undefined, scope: NamespaceScope, unread: string | undefined): Promise<CheckResult[]> {
  // Pointed at a line check prints: the result that stopped the source being read.
  if (!desired) return [warning('cluster.storageclass', 'templates', `not checked: the manifests were not read${unread !== undefined ? ` (${unread} above says why)` : ''}`)];
  let storageClasses;
  try {
    ({ storageClasses } = await cluster.readSnapshot([]));
  } catch (cause) {
    // A refusal is cluster.access's to say (it asks list on StorageClasses, and names the grant): not a second error.
    if (cause instanceof ClusterError && cause.status === 403) return [warning('cluster.storageclass', 'StorageClasses', 'not checked: this identity may not list StorageClasses (cluster.access above says what to grant)')];
    return [error('cluster.storageclass', 'StorageClasses', `cannot list StorageClasses: ${messageOf(cause)}`, 'check the cluster\'s reach and run check again')];
  }
  // A StatefulSet sized from a values file is the live object (its templates, their classes): read where those live.
  const mappedNamespaces = [...new Set(mappedValuesOf(desired).map((v) => v.namespace))].filter((n) => isNamespaceAllowed(n, scope));
  const results: CheckResult[] = [];
  let live: ClusterSnapshot = { storageClasses, namespaces: new Map() };
  if (mappedNamespaces.length > 0) {
    try {
      live = { storageClasses, namespaces: (await cluster.readSnapshot(mappedNamespaces)).namespaces };
      results.push(...judgeSizeSourceTargets(desired, live.namespaces, scope));
    } catch (cause) {
      results.push(warning('cluster.size-sources', 'size sources', `the StatefulSets the size sources name were not read, so neither they nor their classes were checked: ${messageOf(cause)}`, 'grant the permissions cluster.access names'));
    }
  }
  const usages: ClassUsage[] = assembleDesired(desired, live).flatMap((set) => set.templates.flatMap((template) => {
    // The plan's rule: the template's class, else the live template's, else the cluster's default (engine/plan/plan.ts).
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
