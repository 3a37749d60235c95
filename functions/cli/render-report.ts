// Human-readable pass reports for the terminal, in the spirit of `terraform plan`: what would change, what is
// blocked and why, with file:line so the reader can jump to the value. Each line is made printable as a whole: a name,
// a path or a message from Git or the cluster cannot break it, start another, or act on the terminal.
import { printable } from '../domain/printable.ts';
import { change, count, monthly, showSize, unitPrice } from '../domain/spelling.ts';
import type { CostSummary, PassReport, StatefulSetReport, TemplateReport } from '../engine/run-pass.ts';
import { templateUpdateWords } from '../engine/records/resume.ts';
import { changeKind, willChangeKind } from '../feedback/change-words.ts';
import { doneCount, outcomeWords, pvcWords } from '../feedback/glossary.ts';
import { sizeChangeWords } from '../feedback/size-change-words.ts';
import { templateKey } from '../proposals/lifecycle/identity.ts';
import { outcomeLine } from '../proposals/outcome-line.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';
import { renderUsage } from './render-usage.ts';

/** The report, with what became of the pass's proposals (its recovery pull requests) under their templates. */
export function renderPassReport(report: PassReport, proposals: readonly ProposalOutcome[] = []): string {
  return reportLines(report, proposals).map(printable).join('\n');
}

function reportLines(report: PassReport, proposals: readonly ProposalOutcome[]): string[] {
  const lines: string[] = [];
  const verb = report.mode === 'plan' ? 'Plan' : 'Reconcile';
  lines.push(`${verb} for target ${report.target} at commit ${report.commitSha.slice(0, 12)}`);
  if (report.outcome === 'busy') {
    // Who holds the target, since and until when; then the sets whose changes wait for it.
    lines.push(`  busy: ${report.notes.join('; ')}`);
    for (const sts of report.statefulSets) lines.push(...renderStatefulSet(sts, report.cost, report.mode, proposals));
    return lines;
  }
  if (report.server) {
    lines.push(`  server ${report.server.version}`);
    if (report.mode === 'plan') for (const capability of report.server.capabilities) lines.push(`    ${capability}`);
  }
  for (const error of report.manifestErrors) {
    lines.push(`  ! ${error.path}:${error.line}:${error.column}: ${error.message}${error.jsonPath ? ` (at ${error.jsonPath})` : ''}`);
  }
  if (report.noManifests) lines.push(`  ! ${report.noManifests.message}`);
  else if (report.statefulSets.length === 0) lines.push('  no StatefulSets in the target paths');
  for (const sts of report.statefulSets) lines.push(...renderStatefulSet(sts, report.cost, report.mode, proposals));
  // A proposal whose template the report does not show (closed because it left Git): said after the sets.
  const shown = new Set(report.statefulSets.flatMap((s) => s.templates.map((t) => templateKey({ namespace: s.namespace, statefulSet: s.name, template: t.templateName }))));
  for (const outcome of proposals.filter((o) => !shown.has(o.key))) lines.push(`  ${outcome.key}: ${outcomeLine(outcome, 'terminal')}`);
  for (const note of report.notes) lines.push(`  note: ${note}`);
  lines.push(...renderUsage(report));
  lines.push(summaryLine(report));
  if (report.cost) {
    const unpriced = report.cost.unpricedClasses.length > 0 ? ` (not counted: no price for StorageClass ${report.cost.unpricedClasses.join(', ')})` : '';
    lines.push(`  storage cost of the resizes: ${monthly(report.cost.monthlyIncrease, report.cost.currency)}${unpriced}`);
  }
  return lines;
}

/** A planned change says what it will do (a read-only pass has done nothing yet); anything else, its outcome's word. */
function outcomeText(sts: StatefulSetReport, mode: PassReport['mode']): string {
  return isPlannedChange(sts, mode) ? willChangeKind(changeKind(sts.templates.filter((t) => t.action === 'resize'))) : outcomeWords[sts.outcome];
}

function isPlannedChange(sts: StatefulSetReport, mode: PassReport['mode']): boolean {
  return mode === 'plan' && sts.outcome === 'in-progress' && sts.templates.some((t) => t.action === 'resize');
}

