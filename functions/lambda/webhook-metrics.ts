// What one webhook delivery counts for in CloudWatch, as embedded metric format (Powertools Metrics), the moment it is
// answered: `WebhookDeliveriesRefused` with a `reason` dimension (bad-signature, too-large, payload-mismatch, ...: a
// burst of refusals is someone probing the public Function URL, or a webhook set up wrong) and
// `WebhookDeliveriesQueued`, both beside the service dimension; a queued delivery whose id this instance queued before
// counts in `WebhookDeliveriesRepeated` too (app/delivery-memory.ts). Ignored deliveries count for nothing. The namespace
// comes from POWERTOOLS_METRICS_NAMESPACE (set by the stack) or the option, as for the passes' metrics.
import { Metrics, MetricUnit } from '@aws-lambda-powertools/metrics';
import type { WebhookOutcome } from '../app/receive-webhook.ts';
import { defaultMetricsNamespace } from './metrics-namespace.ts';

import { webhookMetricNames } from './webhook-metric-names.ts';

export { webhookMetricNames };

export function createWebhookMetricsPublisher(options: { serviceName: string; namespace?: string }): (outcome: WebhookOutcome) => void {
  const metrics = new Metrics({
    namespace: options.namespace ?? process.env.POWERTOOLS_METRICS_NAMESPACE ?? defaultMetricsNamespace,
    serviceName: options.serviceName,
  });
  return (outcome) => {
    if (outcome.kind === 'refused') {
      const refused = metrics.singleMetric();
      refused.addDimension('reason', outcome.reason);
      refused.addMetric(webhookMetricNames.refused, MetricUnit.Count, 1);
    } else if (outcome.kind === 'queued') {
      metrics.addMetric(webhookMetricNames.queued, MetricUnit.Count, 1);
      if (outcome.repeated) metrics.addMetric(webhookMetricNames.repeated, MetricUnit.Count, 1);
      metrics.publishStoredMetrics();
    }
  };
}
