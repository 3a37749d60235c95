// What `check` prints: per target, one line per result with its fix below, then the webhook's and a count (pure).
// Each line is made printable as a whole: what a result quotes from Git, the cluster or GitHub stays on its line.
import { printable } from '../domain/printable.ts';
import type { CheckResult, TargetCheck } from '../check/check-result.ts';
import { count } from '../domain/spelling.ts';

export interface CheckReport {
  targets: TargetCheck[];
  /** Not per target: the webhook, when one is deployed. */
  webhook: CheckResult[];
}

const marks = { ok: 'ok     ', warning: 'warning', error: 'error  ' } as const;

/** One line per result (`ok      cluster.version  v1.34.9: ...`), its fix indented below, then a count. */
export function renderCheckReport(report: CheckReport): string {
  const lines: string[] = [];
  const section = (title: string, results: readonly CheckResult[]): void => {
    lines.push(title);
    for (const result of results) {
      lines.push(`  ${marks[result.level]} ${result.id.padEnd(30)} ${result.subject}: ${result.message}`);
      if (result.fix !== undefined) lines.push(`  ${' '.repeat(7)} ${' '.repeat(30)} fix: ${result.fix}`);
    }
    lines.push('');
  };
  for (const check of report.targets) section(`target ${check.target}`, check.results);
  // The webhook's section only when something was checked (the demo checks no webhook, and says nothing of one).
  if (report.webhook.length > 0) section('webhook', report.webhook);
  const counts = countResults(report);
  lines.push(`${count(counts.error, 'error')}, ${count(counts.warning, 'warning')}, ${counts.ok} ok`);
  return `${lines.map(printable).join('\n')}\n`;
}

/** How many results of each level, targets and webhook together (the last line of the text, `counts` in --json). */
export function countResults(report: CheckReport): Record<CheckResult['level'], number> {
  const all = [...report.targets.flatMap((c) => c.results), ...report.webhook];
  const count = (level: CheckResult['level']): number => all.filter((r) => r.level === level).length;
  return { error: count('error'), warning: count('warning'), ok: count('ok') };
}
