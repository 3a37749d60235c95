// Which claims a size recovery is about: those whose expansion the driver refused for good. Pure.
import type { TemplateReport } from '../../engine/report/pass-report.ts';

/**
 * A terminal expansion failure (a refused class modification has its own recovery: class-recovery.ts). A template Git
 * moved on from it to a size above the driver's maximum is blocked, but its claims still ask for the size that failed:
 * the recovery goes on, from Git's new value (issue 35: one recovery per template, never one closed for a blocked size).
 */
export function hasTerminalFailure(template: TemplateReport): boolean {
  return (template.action !== 'blocked' || blockedByDriverMaximumOnly(template)) && failedForGood(template).length > 0;
}

export function blockedByDriverMaximumOnly(template: TemplateReport): boolean {
  const codes = template.reasonCodes ?? [];
  return template.action === 'blocked' && codes.length > 0 && codes.every((code) => code === 'above-driver-maximum');
}

/** The claims refused for good: failed now, or (Git asking above the maximum, blocked) still asking for what failed. */
export function failedForGood(template: TemplateReport): TemplateReport['pvcs'] {
  const blocked = blockedByDriverMaximumOnly(template);
  return template.pvcs.filter((p) => p.terminal && p.failedOn !== 'class' && (p.state === 'failed' || (blocked && p.state === 'to-patch')));
}
