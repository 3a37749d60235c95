// What one target's run counts for in CloudWatch: plain numbers derived from the run, published by the handler as EMF.
import type { TargetRun } from '../app/run-targets.ts';

export type PassOutcome = 'ok' | 'busy' | 'incomplete' | 'failed';

export interface PassMetrics {
  outcome: PassOutcome;
  durationMs: number;
  counts: {
    TargetsFailed: number;
    ResizesPlanned: number;
    ResizesApplied: number;
    ResizesBlocked: number;
    PvcPatches: number;
    Recreations: number;
    RecoveryPullRequestsOpened: number;
    RecoveryPullRequestsClosed: number;
    GitHubApiCalls: number;
    KubernetesApiCalls: number;
    /** GitHub steps left for the next pass (time or a rate limit). */
    DeferredSteps: number;
    /** Pull request checks, progress reports and recovery proposals that could not be published (each isolated). */
    GitHubItemsFailed: number;
    /** Recreation records found and not acted on (no valid MAC): someone else wrote them, or an older version did. */
    RefusedRecreationRecords: number;
  };
}

export function passMetrics(run: TargetRun): PassMetrics {
  const statefulSets = run.report?.statefulSets ?? [];
  const templates = statefulSets.flatMap((s) => s.templates.map((t) => ({ sts: s, template: t })));
  const applying = run.report?.mode === 'apply';
  const recoveryActions = (run.recovery?.outcomes ?? []).map((o) => o.action);
  return {
    outcome: run.error !== undefined ? 'failed' : run.report?.outcome ?? 'failed',
    durationMs: run.durationMs,
    counts: {
      TargetsFailed: run.error !== undefined ? 1 : 0,
      ResizesPlanned: templates.filter((t) => t.template.action === 'resize').length,
      // The live template now asks for the new size: updated in place or recreated during this pass.
      ResizesApplied: applying
        ? templates.filter((t) => t.template.action === 'resize' && (t.sts.templateUpdate === 'recreated' || t.sts.templateUpdate === 'updated-in-place')).length
        : 0,
      ResizesBlocked: templates.filter((t) => t.template.action === 'blocked').length,
      PvcPatches: run.apiCalls.pvcPatches,
      Recreations: statefulSets.filter((s) => s.templateUpdate === 'recreated').length,
      RecoveryPullRequestsOpened: recoveryActions.filter((a) => a === 'opened').length,
      RecoveryPullRequestsClosed: recoveryActions.filter((a) => a === 'closed').length,
      GitHubApiCalls: run.apiCalls.github,
      KubernetesApiCalls: run.apiCalls.kubernetes,
      DeferredSteps: run.deferred.length,
      GitHubItemsFailed: (run.feedback?.failures.length ?? 0) + recoveryActions.filter((a) => a === 'failed').length,
      RefusedRecreationRecords: run.report?.refusedRecords?.length ?? 0,
    },
  };
}
