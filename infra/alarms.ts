// The alarms: each named `<stack>-<what>`, notifying the alarm topic when it fires and when it is resolved, with what it
// means and what to do first in its description (linking the dashboard) and in the dashboard's runbook.
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import type { EmittedMetrics } from './metrics.ts';
import type { TargetQueues } from './queue.ts';

export interface AlarmSubjects {
  worker: lambda.IFunction;
  dispatcher: lambda.IFunction;
  webhook: lambda.IFunction | undefined;
  queues: TargetQueues;
  metrics: EmittedMetrics;
  workerTimeout: Duration;
  oldestMessageAge: Duration;
  /** How long a failed pass's message stays invisible before its retry (the queue's visibility timeout). */
  retryAfter: Duration;
  /** Refused webhook deliveries within 15 minutes that raise the alarm. */
  refusedDeliveries: number;
  topic: sns.ITopic;
  dashboardUrl: string;
}

/** An alarm and its runbook line: what it means, and what on call does first. */
export interface StackAlarm {
  alarm: cloudwatch.Alarm;
  name: string;
  meaning: string;
  firstStep: string;
}

interface AlarmSpec {
  id: string;
  /** The alarm is named `<stack>-<suffix>`. */
  suffix: string;
  meaning: string;
  firstStep: string;
  metric: cloudwatch.IMetric;
  threshold: number;
  /** Periods looked at, any one breaching raises the alarm; 1 unless late data must be waited for. */
  evaluationPeriods?: number;
  /** Breaching periods among them that raise the alarm: 1 unless only a lasting condition is worth a person. */
  datapointsToAlarm?: number;
}

const deadLetterPeriod = Duration.minutes(5);

/**
 * Messages that arrived in a dead-letter queue its source's redrive policy feeds. SQS moves them there without a
 * SendMessage, so `NumberOfMessagesSent` never counts them (SQS developer guide, dead-letter queues); and the number
 * visible stays up for the queue's 14 days, so an alarm on it fires once and then hides every later arrival. The
 * increase of the most visible in a period over the period before counts arrivals: a redrive or a purge lowers it,
 * a console look (messages in flight for 30 seconds) does not reach a five-minute maximum, and an idle empty queue,
 * which SQS stops reporting, is filled as 0 so that its first arrival counts.
 */
function deadLetterArrivals(queue: sqs.IQueue, label: string): cloudwatch.MathExpression {
  return new cloudwatch.MathExpression({
    expression: 'DIFF(FILL(visible, 0))',
    usingMetrics: { visible: queue.metricApproximateNumberOfMessagesVisible({ period: deadLetterPeriod, statistic: 'Maximum' }) },
    period: deadLetterPeriod, label,
  });
}

