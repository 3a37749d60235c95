// Lambda entry for the EventBridge Scheduler invocation: one pass per configured target, structured JSON logs and a
// JSON report. Thin on purpose: configuration, clients and decisions live elsewhere.
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { loadConfig } from '../domain/config.ts';
import { runTargets, type TargetRun } from '../app/run-targets.ts';
import { eksKubeConfig } from '../adapters/kube/eks-cluster.ts';
import { readSecretString } from '../adapters/github/secrets.ts';

const logger = new Logger({ serviceName: 'sts-volume-gitops' });

/** EventBridge Scheduler delivers only the schedule's input JSON (not the EventBridge envelope). */
export interface ScheduledInput {
  source?: string;
  /** Run one target only (manual invocations). */
  target?: string;
  /** `plan` for a read-only pass. */
  mode?: 'plan' | 'apply';
}

export interface HandlerResult {
  ok: boolean;
  runs: TargetRun[];
}

export async function handler(input: ScheduledInput | null, context: Context): Promise<HandlerResult> {
  logger.addContext(context);
  const config = await loadConfig(undefined);
  const runs = await runTargets(config, {
    mode: input?.mode === 'plan' ? 'plan' : 'apply',
    ...(input?.target !== undefined ? { targetName: input.target } : {}),
    holderIdentity: `lambda-${context.awsRequestId}`,
    remainingMs: () => context.getRemainingTimeInMillis(),
    onEvent: (target, line) => logger.info(line, { target }),
    readSecret: (id) => readSecretString(id),
    eksKubeConfig: (cluster) => eksKubeConfig({ clusterName: cluster.name, region: cluster.region }),
  });
  for (const run of runs) {
    if (run.error !== undefined) logger.error('target failed', { target: run.target, error: run.error });
    else {
      logger.info('pass finished', {
        target: run.target, outcome: run.report?.outcome, commit: run.report?.commitSha,
        statefulSets: run.report?.statefulSets.map((s) => ({ name: `${s.namespace}/${s.name}`, outcome: s.outcome })),
      });
      logger.debug('pass report', { target: run.target, report: run.report });
    }
  }
  return { ok: runs.every((r) => r.error === undefined), runs };
}
