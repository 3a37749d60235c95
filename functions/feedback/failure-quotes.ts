// The words a report quotes for a template's failed claims, in the cluster's own words: each claim's condition first
// (ControllerResizeError, ModifyVolumeError: conditions outlive Events), then the Events of the attempt that failed
// (TemplateReport.failureEvents holds no other). Shared by the progress comment and the recovery pull requests. Pure.
import type { TemplateReport } from '../engine/report/pass-report.ts';

type FailureKind = 'size' | 'class';

function failedClaims(template: Pick<TemplateReport, 'pvcs'>, kind: FailureKind | undefined): TemplateReport['pvcs'] {
  return template.pvcs.filter((p) => p.state === 'failed' && (kind === undefined || (p.failedOn ?? 'size') === kind));
}

/** `data-web-0: ControllerResizeError: failed to expand pvc with rpc error: ...`, then `data-web-0: VolumeResizeFailed: ...`. */
export function failureQuotes(template: Pick<TemplateReport, 'pvcs' | 'failureEvents'>, kind?: FailureKind): string[] {
  const claims = failedClaims(template, kind);
  const names = new Set(claims.map((p) => p.name));
  const lines = [
    ...claims.flatMap((p) => {
      if (p.condition) return [`${p.name}: ${p.condition.type}${p.condition.reason ? ` (${p.condition.reason})` : ''}: ${p.condition.message}`];
      return p.message ? [`${p.name}: ${p.message}`] : [];
    }),
    ...template.failureEvents.filter((e) => names.has(e.pvcName)).map((e) => `${e.pvcName}: ${e.reason}: ${e.message}`),
  ];
  return [...new Set(lines)];
}

/** When the failed attempt began: the earliest start among the failed claims (their error condition's time). */
export function failureSince(template: Pick<TemplateReport, 'pvcs' | 'failureEvents'>, kind?: FailureKind): string | undefined {
  const claims = failedClaims(template, kind);
  const names = new Set(claims.map((p) => p.name));
  const dated = claims.map((p) => p.since).filter((t): t is string => t !== undefined);
  // Without a condition's date (a pre-1.31 cluster), the attempt's Events date it.
  const times = dated.length > 0 ? dated
    : template.failureEvents.filter((e) => names.has(e.pvcName)).map((e) => e.lastTimestamp).filter((t): t is string => t !== undefined);
  return times.sort()[0];
}
