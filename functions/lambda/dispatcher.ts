// Lambda entry the schedule invokes: one `pass` message per configured target on the target queue (grouped by
// cluster, deduplicated per schedule slot), so that each target runs in its own worker invocation and none waits
// behind the others. Invoked with anything but the schedule's input (`aws lambda invoke` to have passes run now), it
// deduplicates per invocation instead. Sends nothing else and runs no pass. A message SQS refuses fails the invocation.
import type { Context } from 'aws-lambda';
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { requestedMessages, scheduledMessages } from '../app/target-messages.ts';
import { targetQueueFromEnvironment, type TargetQueue } from '../adapters/aws/target-queue.ts';
import { logger } from './lambda-logger.ts';
import { ownAccount } from './own-account.ts';

/** Minutes between scheduled passes, set by the stack: the deduplication slot. */
export const scheduleMinutesVariable = 'STS_VOLUME_GITOPS_SCHEDULE_MINUTES';

/** What the schedule sends the dispatcher (infra/schedule.ts); any other input is a person asking for passes now. */
export const scheduleInput = { source: 'schedule' } as const;

function isScheduled(input: unknown): boolean {
  return typeof input === 'object' && input !== null && (input as { source?: unknown }).source === scheduleInput.source;
}

export interface DispatchResult {
  enqueued: Array<{ target: string; group: string }>;
}

export function createDispatcher(deps: { queue: () => TargetQueue; now?: () => number; env?: NodeJS.ProcessEnv; ownAccount?: () => Promise<string> }) {
  return async (input: unknown, context: Context): Promise<DispatchResult> => {
    logger.addContext(context);
    const env = deps.env ?? process.env;
    const minutes = Number(env[scheduleMinutesVariable] ?? '5');
    // One cluster, one message group, whichever way targets name it (app/resolve-clusters.ts).
    const config = await loadResolvedConfig(undefined, env, deps.ownAccount ?? ownAccount);
    const messages = isScheduled(input)
      ? scheduledMessages(config, (deps.now ?? Date.now)(), minutes * 60_000)
      : requestedMessages(config, context.awsRequestId);
    await deps.queue().send(messages);
    const enqueued = messages.map((m) => ({ target: m.body.target, group: m.groupId }));
    logger.info('targets enqueued', { count: enqueued.length, targets: enqueued.map((e) => e.target) });
    return { enqueued };
  };
}

let queue: TargetQueue | undefined;
export const handler = createDispatcher({ queue: () => (queue ??= targetQueueFromEnvironment()) });
