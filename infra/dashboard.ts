// The operations dashboard (issue 25): the alarms and their runbook, what the passes did and what needs a person, what
// they cost in API calls, what the webhook took and refused, and whether the queue drains. Per-target rows come from the
// worker's log lines (Logs Insights): the metrics carry no target dimension, which would cost a custom metric per
// target and count; the failed and blocked counts carry a `reason`, a bounded set.
import { Duration, Token, type Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import type * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { passLogMessages } from '../functions/lambda/pass-log-messages.ts';
import type { StackAlarm } from './alarms.ts';
import { passCountNames, passOutcomes, type EmittedMetrics } from './metrics.ts';
import type { TargetQueues } from './queue.ts';

export interface DashboardSubjects {
  name: string;
  metrics: EmittedMetrics;
  worker: lambda.IFunction;
  workerLogs: logs.ILogGroup;
  dispatcher: lambda.IFunction;
  webhook: lambda.IFunction | undefined;
  queues: TargetQueues;
  alarms: readonly StackAlarm[];
}

/** The dashboard's name: the stack's, and its region's (dashboards are global to an account). */
export function dashboardName(stack: Stack): string {
  return Token.isUnresolved(stack.region) ? stack.stackName : `${stack.stackName}-${stack.region}`;
}

/** The console URL of a dashboard, for alarm descriptions and the stack output. */
export function dashboardUrl(stack: Stack, name: string): string {
  return `https://console.aws.amazon.com/cloudwatch/home?region=${stack.region}#dashboards/dashboard/${name}`;
}

/** The Logs Insights query of the per-target table: passes by target and result, from the worker's log lines. */
export const passesByTargetQuery = [
  'fields coalesce(outcome, "-") as passOutcome',
  `filter message = "${passLogMessages.finished}" or message like /^${passLogMessages.targetFailed}/`,
  'stats count(*) as passes by target, message, passOutcome',
  'sort target asc',
];

/** The Logs Insights query of what needs a person, per target: the worker's line per failed or blocked set, manifest, record. */
const needsActionQuery = [
  `filter message = "${passLogMessages.needsAction}"`,
  'stats count(*) as passes, max(@timestamp) as lastSeen by target, severity, kind, subject, reason',
  'sort severity desc, target asc',
];

/** The Logs Insights query of volumes near full per target: what each target's last pass that read usage counted. */
const nearFullQuery = [
  `filter message = "${passLogMessages.finished}" and ispresent(volumesNearFull)`,
  'stats latest(volumesNearFull) as nearFull, max(@timestamp) as lastRead by target',
  'sort nearFull desc, target asc',
];

/** The runbook, one line per alarm: what it means and what to do first (the same words as its description). */
function runbookMarkdown(alarms: readonly StackAlarm[]): string {
  const cell = (text: string): string => text.replaceAll('|', '\\|');
  return ['## Runbook', '', '| Alarm | What it means | What to do first |', '| --- | --- | --- |',
    ...alarms.map((a) => `| ${cell(a.name)} | ${cell(a.meaning)} | ${cell(a.firstStep)} |`)].join('\n');
}

export function operationsDashboard(scope: Construct, subjects: DashboardSubjects): cloudwatch.Dashboard {
  const { metrics, queues } = subjects;
  const graph = (title: string, left: cloudwatch.IMetric[], width = 8): cloudwatch.GraphWidget =>
    new cloudwatch.GraphWidget({ title, left, width, height: 6, period: metrics.period });
  const lambdas = [subjects.worker, subjects.dispatcher, ...(subjects.webhook ? [subjects.webhook] : [])];
  const minute = Duration.minutes(1);
  const dashboard = new cloudwatch.Dashboard(scope, 'Dashboard', { dashboardName: subjects.name, defaultInterval: Duration.days(1) });
  dashboard.addWidgets(new cloudwatch.AlarmStatusWidget({ title: 'Alarms', alarms: subjects.alarms.map((a) => a.alarm), width: 24, height: 3 }));
  dashboard.addWidgets(new cloudwatch.TextWidget({ markdown: runbookMarkdown(subjects.alarms), width: 24, height: 2 + subjects.alarms.length }));
  dashboard.addWidgets(
    graph('StatefulSets failed or blocked (total, and by reason)', [
      metrics.passCount('StatefulSetsFailed'), metrics.passCount('StatefulSetsBlocked'), metrics.passCount('ManifestErrors'),
      metrics.byReason('StatefulSetsFailed'), metrics.byReason('StatefulSetsBlocked'),
    ], 8),
    new cloudwatch.LogQueryWidget({
      title: 'Needs action, per target (worker logs)', logGroupNames: [subjects.workerLogs.logGroupName], queryLines: needsActionQuery,
      view: cloudwatch.LogQueryVisualizationType.TABLE, width: 16, height: 6,
    }),
  );
  dashboard.addWidgets(
    graph('Passes by outcome', passOutcomes.map((outcome) => metrics.passes(outcome))),
    graph('Failed targets (pass or GitHub step failed)', [metrics.passCount('TargetsFailed'), metrics.passCount('GitHubItemsFailed')]),
    graph('Pass duration (ms)', [metrics.passDuration('Average'), metrics.passDuration('Maximum')]),
  );
  dashboard.addWidgets(new cloudwatch.LogQueryWidget({
    title: 'Passes per target (worker logs)', logGroupNames: [subjects.workerLogs.logGroupName], queryLines: passesByTargetQuery,
    view: cloudwatch.LogQueryVisualizationType.TABLE, width: 24, height: 6,
  }));
  dashboard.addWidgets(
    graph('Resizes', [metrics.passCount('ResizesPlanned'), metrics.passCount('ResizesApplied'), metrics.passCount('ResizesBlocked'), metrics.passCount('Recreations')]),
    graph('PVC patches', [metrics.passCount('PvcPatches')]),
    graph('Pull requests proposed: opened and closed, by kind (recovery, growth, write-back)', [
      metrics.passCount('ProposalPullRequestsOpened', 'opened (all kinds)'), metrics.passCount('ProposalPullRequestsClosed', 'closed (all kinds)'),
      metrics.byKind('ProposalPullRequestsOpened'), metrics.byKind('ProposalPullRequestsClosed'),
    ]),
  );
  dashboard.addWidgets(
    graph('Volumes near full (the most one pass saw), usage read failures', [
      metrics.passMaximum('VolumesNearFull', 'Volumes at or above the growth threshold'), metrics.passCount('UsageReadFailures', 'Passes that could not read usage (growth skipped)'),
    ]),
    new cloudwatch.LogQueryWidget({
      title: 'Volumes near full, per target (worker logs)', logGroupNames: [subjects.workerLogs.logGroupName], queryLines: nearFullQuery,
      view: cloudwatch.LogQueryVisualizationType.TABLE, width: 16, height: 6,
    }),
  );
  dashboard.addWidgets(
    graph('API calls', [metrics.passCount('KubernetesApiCalls'), metrics.passCount('GitHubApiCalls')]),
    graph('Throttles: Lambda invocations, GitHub steps deferred', [
      ...lambdas.map((fn) => fn.metricThrottles({ period: metrics.period, statistic: 'Sum', label: `${fn.node.id} throttles` })),
      metrics.passCount('DeferredSteps', 'Deferred GitHub steps (time or rate limit)'),
    ]),
    ...(subjects.webhook ? [graph('Webhook deliveries: queued, repeated (an id queued before), refused by reason', [
      metrics.webhookSeries('queued'), metrics.webhookSeries('repeated'), metrics.webhookSeries('refused'),
    ])] : []),
  );
  // A count added to the passes' metrics later gets a graph without anyone listing it here.
  const undrawn = passCountNames.filter((name) => !metrics.countsUsed.has(name));
  if (undrawn.length > 0) dashboard.addWidgets(graph('Other pass counts', undrawn.map((name) => metrics.passCount(name)), 24));
  dashboard.addWidgets(
    graph('Oldest queued target (s)', [queues.queue.metricApproximateAgeOfOldestMessage({ period: minute, statistic: 'Maximum', label: 'Targets' })], 12),
    graph('Dead-letter queues', [
      queues.failedMessages.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum', label: 'FailedTargetMessages' }),
      queues.deadLetters.metricApproximateNumberOfMessagesVisible({ period: minute, statistic: 'Maximum', label: 'FailedInvocations' }),
    ], 12),
  );
  return dashboard;
}
