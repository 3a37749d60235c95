// The usage part of a pass report for the terminal: where usage was read (or why it was not, with `!` as every problem
// is marked), each template's fullest replica, the growth proposed (and growth held back by a limit or a mistake), and
// the sizes Git should take back from the cluster. Pure.
import type { PassReport } from '../engine/report/pass-report.ts';
import type { GrowthDecision, ReplicaUsage, TemplateRef, TemplateUsage } from '../domain/volume-usage.ts';
import { count, daysSpelled, gib, percent } from '../domain/spelling.ts';

/** Growth decisions worth a line: a proposal, or none for a reason a person may act on (not "below the threshold"). */
const quietCodes = new Set(['below-threshold', 'growth-off', 'change-under-way', 'blocked', 'not-in-cluster']);

function name(ref: Pick<TemplateRef, 'namespace' | 'statefulSet' | 'template'>): string {
  return `${ref.namespace}/${ref.statefulSet} ${ref.template}`;
}

function replicaWords(replica: ReplicaUsage): string {
  const inodes = replica.inodesPercent !== undefined ? `, inodes ${percent(replica.inodesPercent)}` : '';
  const pace = replica.daysToFull !== undefined ? `, full in ${daysSpelled(replica.daysToFull)}` : '';
  return `${replica.claim} ${gib(replica.usedBytes)} of ${gib(replica.capacityBytes)} (${percent(replica.usedPercent)})${inodes}${pace}`;
}

function templateLine(usage: TemplateUsage): string {
  const [fullest] = [...usage.replicas].sort((a, b) => b.usedPercent - a.usedPercent);
  const unread = usage.unread.length > 0 ? `; no series for ${usage.unread.join(', ')}` : '';
  return `    ${name(usage)}: ${fullest ? `fullest ${replicaWords(fullest)}` : 'no replica read'}${unread}`;
}

function growthLine(decision: GrowthDecision): string | undefined {
  if (decision.action === 'none' && quietCodes.has(decision.code)) return undefined;
  const where = `${decision.storageLocation.path}:${decision.storageLocation.line}`;
  return `  ${decision.action === 'grow' ? 'growth' : '! growth'} ${name(decision)} (${where}): ${decision.sentence}`;
}

export function renderUsage(report: Pick<PassReport, 'usage' | 'growth' | 'writeBack'>): string[] {
  const lines: string[] = [];
  const usage = report.usage;
  if (usage?.outcome === 'failed') {
    lines.push(`  ! usage not read from ${usage.source}: ${usage.failure?.message ?? 'unknown failure'}; growth skipped this pass`);
  } else if (usage) {
    const volumes = usage.templates.reduce((sum, t) => sum + t.replicas.length, 0);
    lines.push(`  usage read from ${usage.source}: ${count(volumes, 'volume')} (${count(usage.queries, 'query', 'queries')})`);
    for (const warning of usage.warnings ?? []) lines.push(`    warning from Prometheus: ${warning}`);
    for (const template of usage.templates) lines.push(templateLine(template));
  }
  for (const decision of report.growth ?? []) {
    const line = growthLine(decision);
    if (line) lines.push(line);
  }
  for (const decision of report.writeBack ?? []) {
    lines.push(`  write back ${name(decision)} (${decision.storageLocation.path}:${decision.storageLocation.line}): ${decision.sentence}`);
  }
  return lines;
}
