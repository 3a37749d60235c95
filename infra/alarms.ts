// The alarms, each notifying the alarm topic and naming the dashboard to open (its console URL in the description).
import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as cloudwatchActions from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import * as sns from 'aws-cdk-lib/aws-sns';
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

/** Who receives the alarms; at least one is required (an alarm nobody receives protects nothing). */
export interface AlarmSubscriber {
  alarmTopic?: sns.ITopic;
  alarmTopicArn?: string;
  alarmEmail?: string;
}

export function requireAlarmSubscriber(subscriber: AlarmSubscriber): void {
  if (!subscriber.alarmTopic && !subscriber.alarmTopicArn && !subscriber.alarmEmail) {
    throw new Error('the alarms notify nobody: set alarmEmail (STS_ALARM_EMAIL for infra/app.ts) or an existing topic, alarmTopic or alarmTopicArn (STS_ALARM_TOPIC_ARN); see infra/README.md');
  }
}

/** The topic the alarms notify: the one given, or a new SSL-only topic; an email address is subscribed to it. */
export function alarmTopic(scope: Construct, subscriber: AlarmSubscriber): sns.ITopic {
  requireAlarmSubscriber(subscriber);
  const given = subscriber.alarmTopic ?? (subscriber.alarmTopicArn ? sns.Topic.fromTopicArn(scope, 'AlarmTopic', subscriber.alarmTopicArn) : undefined);
  const topic = given ?? new sns.Topic(scope, 'Alarms', { displayName: 'sts-volume-gitops alarms', enforceSSL: true });
  if (!given) {
    Validations.of(topic).acknowledge({
      id: 'NIST.800.53.R5-SNSEncryptedKMS',
      reason: 'The topic carries alarm names, states and descriptions, no secret and no cluster data. CloudWatch can publish to an encrypted topic only with a customer managed key whose policy admits cloudwatch.amazonaws.com: a key per stack for nothing worth hiding.',
    });
  }
  if (subscriber.alarmEmail) {
    const subscription = new sns.Subscription(scope, 'AlarmEmail', { topic, protocol: sns.SubscriptionProtocol.EMAIL, endpoint: subscriber.alarmEmail });
    Validations.of(subscription).acknowledge({
      id: 'Serverless-SNSRedrivePolicy',
      reason: 'An email subscription: a message SNS could not mail would land in a queue nobody reads; the alarm itself stays in ALARM on the dashboard until its cause is gone.',
    });
  }
  return topic;
}

export function stackAlarms(scope: Construct, subjects: AlarmSubjects): cloudwatch.Alarm[] {
  const action = new cloudwatchActions.SnsAction(subjects.topic);
  const alarms: cloudwatch.Alarm[] = [];
  const alarm = (id: string, description: string, metric: cloudwatch.IMetric, threshold: number): void => {
    const created = new cloudwatch.Alarm(scope, id, {
      metric, threshold, evaluationPeriods: 1, alarmDescription: `sts-volume-gitops: ${description}. Dashboard: ${subjects.dashboardUrl}`,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    created.addAlarmAction(action);
    alarms.push(created);
  };
  const period = Duration.minutes(15);
  const { queues } = subjects;
  alarm('Errors', 'a worker invocation failed (crashed or timed out; a failed pass is a batch item failure, see FailedTargetMessages)',
    subjects.worker.metricErrors({ period }), 1);
  alarm('DispatcherErrors', 'the dispatcher failed to queue the targets (unreadable config or SQS refused)',
    subjects.dispatcher.metricErrors({ period }), 1);
  if (subjects.webhook) {
    alarm('WebhookErrors', 'the webhook answered GitHub with an error (secret unreadable or SQS refused)', subjects.webhook.metricErrors({ period }), 1);
    alarm('WebhookRefused', `the webhook refused ${subjects.refusedDeliveries} or more deliveries within 15 minutes (bad or missing signature, a body that is not the event its header names, not JSON, too large, or not a POST): a webhook secret that differs from GitHub's, or someone else calling the URL; the webhook logs "webhook refused" with the reason`,
      subjects.metrics.refusedDeliveries(period), subjects.refusedDeliveries);
  }
  alarm('RefusedRecords', 'a pass found a recreation record it could not authenticate (no or a wrong MAC, claims that disagree, too old) and left it in place: someone or something else writes in the state namespace, or a record from before signing; the pass report and a Warning Event on the ConfigMap say which (README: Recreation records)',
    subjects.metrics.passCountForAlarm('RefusedRecreationRecords', period), 1);
  alarm('DurationNearTimeout', 'a pass ran past 80% of the worker timeout',
    subjects.worker.metricDuration({ period, statistic: 'Maximum' }), Math.floor(subjects.workerTimeout.toMilliseconds() * 0.8));
  alarm('DeadLetters', 'failed dispatcher invocations are waiting in the dead-letter queue',
    queues.deadLetters.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), 1);
  alarm('FailedTargets', 'a target failed its pass on every try; its message is in the dead-letter queue (see the worker logs)',
    queues.failedMessages.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(5), statistic: 'Maximum' }), 1);
  alarm('OldestMessage', `a target has waited in the queue for ${subjects.oldestMessageAge.toHumanString()}: a failed pass waiting for its retry (received again ${subjects.retryAfter.toHumanString()} after it started; its cluster's group waits too), workers too few or too slow, or a cluster's group is stuck`,
    queues.queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(5), statistic: 'Maximum' }), subjects.oldestMessageAge.toSeconds());
  return alarms;
}
