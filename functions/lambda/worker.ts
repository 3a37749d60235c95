// Lambda entry for the target queue (SQS event source, batch size 1): one pass per message, `pass` (apply, then
// recovery and feedback) or `validate` (read-only: pull request checks from reads and dry runs, no cluster write).
// A message that cannot run, or whose target failed, is reported as a batch item failure: SQS retries it after the
// visibility timeout and moves it to the dead-letter queue after the stack's maxReceiveCount.
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { ownAccount } from './own-account.ts';
import { runTargets } from '../app/run-targets.ts';
import { parseTargetMessage } from '../app/target-messages.ts';
import { lambdaRunOptions } from './lambda-run-options.ts';
import { logger } from './lambda-logger.ts';

export function createWorker(deps: { env?: NodeJS.ProcessEnv; ownAccount?: () => Promise<string> } = {}) {
  return async (event: SQSEvent, context: Context): Promise<SQSBatchResponse> => {
    logger.addContext(context);
    const failures: SQSBatchResponse['batchItemFailures'] = [];
    for (const record of event.Records) {
      try {
        const message = parseTargetMessage(record.body);
        const config = await loadResolvedConfig(undefined, deps.env ?? process.env, deps.ownAccount ?? ownAccount);
        const [run] = await runTargets(config, {
          ...lambdaRunOptions(context), ...(deps.env ? { env: deps.env } : {}),
          mode: message.action === 'validate' ? 'validate' : 'apply', targetName: message.target,
          ...(message.mergeGroup ? { mergeGroup: message.mergeGroup } : {}),
          ...(message.pullRequest !== undefined ? { pullRequest: message.pullRequest } : {}),
          ...(message.rerun ? { rerun: message.rerun } : {}),
        });
        if (run?.error !== undefined) failures.push({ itemIdentifier: record.messageId });
      } catch (error) {
        // The body is not logged: it is only a key, and the error names what was wrong with it.
        logger.error('message failed', { messageId: record.messageId, error: error instanceof Error ? error.message : String(error) });
        failures.push({ itemIdentifier: record.messageId });
      }
    }
    return { batchItemFailures: failures };
  };
}

export const handler = createWorker();