export function stackAlarms(scope: Construct, subjects: AlarmSubjects): StackAlarm[] {
  const period = Duration.minutes(15);
  const { queues, metrics } = subjects;
  const specs: AlarmSpec[] = [
    {
      id: 'FailedResizes', suffix: 'failed-resizes', metric: metrics.passCountForAlarm('StatefulSetsFailed', period), threshold: 1,
      meaning: 'a pass found a StatefulSet whose volume expansion or class modification failed for good (the backend refused it; it stays failed until Git asks for what the volumes can have), or whose volume has waited for its node longer than stalledAfter (reason node-expansion-stalled)',
      firstStep: 'the dashboard\'s "Needs action" table names the target, the StatefulSet and the reason; merge the recovery pull request the pass opened (or set a size the backend allows); for a stalled node expansion, restart the pod the pass names; then watch the next pass',
    },
    {
      id: 'BlockedResizes', suffix: 'blocked-resizes', metric: metrics.passCountForAlarm('StatefulSetsBlocked', period), threshold: 1,
      meaning: 'a change in Git cannot be applied: a guardrail, the quota, a class that cannot expand, a namespace not allowed, an operator that owns the set',
      firstStep: 'the "Needs action" table names the target, set and rule; `npx sts-volume-gitops plan` shows the limit at its file:line and where to raise it; change Git or the limit',
    },
    {
      id: 'ManifestErrors', suffix: 'manifest-errors', metric: metrics.passCountForAlarm('ManifestErrors', period), threshold: 1,
      meaning: 'a manifest in a target\'s paths cannot be read, so its StatefulSets are not planned; or the paths match no manifest at all (a target without size sources)',
      firstStep: 'the "Needs action" table (kind manifest) or `npx sts-volume-gitops plan` names the file:line, or the paths that match nothing and where the YAML files are; fix it in Git, or the target\'s paths',
    },
    {
      id: 'RefusedRecords', suffix: 'refused-records', metric: metrics.passCountForAlarm('RefusedRecreationRecords', period), threshold: 1,
      meaning: 'a pass found a recreation record it could not authenticate (no or a wrong MAC, claims that disagree, too old) and left it in place: someone else writes in the state namespace, or a record from before signing',
      firstStep: 'the "Needs action" table and a Warning Event RefusedRecreationRecord on the ConfigMap name it; README, "Recreation records", says what to do with it',
    },
    {
      // Once is a Prometheus blip (growth waits a pass); every period for an hour is a configuration to fix.
      id: 'UsageReadFailures', suffix: 'usage-read-failures', metric: metrics.passCountForAlarm('UsageReadFailures', period), threshold: 1, evaluationPeriods: 4, datapointsToAlarm: 4,
      meaning: 'passes of a target with usage configured could not read its volumes\' usage for an hour (Prometheus unreachable, refusing the credentials, or without the series for its claims): no growth is proposed for it meanwhile',
      firstStep: '`npx sts-volume-gitops check` for the target says whether Prometheus answers and has the series, and the relabelling or credentials to fix; the worker\'s "usage read failed" lines name the target and the failure',
    },
    {
      id: 'FailedTargets', suffix: 'failed-targets', metric: deadLetterArrivals(queues.failedMessages, 'New failed target messages'), threshold: 1, evaluationPeriods: 3,
      meaning: 'a target\'s pass failed on every receive and its message moved to FailedTargetMessages (one notification for arrivals within 15 minutes of each other; OK means none since, not an empty queue)',
      firstStep: 'read the worker\'s "target failed" lines for the target (Passes per target table), fix the cause, then purge the queue (the schedule queues a new pass anyway) or redrive it to run the pass now (README, "Dead-letter queues")',
    },
    {
      id: 'DeadLetters', suffix: 'dispatcher-dead-letters', threshold: 1,
      metric: queues.deadLetters.metricNumberOfMessagesSent({ period: deadLetterPeriod, statistic: 'Sum' }),
      meaning: 'a dispatcher invocation failed and Lambda sent its event to FailedInvocations: no target was queued for that schedule slot',
      firstStep: 'read the dispatcher\'s log, or the message\'s ErrorMessage attribute (README, "Dead-letter queues"); fix, then purge the queue: the next slot dispatches anyway',
    },
    {
      id: 'Errors', suffix: 'worker-errors', metric: subjects.worker.metricErrors({ period }), threshold: 1,
      meaning: 'a worker invocation crashed or timed out (a pass that failed is a batch item failure instead: failed-targets)',
      firstStep: 'open the worker\'s log group at the alarm\'s time: the lines before "Task timed out" or the stack trace',
    },
    {
      id: 'DispatcherErrors', suffix: 'dispatcher-errors', metric: subjects.dispatcher.metricErrors({ period }), threshold: 1,
      meaning: 'the dispatcher failed to queue the targets (unreadable config or SQS refused)',
      firstStep: 'read the dispatcher\'s log; the event also lands in FailedInvocations (dispatcher-dead-letters)',
    },
    ...(subjects.webhook ? [
      {
        id: 'WebhookErrors', suffix: 'webhook-errors', metric: subjects.webhook.metricErrors({ period }), threshold: 1,
        meaning: 'the webhook answered GitHub with an error (secret unreadable or SQS refused)',
        firstStep: 'read the webhook\'s log; redeliver from GitHub (Recent Deliveries) once fixed, or let the next scheduled pass do the work',
      },
      {
        id: 'WebhookRefused', suffix: 'webhook-refused', metric: metrics.refusedDeliveries(period), threshold: subjects.refusedDeliveries,
        meaning: `the webhook refused ${subjects.refusedDeliveries} or more deliveries within 15 minutes (bad or missing signature, a body that is not the event its header names, not JSON, too large, or not a POST): a webhook secret that differs from GitHub's, or someone else calling the URL`,
        firstStep: 'read the webhook\'s "webhook refused" lines (their reason); for bad-signature compare GitHub\'s webhook secret with the secret WebhookSecretArn names',
      },
    ] : []),
    {
      id: 'DurationNearTimeout', suffix: 'duration-near-timeout', threshold: Math.floor(subjects.workerTimeout.toMilliseconds() * 0.8),
      metric: subjects.worker.metricDuration({ period, statistic: 'Maximum' }),
      meaning: 'a pass ran past 80% of the worker timeout; passes that run out of time leave StatefulSets for the next one',
      firstStep: 'find the slow target in the Passes per target table and the worker log; raise the worker timeout or split the target',
    },
    {
      id: 'OldestMessage', suffix: 'oldest-message', threshold: subjects.oldestMessageAge.toSeconds(),
      metric: queues.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }),
      meaning: `a target has waited in the queue for ${subjects.oldestMessageAge.toHumanString()}: a failed pass waiting for its retry (received again ${subjects.retryAfter.toHumanString()} after it started; its cluster's group waits too), workers too few or too slow, or a cluster's group is stuck`,
      firstStep: 'look for "target failed" lines in the worker log; with none, raise workerConcurrency',
    },
  ];
  const action = new cloudwatchActions.SnsAction(subjects.topic);
  const stackName = Stack.of(scope).stackName;
  return specs.map((spec) => {
    const name = `${stackName}-${spec.suffix}`;
    const evaluationPeriods = spec.evaluationPeriods ?? 1;
    const alarm = new cloudwatch.Alarm(scope, spec.id, {
      alarmName: name, metric: spec.metric, threshold: spec.threshold, evaluationPeriods,
      ...(evaluationPeriods > 1 ? { datapointsToAlarm: spec.datapointsToAlarm ?? 1 } : {}),
      alarmDescription: `sts-volume-gitops: ${spec.meaning}. First: ${spec.firstStep}. Dashboard: ${subjects.dashboardUrl}`,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    // On call hears when it is resolved too, not only when it fires.
    alarm.addAlarmAction(action);
    alarm.addOkAction(action);
    return { alarm, name, meaning: spec.meaning, firstStep: spec.firstStep };
  });
}
