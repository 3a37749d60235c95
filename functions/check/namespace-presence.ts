// Whether the namespaces the target names exist: every one the RBAC manifest puts a Role in (namespaces.allow, the
// state namespace, namespaces.default for the upgrade reads). A namespace that does not exist makes `kubectl apply` of
// the manifest fail on its Role, holds nothing to resize, and, for the state namespace, fails the first pass that
// writes. Read with a GET of the Namespace (the state namespace first with a dry-run create of the Lease); the tool's
// own identity may do neither, and is then judged from its access reviews: a Role exists only in a namespace that does.
import type { KubeAccessProbe, NamespacePresence } from '../adapters/kube/access-probe.ts';
import { defaultStateNamespace, type TargetConfig } from '../domain/config.ts';
import { closestName } from '../domain/similar-names.ts';
import type { AccessAnswer, AccessQuestion } from './cluster-access.ts';
import { leaseNameOf, leaseNamespaceOf } from './cluster-access.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';

export interface NamespaceFinding {
  namespace: string;
  /** Why the target names it (one namespace may be several). */
  named: ReadonlyArray<'allow' | 'state' | 'default'>;
  presence: NamespacePresence;
  /** The Lease's dry-run create succeeded there (the state namespace). */
  leaseCanBeCreated?: boolean;
}

export interface NamespaceProbe {
  findings: NamespaceFinding[];
  /** Every namespace's name when this identity may list them (for "did you mean"), else undefined. */
  names: string[] | undefined;
}

/** The namespaces the access questions name, each read as well as this identity may. */
export async function probeNamespaces(config: TargetConfig, probe: KubeAccessProbe, questions: readonly AccessQuestion[]): Promise<NamespaceProbe> {
  const state = leaseNamespaceOf(config);
  const namespaces = [...new Set(questions.flatMap((q) => (q.namespace === undefined ? [] : [q.namespace])))].sort();
  const findings = await Promise.all(namespaces.map(async (namespace): Promise<NamespaceFinding> => {
    const named = [
      ...(config.namespaces.allow.includes(namespace) ? ['allow' as const] : []),
      ...(namespace === state ? ['state' as const] : []),
      ...(namespace === config.namespaces.default ? ['default' as const] : []),
    ];
    const unknown = (cause: unknown): NamespacePresence => ({ unknown: cause instanceof Error ? cause.message : String(cause) });
    if (namespace === state) {
      const lease = await probe.namespaceOfLease(namespace, leaseNameOf(config)).catch(unknown);
      if (lease !== 'exists' && lease !== 'missing') {
        const read = await probe.namespace(namespace).catch(unknown);
        // A refused read says why better than the refused Lease create (whose words ask for a grant to create it).
        return { namespace, named, presence: typeof read === 'string' || read.refused ? read : lease };
      }
      return { namespace, named, presence: lease, leaseCanBeCreated: lease === 'exists' };
    }
    return { namespace, named, presence: await probe.namespace(namespace).catch(unknown) };
  }));
  const names = findings.some((f) => f.presence === 'missing') ? await probe.namespaceNames().catch(() => undefined) : undefined;
  return { findings, names };
}

/** The namespaces known not to exist: their access questions are not asked (a Role cannot be there). */
export function missingNamespaces(probe: NamespaceProbe): Set<string> {
  return new Set(probe.findings.filter((f) => f.presence === 'missing').map((f) => f.namespace));
}

/**
 * The namespaces this identity could not read and is refused every grant in while those elsewhere are allowed: most
 * likely they do not exist (their Role could not be created). Their namespace line says what to do either way, so
 * their access lines, whose grant could not be applied there, are not shown.
 */
export function probablyMissingNamespaces(probe: NamespaceProbe, questions: readonly AccessQuestion[], answers: readonly AccessAnswer[]): Set<string> {
  const allowedElsewhere = (namespace: string): boolean => questions.some((q, i) => q.namespace !== namespace && answers[i]?.allowed === true);
  return new Set(probe.findings.filter((finding) => {
    if (finding.presence === 'exists' || finding.presence === 'missing') return false;
    const asked = questions.flatMap((q, i) => (q.namespace === finding.namespace ? [answers[i]?.allowed === true] : []));
    return asked.length > 0 && !asked.some((allowed) => allowed) && allowedElsewhere(finding.namespace);
  }).map((finding) => finding.namespace));
}

/**
 * One result per namespace that does not (or probably does not) exist, or could not be told; one ok line for the
 * others. A namespace this identity could not read is judged from the access answers: a grant there means it exists;
 * every grant there refused while grants elsewhere are allowed means its Role could not be created, most likely
 * because the namespace does not exist (said as an inference).
 */
