// What `check` prints: per target, one line per result with its fix below, then the webhook's and a count (pure). On a
// terminal (terminal-style.ts) messages are cut to their first clause and wrapped, fixes wrapped whole, and the levels
// coloured; --quiet keeps the errors alone. Each line is made printable before it is fitted and coloured: what a result
// quotes from Git, the cluster or GitHub stays on its line.
import { printable } from '../domain/printable.ts';
import type { CheckLevel, CheckResult, TargetCheck } from '../check/check-result.ts';
import { count } from '../domain/spelling.ts';
import { fitLine, paint, plainStyle, type TerminalStyle } from './terminal-style.ts';

export interface CheckReport {
  targets: TargetCheck[];
  /** Not per target: the webhook, when one is deployed. */
  webhook: CheckResult[];
}

export interface CheckRenderOptions {
  style?: TerminalStyle;
  /** Errors only: no ok, warning or info line, no section without an error (the count stays). */
  quiet?: boolean;
}

const marks: Readonly<Record<CheckLevel, string>> = { ok: 'ok     ', info: 'info   ', warning: 'warning', error: 'error  ' };
const idWidth = 30;
/** Where a result's subject starts: two spaces, the level, a space, the id column, a space. */
const messageColumn = 2 + 7 + 1 + idWidth + 1;

/** One line per result (`ok      cluster.version  v1.34.9: ...`), its fix indented below, then a count. */
export function renderCheckReport(report: CheckReport, options: CheckRenderOptions = {}): string {
  const style = options.style ?? plainStyle;
  const lines: string[] = [];
  let cut = false;
  const section = (title: string, all: readonly CheckResult[]): void => {
    const results = options.quiet ? all.filter((r) => r.level === 'error') : all;
    if (options.quiet && results.length === 0) return;
    lines.push(printable(title));
    for (const result of results) {
      const line = printable(`  ${marks[result.level]} ${result.id.padEnd(idWidth)} ${result.subject}: ${result.message}`);
      // What is well takes a line; what is wrong, up to two.
      const fitted = fitLine(line, style, { messageStart: messageColumn, lines: result.level === 'ok' || result.level === 'info' ? 1 : 2 });
      if (fitted.join(' ').replace(/\s+/g, ' ') !== line.replace(/\s+/g, ' ')) cut = true;
      const [first = '', ...rest] = fitted;
      lines.push(`  ${paint(style, result.level, marks[result.level])}${first.slice(2 + marks[result.level].length)}`, ...rest);
      // A fix is what to do: wrapped, never cut.
      if (result.fix !== undefined) lines.push(...fitLine(printable(`${' '.repeat(messageColumn)}fix: ${result.fix}`), style, { messageStart: messageColumn + 5, cut: false }));
    }
    lines.push('');
  };
  for (const check of report.targets) section(`target ${check.target}`, check.results);
  // The webhook's section only when something was checked (the demo checks no webhook, and says nothing of one).
  if (report.webhook.length > 0) section('webhook', report.webhook);
  const counts = countResults(report);
  const errors = paint(style, counts.error > 0 ? 'error' : 'ok', count(counts.error, 'error'));
  const warnings = counts.warning > 0 ? paint(style, 'warning', count(counts.warning, 'warning')) : count(counts.warning, 'warning');
  lines.push(`${errors}, ${warnings}, ${counts.ok} ok${counts.info > 0 ? `, ${counts.info} info` : ''}${cut ? ' (lines cut short: --verbose or --json for every detail)' : ''}`);
  return `${lines.join('\n')}\n`;
}

/** How many results of each level, targets and webhook together (the last line of the text, `counts` in --json). */
export function countResults(report: CheckReport): Record<CheckLevel, number> {
  const all = [...report.targets.flatMap((c) => c.results), ...report.webhook];
  const number = (level: CheckLevel): number => all.filter((r) => r.level === level).length;
  return { error: number('error'), warning: number('warning'), ok: number('ok'), info: number('info') };
}
