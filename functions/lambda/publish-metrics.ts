// Publishes one pass's metrics as CloudWatch embedded metric format (Powertools Metrics) the moment the pass ends:
// `Passes` with an `outcome` dimension, the counts and the duration under the service dimension, the failed and
// blocked StatefulSets again per `reason`, and the proposals' pull requests opened and closed again per `kind` (only
// the reasons and kinds present: a dimension value is a metric of its own, paid monthly; there is no target dimension
// for the same reason, the worker's log lines say which target and set). The namespace comes from
// POWERTOOLS_METRICS_NAMESPACE (set by the stack) or the option.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { TargetRun } from '../app/run-targets.ts';
import { defaultMetricsNamespace } from './metrics-namespace.ts';
import { passMetrics } from './pass-metrics.ts';

export function createPassMetricsPublisher(options: { serviceName: string; namespace?: string }): (run: TargetRun) => void {
  const metrics = new Metrics({
    namespace: options.namespace ?? process.env.POWERTOOLS_METRICS_NAMESPACE ?? defaultMetricsNamespace,
    serviceName: options.serviceName,
  });
  return (run) => {
    const pass = passMetrics(run);
    const byOutcome = metrics.singleMetric();
    byOutcome.addDimension('outcome', pass.outcome);
    byOutcome.addMetric('Passes', MetricUnit.Count, 1);
    for (const { name, reason, value } of pass.byReason) {
      const byReason = metrics.singleMetric();
      byReason.addDimension('reason', reason);
      byReason.addMetric(name, MetricUnit.Count, value);
    }
    for (const { name, kind, value } of pass.byKind) {
      const byKind = metrics.singleMetric();
      byKind.addDimension('kind', kind);
      byKind.addMetric(name, MetricUnit.Count, value);
    }
    for (const [name, value] of Object.entries(pass.counts)) metrics.addMetric(name, MetricUnit.Count, value);
    metrics.addMetric('PassDuration', MetricUnit.Milliseconds, pass.durationMs);
    metrics.publishStoredMetrics();
  };
}
