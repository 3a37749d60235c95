// Lambda entry for the EventBridge Scheduler invocation: one pass per configured target, each pass's summary logged
// (Powertools JSON) and its metrics published (EMF) as it ends, a plain-JSON result, and a thrown error naming the
// failed targets so that the invocation fails (Errors alarm, dead-letter queue). Thin on purpose: configuration,
// clients and decisions live elsewhere.
import { Logger } from '@aws-lambda-powertools/logger';
import type { Context } from 'aws-lambda';
import { loadConfig } from '../domain/config.ts';
import { runTargets, type TargetRun } from '../app/run-targets.ts';
import { targetRunJson, type TargetRunJson } from '../app/report-json.ts';
import { eksKubeConfig } from '../adapters/kube/eks-cluster.ts';
import { SecretReader } from '../adapters/github/secrets.ts';
import { createPassMetricsPublisher } from './publish-metrics.ts';

const serviceName = process.env.POWERTOOLS_SERVICE_NAME ?? 'sts-volume-gitops';
const logger = new Logger({ serviceName });
const publishPassMetrics = createPassMetricsPublisher({ serviceName });
// Module level: warm invocations reuse the cached secret value.
const secrets = new SecretReader();

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
    super(`${failed.length} target(s) failed: ${failed.map((f) => `${f.target} (${f.error})`).join('; ')}`);
    this.name = 'TargetsFailedError';
  }
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
    onRunFinished: (run) => {
      logRun(run);
      publishPassMetrics(run);
    },
    readSecret: (id) => secrets.readGitHubPrivateKey(id),
    eksKubeConfig: (cluster) => eksKubeConfig({
      clusterName: cluster.name, region: cluster.region, validForMs: context.getRemainingTimeInMillis(),
    }),
  });
  const failed = runs.flatMap((r) => (r.error !== undefined ? [{ target: r.target, error: r.error }] : []));
  if (failed.length > 0) throw new TargetsFailedError(failed);
  return { runs: runs.map(targetRunJson) };
}

function logRun(run: TargetRun): void {
  const json = targetRunJson(run);
  if (run.error !== undefined && !run.report) {
    logger.error('target failed', { target: run.target, error: run.error, durationMs: run.durationMs, apiCalls: json.apiCalls });
    return;
  }
  // A pass whose GitHub side failed still logs what it did in the cluster, at error level.
  (run.error !== undefined ? logger.error.bind(logger) : logger.info.bind(logger))(run.error !== undefined ? 'target failed after its pass' : 'pass finished', {
    ...(run.error !== undefined ? { error: run.error } : {}),
    ...((run.feedback?.failures.length ?? 0) > 0 ? { feedbackFailures: run.feedback?.failures } : {}),
    target: run.target, outcome: run.report?.outcome, commit: run.report?.commitSha, durationMs: run.durationMs, apiCalls: json.apiCalls,
    statefulSets: run.report?.statefulSets.map((s) => ({ name: `${s.namespace}/${s.name}`, outcome: s.outcome })),
    recovery: json.recovery?.outcomes.map((o) => ({ key: o.key, action: o.action, pullRequest: o.pullRequestUrl })),
    ...(run.deferred.length > 0 ? { deferred: run.deferred } : {}),
  });
  logger.debug('pass report', { target: run.target, run: json });
}
