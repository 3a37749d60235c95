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
import { waysOutAtMaximum } from '../engine/volumes/at-driver-maximum.ts';
import { heldWords, reasonsWithWriteBack } from '../feedback/write-back-words.ts';
import { templateKey } from '../proposals/lifecycle/identity.ts';
import { outcomeLine } from '../proposals/outcome-line.ts';
import type { ProposalOutcome } from '../proposals/proposal.ts';
import { renderUsage } from './render-usage.ts';
import { outcomeMarkers } from './plan-markers.ts';
import { fitLine, paint, plainStyle, type TerminalStyle, type Tone } from './terminal-style.ts';
import { statefulSetSeverity } from '../engine/report/pass-verdict.ts';

export interface PassRenderOptions {
  style?: TerminalStyle;
  /** Only what went wrong: manifest errors and the sets blocked, failed or stalled; nothing when there is none. */
  quiet?: boolean;
  /** What became of the pass's proposals (its recovery pull requests), shown under their templates. */
  proposals?: readonly ProposalOutcome[];
}

/** Sets --quiet shows: those whose outcome asks something of a person (the verdict's severities). */
function needsPerson(sts: StatefulSetReport): boolean {
  return statefulSetSeverity[sts.outcome] !== undefined;
}

/** The report, each line printable, fitted to the style (cut and wrapped on a terminal), its marker coloured. */
export function renderPassReport(report: PassReport, options: PassRenderOptions = {}): string {
  const proposals = options.proposals ?? [];
  const lines = options.quiet ? problemLines(report, proposals) : reportLines(report, proposals);
  return fitReport(lines.map(printable), options.style ?? plainStyle);
}

/** The report's problems alone, under its header: no line when there is none. */
function problemLines(report: PassReport, proposals: readonly ProposalOutcome[]): string[] {
  const problems = [
    ...report.manifestErrors.map((error) => `  ! ${error.path}:${error.line}:${error.column}: ${error.message}`),
    ...(report.noManifests ? [`  ! ${report.noManifests.message}`] : []),
    ...report.statefulSets.filter(needsPerson).flatMap((sts) => renderStatefulSet(sts, report.cost, report.mode, proposals)),
  ];
  if (problems.length === 0) return [];
  return [`${report.mode === 'plan' ? 'Plan' : 'Reconcile'} for target ${report.target} at commit ${report.commitSha.slice(0, 12)}`, ...problems];
}

function fitReport(lines: readonly string[], style: TerminalStyle): string {
  return lines.flatMap((line) => {
    const marker = /^ {2}([~=x!…?-]) /.exec(line)?.[1];
    const [first = '', ...rest] = fitLine(line, style);
    if (marker === undefined) return [first, ...rest];
    return [`  ${paint(style, markerTone[marker] ?? 'info', marker)}${first.slice(3)}`, ...rest];
  }).join('\n');
}

const markerTone: Readonly<Record<string, Tone>> = { '~': 'change', '=': 'ok', 'x': 'error', '!': 'error', '…': 'info', '?': 'warning', '-': 'info' };

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

/** Whether a plan has a change to apply (`~ ... will resize`): `plan --detailed-exitcode` exits 2 then. */
export function hasPlannedChanges(report: PassReport): boolean {
  return report.statefulSets.some((sts) => isPlannedChange(sts, report.mode));
}

function renderStatefulSet(sts: StatefulSetReport, cost: CostSummary | undefined, mode: PassReport['mode'], proposals: readonly ProposalOutcome[]): string[] {
  const symbol = outcomeMarkers[sts.outcome];
  const setCost = cost?.statefulSets.find((c) => c.namespace === sts.namespace && c.name === sts.name);
  const costWords = setCost ? `, ${monthly(setCost.monthlyIncrease, setCost.currency)}` : '';
  // A set the pass could not read (not in the cluster, a namespace it may not read) has no replicas to count.
  const replicas = sts.replicas === undefined ? '' : `, ${count(sts.replicas, 'replica')}`;
  const lines = [`  ${symbol} ${sts.namespace}/${sts.name} (${sts.podManagementPolicy}${replicas}): ${outcomeText(sts, mode)}${sts.templateUpdate ? ` (template ${templateUpdateWords[sts.templateUpdate]})` : ''}${costWords}`];
  for (const template of sts.templates) {
    const where = `${template.storageLocation.path}:${template.storageLocation.line}`;
    const size = template.volumesFrom !== undefined ? sizeChangeWords(template, 'terminal')
      : template.from === undefined || template.from === template.desiredSize ? template.desiredSize : change(template.from, template.desiredSize, 'terminal');
    const klass = template.storageClassName === undefined ? 'no class'
      : `${template.storageClassName}${template.storageClassExpandable === false ? ' (not expandable)' : template.reasonCodes?.includes('storage-class-missing') ? ' (not in the cluster)' : ''}`;
    const classChange = template.volumeAttributesClass ? `, class ${change(template.volumeAttributesClass.from ?? '(none)', template.volumeAttributesClass.to ?? '(none)', 'terminal')}`
      : template.desiredClass !== undefined ? `, class ${template.desiredClass}` : '';
    lines.push(`      ${template.templateName}: ${size}${classChange} [${klass}]${sts.replicas === undefined ? '' : ` ${doneCount(template)}`}  (${where})`);
    // A blocked change that would add nothing (a shrink) has no cost to tell.
    if (template.cost && !(template.action === 'blocked' && addsNothing(template.cost))) lines.push(`        cost: ${costOfTemplate(template.cost)}`);
    const key = templateKey({ namespace: sts.namespace, statefulSet: sts.name, template: template.templateName });
    const writeBack = proposals.find((o) => o.key === key && o.kind === 'write-back' && o.action !== 'closed')?.pullRequestUrl;
    for (const reason of reasonsWithWriteBack(template, writeBack)) lines.push(`        blocked: ${reason}`);
    const held = heldWords(template, writeBack);
    if (held !== undefined) lines.push(`        held: ${held}`);
    if (template.atDriverMaximum) {
      lines.push(`        ${template.atDriverMaximum.noSizeCanSucceed}`);
      for (const way of waysOutAtMaximum(template.desiredSize, template.atDriverMaximum.volumes)) lines.push(`          - ${way}`);
    }
    for (const note of template.serverNotes ?? []) lines.push(`        server: ${note}`);
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

function addsNothing(cost: NonNullable<TemplateReport['cost']>): boolean {
  return cost.monthlyIncrease === 0 || /^0(\D|$)/.test(cost.growth);
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
