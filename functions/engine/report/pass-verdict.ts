// A pass's verdict: whether it needs a person, and for what. The one decision behind the CLI's exit code, the
// `verdict` of `--json` and the Lambda result, the worker's `Passes{outcome}` and failed/blocked counts, and its log
// lines. `PassReport.outcome` says only how far a pass got (every StatefulSet looked at, busy, out of time); a pass
// that got everywhere may still have found a resize that failed for good.
import { count } from '../../domain/spelling.ts';
import type { NoManifests, PassReport, RefusedRecord, StatefulSetOutcome, StatefulSetReport } from './pass-report.ts';
import { readsNothing } from '../desired/no-manifests.ts';

/** What a StatefulSet's outcome asks of a person: nothing, a change in Git or the config (blocked), or action (failed). */
export type Severity = 'blocked' | 'failed';

/**
 * Every StatefulSet outcome, judged. A new outcome fails the type check here until it is given its severity, so the
 * exit code, the metrics and the alarms learn of it together.
 */
export const statefulSetSeverity: Readonly<Record<StatefulSetOutcome, Severity | undefined>> = {
  'converged': undefined,
  'in-progress': undefined,
  'waiting': undefined,
  // The invocation ran out of time before this set: the pass is `incomplete` and the next one continues.
  'not-started': undefined,
  // Said by the plan (a note); whether a mapping to a set the cluster lacks is an error is `check`'s to say.
  'missing-in-cluster': undefined,
  'blocked': 'blocked',
  'namespace-not-allowed': 'blocked',
  'failed': 'failed',
  // A volume has waited for its node longer than `stalledAfter`: a pod must be (re)started or the node must expand it.
  'stalled': 'failed',
};

export type VerdictOutcome = 'ok' | 'busy' | 'incomplete' | Severity;

export type ProblemKind = 'statefulset' | 'manifest' | 'recreation-record' | 'target';

/** One thing a person must look at. `reason` is a short code from a bounded set (a metric dimension). */
export interface Problem {
  severity: Severity;
  kind: ProblemKind;
  reason: string;
  /** What it is about: `namespace/name` of a StatefulSet or a record's ConfigMap, `path:line` of a manifest, the target. */
  subject: string;
  message: string;
}

export interface PassVerdict {
  /** `failed` or `blocked` when any problem is (failed first); else how far the pass got. */
  outcome: VerdictOutcome;
  problems: Problem[];
}

/** What a run leaves to judge: its report (absent when it could not run, or for a pull request's validation alone) and its error. */
export interface JudgedRun {
  target: string;
  report: PassReport | undefined;
  error: string | undefined;
}

export function passVerdict(run: JudgedRun): PassVerdict {
  const report = run.report;
  const problems: Problem[] = [
    ...(report?.statefulSets ?? []).flatMap(statefulSetProblems),
    ...(report?.manifestErrors ?? []).map((e): Problem => ({
      severity: 'blocked', kind: 'manifest', reason: 'manifest-error', subject: `${e.path}:${e.line}`, message: e.message,
    })),
    ...noManifestsProblems(readsNothing(report?.noManifests)),
    ...(report?.refusedRecords ?? []).map((r): Problem => ({
      severity: 'failed', kind: 'recreation-record', reason: 'record-refused', subject: r.configMap, message: `${r.statefulSet}: ${r.reason}`,
    })),
    ...(report?.refusedRecordsLeftOut ? [leftOutRecordsProblem(report.refusedRecordsLeftOut, report.refusedRecords ?? [])] : []),
    ...(run.error !== undefined ? [{
      // With a report, the cluster side ran and a GitHub step failed after it; without one, the pass never ran.
      severity: 'failed', kind: 'target', reason: report ? 'github-step-failed' : 'pass-failed', subject: run.target, message: run.error,
    } satisfies Problem] : []),
  ];
  const outcome: VerdictOutcome = problems.some((p) => p.severity === 'failed') ? 'failed'
    : problems.some((p) => p.severity === 'blocked') ? 'blocked'
      // A validation of one pull request or merge queue commit runs no branch pass: its verdicts went to GitHub.
      : report?.outcome ?? 'ok';
  return { outcome, problems };
}

/**
 * One problem for the refused records the report counts but does not list (a flood of planted ConfigMaps), so that
 * whoever reads the problems, or the log lines made of them, learns how many there were.
 */
function leftOutRecordsProblem(leftOut: number, listed: readonly RefusedRecord[]): Problem {
  const namespaces = [...new Set(listed.map((r) => r.configMap.split('/')[0] ?? ''))];
  return {
    severity: 'failed', kind: 'recreation-record', reason: 'record-refused', subject: count(leftOut, 'more recreation record'),
    message: `${count(leftOut, 'more recreation record')} refused, left out of the report, which lists the first ${listed.length}`
      + `${namespaces.length === 1 ? `: \`kubectl get configmaps -n ${namespaces[0] ?? ''}\` shows them all` : ''}`,
  };
}

/** One problem per reason a set is failed or blocked (a set blocked by two rules counts under each); also the Warning Events of engine/report/problem-events.ts. */
export function statefulSetProblems(sts: StatefulSetReport): Problem[] {
  const severity = statefulSetSeverity[sts.outcome];
  if (severity === undefined) return [];
  const subject = `${sts.namespace}/${sts.name}`;
  const reasons = new Map<string, string>();
  const add = (reason: string, message: string): void => {
    if (!reasons.has(reason)) reasons.set(reason, message);
  };
  if (severity === 'blocked') {
    for (const template of sts.templates) {
      template.reasonCodes?.forEach((code, index) => add(code, `${template.templateName}: ${template.reasons[index] ?? code}`));
    }
    if (sts.blockedBy !== undefined) add(sts.blockedBy, sts.notes.at(-1) ?? sts.blockedBy);
  } else {
    for (const template of sts.templates) {
      for (const pvc of template.pvcs.filter((p) => p.state === 'failed')) {
        add(pvc.failedOn === 'class' ? 'class-modification-failed' : 'expansion-failed', `${pvc.name}: ${pvc.message ?? 'failed'}`);
      }
      for (const pvc of template.pvcs.filter((p) => p.state === 'stalled-on-node')) {
        add('node-expansion-stalled', `${pvc.name}: ${pvc.message ?? 'waiting for the node'}`);
      }
    }
  }
  // An outcome without a finer reason (one added later, say) is counted under its own name, never dropped.
  if (reasons.size === 0) add(sts.outcome, sts.notes.at(-1) ?? sts.outcome);
  return [...reasons].map(([reason, message]) => ({ severity, kind: 'statefulset', reason, subject, message }));
}

/** The StatefulSets a verdict finds failed or blocked, each counted once (whatever its number of reasons). */
export function statefulSetsWith(verdict: PassVerdict, severity: Severity): number {
  return new Set(verdict.problems.filter((p) => p.kind === 'statefulset' && p.severity === severity).map((p) => p.subject)).size;
}

/** The CLI's exit status for plan and reconcile: 1 when any run's verdict is blocked or failed. */
export function exitCodeOf(verdicts: readonly PassVerdict[]): 0 | 1 {
  return verdicts.some((v) => v.outcome === 'blocked' || v.outcome === 'failed') ? 1 : 0;
}

function noManifestsProblems(noManifests: NoManifests | undefined): Problem[] {
  if (!noManifests) return [];
  return [{ severity: 'blocked', kind: 'manifest', reason: 'no-manifests', subject: noManifests.paths.join(', '), message: noManifests.message }];
}
