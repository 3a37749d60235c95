// The CloudWatch metrics the functions emit (EMF, through Powertools), as the dashboard and the alarms read them.
// Names come from the code that emits them: the pass counts are typed by `PassMetrics`, so a renamed count fails the
// type check here rather than leaving a graph empty.
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { passMetrics, passOutcomes, type KindCountName, type PassMetrics, type PassOutcome, type ReasonCountName } from '../functions/lambda/pass-metrics.ts';
import { webhookMetricNames } from '../functions/lambda/webhook-metric-names.ts';
import { powertoolsServiceName } from './shipped-function.ts';

/** Emitted by the webhook Lambda: deliveries it queued and queued again (dimension `service`), and refused (`service`, `reason`). */
export { webhookMetricNames };
export { passOutcomes };
export type PassCountName = keyof PassMetrics['counts'];
/**
 * Every count a pass publishes, read off `passMetrics` itself (for a run that did nothing), so a count added there is
 * drawn on the dashboard without anyone listing it here.
 */
export const passCountNames = Object.keys(passMetrics({
  target: '', report: undefined, feedback: undefined, recovery: undefined, error: undefined, deferred: [], durationMs: 0, apiCalls: { github: 0, kubernetes: 0, pvcPatches: 0 },
}).counts) as PassCountName[];

export class EmittedMetrics {
  /** The pass counts asked for so far (the dashboard draws the others in a graph of their own). */
  readonly countsUsed = new Set<PassCountName>();

  constructor(readonly namespace: string, readonly period = Duration.minutes(5)) {}

  /** A per-pass count, summed (dimension `service`, as Powertools adds it). */
  passCount(name: PassCountName, label?: string): cloudwatch.Metric {
    this.countsUsed.add(name);
    return new cloudwatch.Metric({ namespace: this.namespace, metricName: name, dimensionsMap: { service: powertoolsServiceName }, statistic: 'Sum', period: this.period, label: label ?? name });
  }

  /**
   * A count of what one pass saw of its target (volumes near full): the most any pass saw in the period, since a sum
   * would count a target once per pass.
   */
  passMaximum(name: PassCountName, label?: string): cloudwatch.Metric {
    this.countsUsed.add(name);
    return new cloudwatch.Metric({ namespace: this.namespace, metricName: name, dimensionsMap: { service: powertoolsServiceName }, statistic: 'Maximum', period: this.period, label: label ?? name });
  }

  /**
   * A per-pass count for an alarm: no label (a labelled metric makes CloudWatch alarms use the metric-query form) and
   * not counted as drawn, so the dashboard still graphs it.
   */
  passCountForAlarm(name: PassCountName, period: Duration): cloudwatch.Metric {
    return new cloudwatch.Metric({ namespace: this.namespace, metricName: name, dimensionsMap: { service: powertoolsServiceName }, statistic: 'Sum', period });
  }

  /** `Passes` of one outcome (dimensions `service` and `outcome`). */
  passes(outcome: PassOutcome): cloudwatch.Metric {
    return new cloudwatch.Metric({ namespace: this.namespace, metricName: 'Passes', dimensionsMap: { service: powertoolsServiceName, outcome }, statistic: 'Sum', period: this.period, label: `Passes ${outcome}` });
  }

  passDuration(statistic: string): cloudwatch.Metric {
    return new cloudwatch.Metric({ namespace: this.namespace, metricName: 'PassDuration', dimensionsMap: { service: powertoolsServiceName }, statistic, period: this.period, label: `PassDuration ${statistic}` });
  }

  /**
   * A failed or blocked count, one line per `reason` (the series published with the `reason` dimension; the total,
   * `service` alone, is `passCount`). A graph only: CloudWatch alarms cannot evaluate SEARCH.
   */
  byReason(name: ReasonCountName): cloudwatch.MathExpression {
    this.countsUsed.add(name);
    return new cloudwatch.MathExpression({
      expression: `SEARCH('{"${this.namespace}",reason,service} MetricName="${name}"', 'Sum', ${this.period.toSeconds()})`,
      usingMetrics: {}, period: this.period, label: '',
    });
  }

  /**
   * Pull requests opened or closed, one line per proposal `kind` (recovery, growth, write-back: whichever are published).
   * A graph only: CloudWatch alarms cannot evaluate SEARCH.
   */
  byKind(name: KindCountName): cloudwatch.MathExpression {
    this.countsUsed.add(name);
    return new cloudwatch.MathExpression({
      expression: `SEARCH('{"${this.namespace}",kind,service} MetricName="${name}"', 'Sum', ${this.period.toSeconds()})`,
      usingMetrics: {}, period: this.period, label: '',
    });
  }

  /**
   * Every series of a webhook metric, whatever its dimensions (one line per `reason` for the refused ones). A graph
   * only: CloudWatch alarms cannot evaluate SEARCH.
   */
  webhookSeries(name: keyof typeof webhookMetricNames): cloudwatch.MathExpression {
    const metricName = webhookMetricNames[name];
    return new cloudwatch.MathExpression({
      expression: `SEARCH('Namespace="${this.namespace}" MetricName="${metricName}"', 'Sum', ${this.period.toSeconds()})`,
      usingMetrics: {}, period: this.period, label: '',
    });
  }

  /**
   * Refused webhook deliveries, all reasons summed into one series an alarm can evaluate: a Metrics Insights query.
   * SEARCH cannot be alarmed on, and a plain metric names one `reason` (its dimensions are part of its identity);
   * summing over SCHEMA(namespace, reason, service) counts every reason, including ones added later, exactly once.
   */
  refusedDeliveries(period: Duration): cloudwatch.MathExpression {
    return new cloudwatch.MathExpression({
      expression: `SELECT SUM(${webhookMetricNames.refused}) FROM SCHEMA("${this.namespace}", reason, service)`,
      usingMetrics: {}, period, label: 'Webhook deliveries refused',
    });
  }
}
