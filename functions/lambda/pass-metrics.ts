// What one target's run counts for in CloudWatch: plain numbers derived from the run, published by the handler as EMF.
// The outcome and the failed and blocked counts are the pass's verdict (engine/report/pass-verdict.ts), as the CLI's exit code.
import { proposalOutcomes, type TargetRun } from '../app/run-targets.ts';
import { refusedRecordCount } from '../engine/report/pass-report.ts';
import { passVerdict, statefulSetsWith, type Severity, type VerdictOutcome } from '../engine/report/pass-verdict.ts';
import type { ProposalKindName } from '../proposals/lifecycle/identity.ts';
import { pullRequestCounts } from '../proposals/lifecycle/outcome-counts.ts';

export type PassOutcome = VerdictOutcome;

/** Every outcome `Passes` is published with (the dashboard draws one line each). */
export const passOutcomes: readonly PassOutcome[] = ['ok', 'busy', 'incomplete', 'blocked', 'failed'];

/** The counts also published per `reason` (a bounded set: the plan's block codes, how a resize failed). */
const countsByReason = { failed: 'StatefulSetsFailed', blocked: 'StatefulSetsBlocked' } as const satisfies Record<Severity, string>;
export type ReasonCountName = (typeof countsByReason)[Severity];

/** The counts also published per proposal `kind` (a bounded set: the lifecycle's kinds). */
export const countsByKind = { opened: 'ProposalPullRequestsOpened', closed: 'ProposalPullRequestsClosed' } as const;
export type KindCountName = (typeof countsByKind)[keyof typeof countsByKind];

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
    /** Pull requests the tool's proposals opened and closed, every kind (recovery, growth, write-back); per kind in `byKind`. */
    ProposalPullRequestsOpened: number;
    ProposalPullRequestsClosed: number;
    /** Templates that need growth and get none: at `growth.max` or a guardrail (the report's `! growth` line says which). */
    GrowthAtLimit: number;
    GitHubApiCalls: number;
    KubernetesApiCalls: number;
    /** GitHub steps left for the next pass (time or a rate limit). */
    DeferredSteps: number;
    /** Pull request checks, progress reports and recovery proposals that could not be published (each isolated). */
    GitHubItemsFailed: number;
    /** Recreation records found and not acted on (no valid MAC): someone else wrote them, or an older version did. */
    RefusedRecreationRecords: number;
    /** StatefulSets whose resize failed for good (a volume expansion or class modification the backend refused). */
    StatefulSetsFailed: number;
    /** StatefulSets whose change in Git cannot be applied (a guardrail, the quota, a class that cannot expand, ...). */
    StatefulSetsBlocked: number;
    /**
     * Manifests in the target's paths the pass could not read (their StatefulSets were not planned), and paths that match
     * no manifest at all on a target without size sources: the verdict's manifest problems, so its alarm fires for both.
     */
    ManifestErrors: number;
    /** A pass whose target reads usage and could not (Prometheus unreachable, refusing, or without the series): growth skipped. */
    UsageReadFailures: number;
    /** Volumes at or above their set's growth threshold, bytes or inodes (a count per pass of one target: graph its maximum). */
    VolumesNearFull: number;
  };
  /** The failed and blocked StatefulSets per reason (a set with two reasons counts under each); only reasons present. */
  byReason: Array<{ name: ReasonCountName; reason: string; value: number }>;
  /** The pull requests opened and closed per proposal kind; only kinds and counts present. */
  byKind: Array<{ name: KindCountName; kind: ProposalKindName; value: number }>;
}

export function passMetrics(run: TargetRun): PassMetrics {
  const statefulSets = run.report?.statefulSets ?? [];
  const templates = statefulSets.flatMap((s) => s.templates.map((t) => ({ sts: s, template: t })));
  const applying = run.report?.mode === 'apply';
  const proposals = proposalOutcomes(run);
  const perKind = pullRequestCounts(proposals);
  const sum = (action: keyof typeof countsByKind): number => perKind.reduce((total, count) => total + count[action], 0);
  const verdict = passVerdict(run);
  const byReason = new Map<string, { name: ReasonCountName; reason: string; value: number }>();
  for (const problem of verdict.problems.filter((p) => p.kind === 'statefulset')) {
    const name = countsByReason[problem.severity];
    const entry = byReason.get(`${name}/${problem.reason}`) ?? { name, reason: problem.reason, value: 0 };
    entry.value += 1;
    byReason.set(`${name}/${problem.reason}`, entry);
  }
  return {
    outcome: verdict.outcome,
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
      ProposalPullRequestsOpened: sum('opened'),
      ProposalPullRequestsClosed: sum('closed'),
      GrowthAtLimit: (run.report?.growth ?? []).filter((g) => g.action === 'none' && (g.code === 'at-max' || g.code === 'at-guardrail')).length,
      GitHubApiCalls: run.apiCalls.github,
      KubernetesApiCalls: run.apiCalls.kubernetes,
      DeferredSteps: run.deferred.length,
      GitHubItemsFailed: (run.feedback?.failures.length ?? 0) + proposals.filter((o) => o.action === 'failed').length,
      RefusedRecreationRecords: run.report ? refusedRecordCount(run.report) : 0,
      StatefulSetsFailed: statefulSetsWith(verdict, 'failed'),
      StatefulSetsBlocked: statefulSetsWith(verdict, 'blocked'),
      ManifestErrors: verdict.problems.filter((p) => p.kind === 'manifest').length,
      UsageReadFailures: run.report?.usage?.outcome === 'failed' ? 1 : 0,
      VolumesNearFull: run.report?.usage?.nearFull ?? 0,
    },
    byReason: [...byReason.values()],
    byKind: perKind.flatMap((count) => (['opened', 'closed'] as const).flatMap((action) => (count[action] > 0 ? [{ name: countsByKind[action], kind: count.kind, value: count[action] }] : []))),
  };
}
