// The marker at the start of each StatefulSet line of `plan` and `reconcile` (`~ db/pg (...)`), and what each means:
// one table for the report's lines (render-report.ts) and the legend in `plan --help` and README.
import type { StatefulSetOutcome } from '../engine/report/pass-report.ts';

export const outcomeMarkers: Readonly<Record<StatefulSetOutcome, string>> = {
  'converged': '=', 'in-progress': '~', 'blocked': 'x', 'failed': 'x', 'namespace-not-allowed': 'x', 'stalled': '!',
  'waiting': '…', 'missing-in-cluster': '?', 'not-started': '-',
};

/** The legend, a marker and its meaning each, in the order a reader meets them most. */
export const markerLegend: ReadonlyArray<readonly [string, string]> = [
  ['~', 'will change (a plan), or in progress'],
  ['=', 'converged: nothing to do'],
  ['x', 'blocked, or failed for good (exit code 1)'],
  ['!', 'stalled, or a manifest the pass cannot read (exit code 1)'],
  ['…', 'waiting (the old StatefulSet object being deleted, a pod to run)'],
  ['?', 'in Git, missing in the cluster'],
  ['-', 'not started: the run ran out of time'],
];

/** `~ will change (a plan), or in progress; = converged: ...`, on one line. */
export function markerLegendLine(): string {
  return `Markers: ${markerLegend.map(([marker, meaning]) => `${marker} ${meaning}`).join('; ')}.`;
}
