// The schedule that starts the passes: EventBridge Scheduler invokes the dispatcher from a schedule group of the
// stack's own, so the role trusts Scheduler for that group only (confused deputy). Made by stack.ts.
import { Validations, type Stack } from 'aws-cdk-lib';
import * as iam from 'aws-cdk-lib/aws-iam';
import type * as nodejs from 'aws-cdk-lib/aws-lambda-nodejs';
import * as scheduler from 'aws-cdk-lib/aws-scheduler';
import { scheduleInput } from '../functions/lambda/dispatcher.ts';

/** The schedule's settings (the stack's props of the same names, `everyMinutes` with its default applied). */
export interface DispatchScheduleOptions {
  everyMinutes: number;
  flexibleWindowMinutes?: number;
  scheduleRetryAttempts?: number;
  scheduleMaximumEventAgeSeconds?: number;
}

/** Invokes the dispatcher every `everyMinutes` (EventBridge Scheduler), through a role only this stack's group may use. */
export function dispatchSchedule(stack: Stack, dispatcher: nodejs.NodejsFunction, props: DispatchScheduleOptions): void {
  const everyMinutes = props.everyMinutes;
  // The stack's own schedule group, so the role trusts EventBridge Scheduler only for schedules of this group in this
  // account (confused deputy: Scheduler's aws:SourceArn is the schedule group, never a schedule).
  const group = new scheduler.CfnScheduleGroup(stack, 'ScheduleGroup', {});
  const schedulerRole = new iam.Role(stack, 'SchedulerRole', {
    assumedBy: new iam.ServicePrincipal('scheduler.amazonaws.com').withConditions({
      StringEquals: { 'aws:SourceAccount': stack.account, 'aws:SourceArn': group.attrArn },
    }),
  });
  // Exactly the dispatcher, not its versions (grantInvoke would add `arn:*`).
  schedulerRole.addToPolicy(new iam.PolicyStatement({ actions: ['lambda:InvokeFunction'], resources: [dispatcher.functionArn] }));
  Validations.of(schedulerRole).acknowledge({
    id: 'NIST.800.53.R5-IAMNoInlinePolicy',
    reason: 'The role has one policy of its own, lambda:InvokeFunction on the dispatcher, made with the role; a customer managed policy would grant the same.',
  });
  const window = props.flexibleWindowMinutes;
  if (window !== undefined && (!Number.isInteger(window) || window < 1 || window > 1440)) throw new Error(`flexibleWindowMinutes must be a whole number from 1 to 1440, got ${window}`);
  new scheduler.CfnSchedule(stack, 'Schedule', {
    groupName: group.ref,
    scheduleExpression: everyMinutes === 1 ? 'rate(1 minute)' : `rate(${everyMinutes} minutes)`,
    flexibleTimeWindow: window === undefined ? { mode: 'OFF' } : { mode: 'FLEXIBLE', maximumWindowInMinutes: window },
    description: 'Queues one sts-volume-gitops pass per configured target',
    target: {
      arn: dispatcher.functionArn,
      roleArn: schedulerRole.roleArn,
      input: JSON.stringify(scheduleInput),
      retryPolicy: { maximumRetryAttempts: props.scheduleRetryAttempts ?? 0, maximumEventAgeInSeconds: props.scheduleMaximumEventAgeSeconds ?? 300 },
    },
  });
}