function renderStatefulSet(sts: StatefulSetReport, cost: CostSummary | undefined, mode: PassReport['mode'], proposals: readonly ProposalOutcome[]): string[] {
  const symbol = { converged: '=', 'in-progress': '~', blocked: 'x', failed: 'x', stalled: '!', waiting: '…', 'missing-in-cluster': '?', 'namespace-not-allowed': 'x', 'not-started': '-' }[sts.outcome];
  const setCost = cost?.statefulSets.find((c) => c.namespace === sts.namespace && c.name === sts.name);
  const costWords = setCost ? `, ${monthly(setCost.monthlyIncrease, setCost.currency)}` : '';
  const replicas = sts.replicas === undefined ? '? replicas' : count(sts.replicas, 'replica');
  const lines = [`  ${symbol} ${sts.namespace}/${sts.name} (${sts.podManagementPolicy}, ${replicas}): ${outcomeText(sts, mode)}${sts.templateUpdate ? ` (template ${templateUpdateWords[sts.templateUpdate]})` : ''}${costWords}`];
  for (const template of sts.templates) {
    const where = `${template.storageLocation.path}:${template.storageLocation.line}`;
    const size = template.volumesFrom !== undefined ? sizeChangeWords(template, 'terminal')
      : template.from === undefined || template.from === template.desiredSize ? template.desiredSize : change(template.from, template.desiredSize, 'terminal');
    const klass = template.storageClassName === undefined ? 'no class'
      : `${template.storageClassName}${template.storageClassExpandable === false ? ' (not expandable)' : ''}`;
    const classChange = template.volumeAttributesClass ? `, class ${change(template.volumeAttributesClass.from ?? '(none)', template.volumeAttributesClass.to ?? '(none)', 'terminal')}`
      : template.desiredClass !== undefined ? `, class ${template.desiredClass}` : '';
    lines.push(`      ${template.templateName}: ${size}${classChange} [${klass}] ${doneCount(template)}  (${where})`);
    if (template.cost) lines.push(`        cost: ${costOfTemplate(template.cost)}`);
    for (const reason of template.reasons) lines.push(`        blocked: ${reason}`);
    for (const note of template.serverNotes ?? []) lines.push(`        server: ${note}`);
    const key = templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName });
    for (const outcome of proposals.filter((o) => o.key === key)) lines.push(`        ${outcomeLine(outcome, 'terminal')}`);
    for (const pvc of template.pvcs) {
      if (pvc.state === 'done' && template.finished) continue;
      const vac = pvc.volumeAttributesClass;
      const sizes = `request ${pvc.request ?? '?'}, capacity ${pvc.capacity ?? '?'}`
        + (vac ? `, class ${vac.requested ?? '(none)'}, volume ${vac.current ?? '(none)'}${vac.modifyStatus ? ` (${vac.modifyStatus})` : ''}` : '');
      lines.push(`        ${pvc.name}: ${pvcWords(sts, template, pvc)} (${sizes})${pvc.message ? `: ${pvc.message}` : ''}`);
    }
  }
  for (const note of sts.notes) lines.push(`      note: ${note}`);
  return lines;
}

function costOfTemplate(cost: NonNullable<TemplateReport['cost']>): string {
  const growth = `${showSize(cost.growth)} more on ${cost.storageClassName ?? 'no class'}`;
  return cost.monthlyIncrease === undefined || cost.pricePerGiBMonth === undefined ? `${growth}, no price for the class in prices.perGiBMonth`
    : `${monthly(cost.monthlyIncrease, cost.currency)} (${growth} at ${unitPrice(cost.pricePerGiBMonth, cost.currency)})`;
}

/** `1 converged, 3 will change, 0 in progress, ...`: the sets counted by outcome (what will change only in a plan). */
function summaryLine(report: PassReport): string {
  const planned = report.statefulSets.filter((s) => isPlannedChange(s, report.mode));
  const sets = report.statefulSets.filter((s) => !planned.includes(s));
  const number = (...outcomes: Array<StatefulSetReport['outcome']>): number => sets.filter((s) => outcomes.includes(s.outcome)).length;
  return `  ${number('converged')} converged, ${report.mode === 'plan' ? `${planned.length} will change, ` : ''}${number('in-progress', 'waiting')} in progress, `
    + `${number('blocked', 'failed', 'namespace-not-allowed')} blocked or failed, ${number('stalled')} stalled, ${number('missing-in-cluster')} missing, `
    + count(report.manifestErrors.length, 'manifest error');
}
