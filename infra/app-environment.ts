// What `cdk synth` reads from the environment besides the configuration file (infra/README.md), checked before the
// stack is built so that a missing or wrong setting is said as a message, as a configuration error is, never as a
// stack trace. Pure.
import * as logs from 'aws-cdk-lib/aws-logs';

/** Every problem with the app's environment variables, each saying what to set; empty when synth can go on. */
export function appEnvironmentProblems(env: Readonly<Record<string, string | undefined>>): string[] {
  const problems: string[] = [];
  // The stack refuses alarms nobody receives (alarm-topic.ts); said here in the variables' names.
  if (!env.STS_ALARM_EMAIL && !env.STS_ALARM_TOPIC_ARN) {
    problems.push('the alarms notify nobody: set STS_ALARM_EMAIL (an address to subscribe) or STS_ALARM_TOPIC_ARN (an existing SNS topic); see infra/README.md');
  }
  const retention = env.STS_LOG_RETENTION_DAYS;
  if (retention && !(Object.values(logs.RetentionDays) as unknown[]).includes(Number(retention))) {
    problems.push(`STS_LOG_RETENTION_DAYS must be a CloudWatch Logs retention (1, 3, 5, 7, 14, 30, 60, 90, ...), got ${retention}`);
  }
  return problems;
}
