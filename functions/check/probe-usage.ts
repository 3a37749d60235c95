// `check` for a target's usage (`usage.prometheus`): whether Prometheus answers the pass's own queries, with the
// credentials configured, and has series for the claims of the target's StatefulSets; when it has none, what it has
// instead (relabelled labels, other namespaces, renamed families: functions/usage/diagnose-series.ts). Reads only.
import { awsSetupFix } from '../adapters/aws/aws-setup-failure.ts';
import { usageSourceOf, type OpenOptions } from '../app/open-target.ts';
import { requestTimeoutMs } from '../app/deadline.ts';
import type { TargetConfig } from '../domain/config.ts';
import { count } from '../domain/spelling.ts';
import type { UsageReadFailure } from '../domain/volume-usage.ts';
import { mappedValuesOf, type TargetDesired } from '../engine/desired/desired-input.ts';
import { pvcName } from '../engine/plan/plan.ts';
import { diagnoseMissingSeries } from '../usage/diagnose-series.ts';
import { queryInstant, type PrometheusEndpoint } from '../usage/prometheus-api.ts';
import { inodeThreshold } from '../usage/inode-threshold.ts';
import { claimKey, readVolumeUsage } from '../usage/read-volume-usage.ts';
import { diagnosisQueries } from '../usage/volume-stats-queries.ts';
import { error, ok, warning, type CheckResult } from './check-result.ts';

/** The claims check looks for: every replica's of the manifests, replica 0's of a set a size source maps (its replicas are the live set's). */
function expectedClaims(desired: TargetDesired): Array<{ namespace: string; claim: string }> {
  const fromManifests = desired.statefulSets.flatMap((sts) => sts.templates.flatMap((t) => Array.from({ length: sts.replicas }, (_, i) => ({ namespace: sts.namespace, claim: pvcName(t.name, sts.name, i) }))));
  const mapped = desired.sizeValues.map((v) => ({ namespace: v.namespace, claim: pvcName(v.template, v.name, 0) }));
  const seen = new Set<string>();
  return [...fromManifests, ...mapped].filter((c) => !seen.has(claimKey(c.namespace, c.claim)) && seen.add(claimKey(c.namespace, c.claim)));
}

/** What to do about a read that failed, by why. */
function fixFor(failure: UsageReadFailure, config: TargetConfig): string {
  const auth = config.usage?.prometheus.auth;
  switch (failure.kind) {
    case 'unreachable':
    case 'timeout':
      return 'check usage.prometheus.url, and that this machine (and the deployed function\'s network) can reach it';
    case 'refused':
      return auth && 'sigv4' in auth ? 'allow the credentials aps:QueryMetrics on the workspace, and check usage.prometheus.auth.sigv4.region'
        : auth && 'bearer' in auth ? 'check the bearer token where usage.prometheus.auth.bearer says' : 'the API asks for credentials: set usage.prometheus.auth (sigv4 or bearer)';
    case 'credentials':
      return auth && 'sigv4' in auth ? awsSetupFix('credentials', 'aps:QueryMetrics on the workspace') : 'store the token where usage.prometheus.auth.bearer says';
    default:
      return 'check that usage.prometheus.url is the base of a Prometheus HTTP API: <url>/api/v1/query must answer';
  }
}

export async function probeUsage(config: TargetConfig, desired: TargetDesired | undefined, options: Pick<OpenOptions, 'env' | 'readSecretText'>): Promise<CheckResult[]> {
  const timeoutMs = (): number => requestTimeoutMs(undefined);
  const source = usageSourceOf(config, options, options.env ?? process.env, timeoutMs);
  if (!source) return [];
  const url = source.endpoint.url;
  if (!desired) return [warning('usage.prometheus', url, 'not checked: the source could not be read, so the claims to look for are unknown')];
  const claims = expectedClaims(desired);
  const namespaces = [...new Set(claims.map((c) => c.namespace))].sort();
  if (namespaces.length === 0) return [ok('usage.prometheus', url, 'no StatefulSet in the target\'s paths: no usage to read')];
  const at = new Date();
  // The pass's own five queries, the inode ones as the pass filters them (so check proves Prometheus answers that shape).
  const inodesFrom = inodeThreshold(config.growth, { statefulSets: desired.statefulSets, liveAnnotated: mappedValuesOf(desired).length > 0 });
  const reading = await readVolumeUsage(source.endpoint, namespaces, at, 10_000, inodesFrom);
  if (!reading.ok) return [error('usage.prometheus', url, `Prometheus did not answer the pass's queries: ${reading.failure.message}`, fixFor(reading.failure, config))];
  const answered = ok('usage.prometheus', url, `answers the pass's ${count(reading.queries, 'query', 'queries')}${config.usage?.prometheus.auth ? ` (${'sigv4' in config.usage.prometheus.auth ? 'SigV4' : 'bearer token'})` : ''}`);
  const missing = claims.filter((c) => !reading.claims.has(claimKey(c.namespace, c.claim)));
  if (missing.length === 0) return [answered, ok('usage.series', namespaces.join(', '), `series for all ${count(claims.length, 'claim')} of the target's StatefulSets`)];
  if (missing.length < claims.length) {
    const shown = missing.slice(0, 5).map((c) => `${c.namespace}/${c.claim}`).join(', ');
    return [answered, warning('usage.series', namespaces.join(', '), `series for ${claims.length - missing.length} of ${count(claims.length, 'claim')}; none for ${shown}${missing.length > 5 ? ` and ${missing.length - 5} more` : ''}`,
      'a kubelet reports only the volumes of running pods: a replica not running (or not created yet) has none; growth decides on the replicas it can read')];
  }
  return [answered, await diagnoseNoSeries(source.endpoint, namespaces, at)];
}

/** No series for any claim: what Prometheus has instead, asked in three more queries (held to a real Prometheus too). */
export async function diagnoseNoSeries(endpoint: PrometheusEndpoint, namespaces: readonly string[], at: Date): Promise<CheckResult> {
  const [sample, withSeries, names] = await Promise.all([diagnosisQueries.sampleSeries, diagnosisQueries.namespaces, diagnosisQueries.metricNames].map((q) => queryInstant(endpoint, q, at, 10_000)));
  const samplesOf = (answer: typeof sample) => (answer?.ok ? answer.samples : []);
  const diagnosis = diagnoseMissingSeries({
    sampleSeries: samplesOf(sample),
    namespaceLabels: samplesOf(withSeries).map((s) => s.labels),
    metricNames: samplesOf(names).flatMap((s) => (s.labels.__name__ !== undefined ? [s.labels.__name__] : [])),
  }, namespaces);
  return error('usage.series', namespaces.join(', '), `no series for any claim of the target's StatefulSets: ${diagnosis.message}`, diagnosis.fix);
}
