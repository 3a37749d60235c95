// What every Lambda entry that runs passes shares: the per-pass log summary and EMF metrics, the GitHub App key from
// Secrets Manager and EKS access, all at module level so warm invocations reuse them.
import type { Context } from 'aws-lambda';
import type { RunTargetsOptions, TargetRun } from '../app/run-targets.ts';
import { targetRunJson } from '../app/report-json.ts';
import { eksKubeConfigOf } from '../adapters/kube/eks-cluster.ts';
import { createPassMetricsPublisher } from './publish-metrics.ts';
import { logger, serviceName } from './lambda-logger.ts';
import { passLogMessages } from './pass-log-messages.ts';
import { secrets } from './lambda-secrets.ts';
import { recordKeyFromSecret } from './record-key-secret.ts';
import { foreignVerdictWhy } from '../feedback/foreign-verdict-words.ts';
import { validateContext } from '../feedback/validate-pull-requests.ts';

const publishPassMetrics = createPassMetricsPublisher({ serviceName });

/** The run options of one invocation: everything but the mode and the target. */
export function lambdaRunOptions(context: Context): Omit<RunTargetsOptions, 'mode'> {
  return {
    holderIdentity: `lambda-${context.awsRequestId}`,
    remainingMs: () => context.getRemainingTimeInMillis(),
    onEvent: (target, line) => logger.info(line, { target }),
    onRunFinished: (run) => {
      logRun(run);
      publishPassMetrics(run);
    },
    readSecret: (id) => secrets.readGitHubPrivateKey(id),
    readRecordKey: async (id) => recordKeyFromSecret(id, await secrets.readString(id)),
    readSecretText: (id) => secrets.readString(id),
    eksKubeConfig: (cluster) => eksKubeConfigOf(cluster, `sts-volume-gitops-${context.awsRequestId}`, { validForMs: context.getRemainingTimeInMillis() }),
  };
}

function logRun(run: TargetRun): void {
  const json = targetRunJson(run);
  const verdict = json.verdict;
  if (run.error !== undefined && !run.report) {
    logger.error(passLogMessages.targetFailed, { target: run.target, outcome: verdict.outcome, error: run.error, durationMs: run.durationMs, apiCalls: json.apiCalls });
    return;
  }
  // A pass whose GitHub side failed still logs what it did in the cluster, at error level; one that found a set failed
  // or blocked logs at error or warning level, and a line per problem (its target, set and reason: the metrics carry
  // no target dimension, see publish-metrics.ts).
  const level = verdict.outcome === 'failed' ? 'error' : verdict.outcome === 'blocked' ? 'warn' : 'info';
  const log = (line: string, attributes: Record<string, unknown>): void => { logger[level](line, attributes); };
  log(run.error !== undefined ? passLogMessages.targetFailedAfterPass : passLogMessages.finished, {
    ...(run.error !== undefined ? { error: run.error } : {}),
    ...((run.feedback?.failures.length ?? 0) > 0 ? { feedbackFailures: run.feedback?.failures } : {}),
    target: run.target, outcome: verdict.outcome, reportOutcome: run.report?.outcome, commit: run.report?.commitSha, durationMs: run.durationMs, apiCalls: json.apiCalls,
    ...(run.report?.heldBy ? { heldBy: run.report.heldBy } : {}),
    // Per target, for the dashboard's "Volumes near full" table (the metric has no target dimension).
    ...(run.report?.usage?.nearFull !== undefined ? { volumesNearFull: run.report.usage.nearFull } : {}),
    statefulSets: run.report?.statefulSets.map((s) => ({ name: `${s.namespace}/${s.name}`, outcome: s.outcome })),
    recovery: json.recovery?.outcomes.map((o) => ({ key: o.key, kind: o.kind, action: o.action, pullRequest: o.pullRequestUrl, ...(o.action === 'failed' ? { reason: o.reason } : {}) })),
    ...(json.growth ? { growth: json.growth.outcomes.map((o) => ({ key: o.key, action: o.action, pullRequest: o.pullRequestUrl, ...(o.action === 'failed' ? { reason: o.reason } : {}) })) } : {}),
    ...(run.deferred.length > 0 ? { deferred: run.deferred } : {}),
  });
  for (const problem of verdict.problems.filter((p) => p.kind !== 'target')) {
    logger[problem.severity === 'failed' ? 'error' : 'warn'](passLogMessages.needsAction, {
      target: run.target, severity: problem.severity, kind: problem.kind, reason: problem.reason, subject: problem.subject, detail: problem.message,
    });
  }
  for (const check of run.feedback?.checks ?? []) {
    for (const verdict of check.foreign) {
      logger.warn(passLogMessages.foreignVerdict, {
        target: run.target, pullRequest: check.number, commit: check.headSha, context: validateContext(run.target), kind: verdict.kind, by: verdict.by,
        state: verdict.state, ...(verdict.description !== undefined ? { description: verdict.description } : {}), fix: foreignVerdictWhy,
      });
    }
  }
  const usage = run.report?.usage;
  if (usage?.outcome === 'failed') {
    logger.warn(passLogMessages.usageReadFailed, { target: run.target, source: usage.source, kind: usage.failure?.kind, status: usage.failure?.status, detail: usage.failure?.message });
  }
  logger.debug('pass report', { target: run.target, run: json });
}