export function judgeNamespacePresence(
  config: TargetConfig, probe: NamespaceProbe, questions: readonly AccessQuestion[], answers: readonly AccessAnswer[],
): CheckResult[] {
  const results: CheckResult[] = [];
  const present: string[] = [];
  const inferred: string[] = [];
  const untold: NamespaceFinding[] = [];
  const probablyMissing = probablyMissingNamespaces(probe, questions, answers);
  for (const finding of probe.findings) {
    const { namespace, presence } = finding;
    const asked = questions.flatMap((q, i) => (q.namespace === namespace ? [answers[i]?.allowed === true] : []));
    if (presence === 'exists') {
      if (finding.named.includes('state')) results.push(ok('cluster.lease-namespace', namespace, finding.leaseCanBeCreated ? `exists; the target's Lease ${leaseNameOf(config)} can be created there` : 'exists'));
      else present.push(namespace);
    } else if (presence === 'missing') {
      results.push(missingResult(config, finding, probe.names, false));
    } else if (asked.some((allowed) => allowed)) {
      if (finding.named.includes('state')) results.push(ok('cluster.lease-namespace', namespace, 'exists (inferred: this identity may not read Namespaces, but holds grants there, and a Role exists only in a namespace that does)'));
      else inferred.push(namespace);
    } else if (probablyMissing.has(namespace)) {
      results.push(missingResult(config, finding, undefined, true));
    } else {
      untold.push(finding);
    }
  }
  // Those it could not tell, said once, not once each: one fix does for all.
  if (untold.length > 0) results.push(untoldResult(untold));
  if (present.length + inferred.length > 0) {
    const all = [...present, ...inferred].sort();
    const which = present.length === 0 ? '' : `${inferred.join(', ')}: `;
    results.unshift(ok('cluster.namespaces', all.join(', '), `exist${inferred.length > 0 ? ` (${which}inferred: this identity may not read Namespaces, but holds grants in each, and a Role exists only in a namespace that does)` : ''}`));
  }
  return results;
}

/**
 * Namespaces this identity could neither read nor infer: a GET of a Namespace is refused to the tool's own identity
 * (the RBAC manifest grants none, since no pass needs one), and with no grant there yet nothing says they exist.
 */
function untoldResult(findings: readonly NamespaceFinding[]): CheckResult {
  const names = findings.map((f) => f.namespace);
  const shown = findings.map((f) => (f.named.includes('state') && findings.length > 1 ? `${f.namespace} (the state namespace)` : f.namespace));
  // The workload namespaces' id when there are any, else the state namespace's.
  const id = findings.some((f) => idOf(f) === 'cluster.namespaces') ? 'cluster.namespaces' : 'cluster.lease-namespace';
  const reasons = [...new Set(findings.map((f) => (typeof f.presence === 'object' ? (f.presence.refused ? refusedRead : f.presence.unknown) : '')))];
  return warning(id, names.join(', '), `could not tell whether ${names.length === 1 ? `namespace ${names[0] ?? ''} exists` : `namespaces ${shown.join(', ')} exist`}: ${reasons.join('; ')}`,
    'apply the RBAC manifest (`npx sts-volume-gitops rbac --config FILE | kubectl apply -f -`) and run check again (a grant in a namespace tells it exists), or run check once with a kubeconfig that may read Namespaces');
}

const refusedRead = 'this identity may not read Namespaces (nor need it: the RBAC manifest grants no read of them) and holds no grant there yet';

function idOf(finding: NamespaceFinding): string {
  return finding.named.includes('state') ? 'cluster.lease-namespace' : 'cluster.namespaces';
}

function missingResult(config: TargetConfig, finding: NamespaceFinding, names: readonly string[] | undefined, inferredOnly: boolean): CheckResult {
  const { namespace } = finding;
  const how = inferredOnly
    ? `probably does not exist (inferred: this identity may not read Namespaces, and it is refused every permission the RBAC manifest grants in ${namespace} while those elsewhere are allowed, as when that Role could not be created for want of the namespace)`
    : 'does not exist';
  const ifItExists = inferredOnly ? `; if ${namespace} does exist, apply the RBAC manifest: its Role there is missing` : '';
  if (finding.named.includes('state')) {
    return error('cluster.lease-namespace', namespace, `the namespace that holds the target's Lease and recreation records (namespaces.state) ${how}: the first pass that writes would fail`,
      namespace === defaultStateNamespace
        ? `apply the RBAC manifest \`npx sts-volume-gitops rbac\` generates: it creates ${namespace}`
        : `kubectl create namespace ${namespace} (then apply the RBAC manifest again: its Role there could not be created without it)${ifItExists}`);
  }
  const setting = finding.named.includes('allow') ? 'namespaces.allow' : 'namespaces.default';
  const closest = names === undefined ? undefined : closestName(namespace, names);
  return error('cluster.namespaces', namespace,
    `namespace ${namespace} (in ${setting}) ${how}: the RBAC manifest's Role for it cannot be applied (kubectl apply fails on it)${finding.named.includes('allow') ? ', and no StatefulSet there can be resized' : ''}`,
    `${closest !== undefined ? `did you mean ${closest}? Correct ${setting}, or` : `correct ${setting}, or`} create the namespace (\`kubectl create namespace ${namespace}\`), then apply the RBAC manifest again${ifItExists}`);
}
