// Where the alarms go: an SNS topic (the one given, or a new SSL-only one), and an email address subscribed to it.
// An alarm nobody receives protects nothing, so one of them is required.
import { Validations } from 'aws-cdk-lib';
import * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';

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
