// Lambda entry for the EventBridge Scheduler invocation: one pass per configured target, each pass's summary logged
// (Powertools JSON) and its metrics published (EMF) as it ends, a plain-JSON result, and a thrown error naming the
// failed targets so that the invocation fails (Errors alarm, dead-letter queue). Thin on purpose: configuration,
// clients and decisions live elsewhere.
import type { Context } from 'aws-lambda';
import { loadResolvedConfig } from '../app/resolve-clusters.ts';
import { runTargets } from '../app/run-targets.ts';
import { targetRunJson, type TargetRunJson } from '../app/report-json.ts';
import { lambdaRunOptions } from './lambda-run-options.ts';
import { logger } from './lambda-logger.ts';
import { ownAccount } from './own-account.ts';
import { count } from '../domain/spelling.ts';

/** EventBridge Scheduler delivers only the schedule's input JSON (not the EventBridge envelope). */
export interface ScheduledInput {
  source?: string;
  /** Run one target only (manual invocations). */
  target?: string;
  /** `plan` for a read-only pass. */
  mode?: 'plan' | 'apply';
}

export interface HandlerResult {
  runs: TargetRunJson[];
}

export class TargetsFailedError extends Error {
  constructor(readonly failed: ReadonlyArray<{ target: string; error: string }>) {
    super(`${count(failed.length, 'target')} failed: ${failed.map((f) => `${f.target} (${f.error})`).join('; ')}`);
    this.name = 'TargetsFailedError';
  }
}

export async function handler(input: ScheduledInput | null, context: Context): Promise<HandlerResult> {
  logger.addContext(context);
  const config = await loadResolvedConfig(undefined, process.env, ownAccount);
  const runs = await runTargets(config, {
    mode: input?.mode === 'plan' ? 'plan' : 'apply',
    ...(input?.target !== undefined ? { targetName: input.target } : {}),
    ...lambdaRunOptions(context),
  });
  const failed = runs.flatMap((r) => (r.error !== undefined ? [{ target: r.target, error: r.error }] : []));
  if (failed.length > 0) throw new TargetsFailedError(failed);
  return { runs: runs.map(targetRunJson) };
}
