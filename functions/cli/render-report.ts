// Human-readable pass reports for the terminal, in the spirit of `terraform plan`: what would change, what is
// blocked and why, with file:line so the reader can jump to the value.
import { formatMoney } from '../domain/volume-cost.ts';
import type { CostSummary, PassReport, StatefulSetReport, TemplateReport } from '../engine/run-pass.ts';
import { sizeChangeWords } from '../feedback/size-change-words.ts';

const stateWords: Record<TemplateReport['pvcs'][number]['state'], string> = {
  'missing': 'not created yet',
  'waiting-for-pod': 'waiting for pod',
  'to-patch': 'to patch',
  'patched': 'patched, waiting for the resizer',
  'resizing-controller': 'resizing on controller',
  'waiting-for-node': 'waiting for the node to expand the file system',
  'resizing-node': 'resizing on node',
  'stalled-on-node': 'STALLED',
  'retrying': 'retrying after a transient error',
  'in-progress-other-size': 'held back: another expansion in progress',
  'modifying': 'modifying the volume to its class',
  'class-pending': 'modification not started (class Pending)',
  'done': 'done',
  'failed': 'failed',
};

export function renderPassReport(report: PassReport): string {
  const lines: string[] = [];
  const verb = report.mode === 'plan' ? 'Plan' : 'Reconcile';
  lines.push(`${verb} for target ${report.target} at commit ${report.commitSha.slice(0, 12)}`);
  if (report.outcome === 'busy') {
    lines.push(`  busy: ${report.notes.join('; ')}`);
    return lines.join('\n');
  }
  if (report.server) {
    lines.push(`  server ${report.server.version}`);
    if (report.mode === 'plan') for (const capability of report.server.capabilities) lines.push(`    ${capability}`);
  }
  for (const error of report.manifestErrors) {
    lines.push(`  ! ${error.path}:${error.line}:${error.column}: ${error.message}${error.jsonPath ? ` (at ${error.jsonPath})` : ''}`);
  }
  if (report.statefulSets.length === 0) lines.push('  no StatefulSets in the target paths');
  for (const sts of report.statefulSets) lines.push(...renderStatefulSet(sts, report.cost));
  for (const note of report.notes) lines.push(`  note: ${note}`);
  lines.push(summaryLine(report));
  if (report.cost) {
    const unpriced = report.cost.unpricedClasses.length > 0 ? ` (not counted: no price for StorageClass ${report.cost.unpricedClasses.join(', ')})` : '';
    lines.push(`  storage cost of the resizes: ${formatMoney(report.cost.monthlyIncrease, report.cost.currency)} a month${unpriced}`);
  }
  return lines.join('\n');
}

function renderStatefulSet(sts: StatefulSetReport, cost: CostSummary | undefined): string[] {
  const symbol = { converged: '=', 'in-progress': '~', blocked: 'x', failed: 'x', stalled: '!', waiting: '…', 'missing-in-cluster': '?', 'namespace-not-allowed': 'x', 'not-started': '-' }[sts.outcome];
  const setCost = cost?.statefulSets.find((c) => c.namespace === sts.namespace && c.name === sts.name);
  const costWords = setCost ? `, ${formatMoney(setCost.monthlyIncrease, setCost.currency)} a month` : '';
  const lines = [`  ${symbol} ${sts.namespace}/${sts.name} (${sts.podManagementPolicy}, ${sts.replicas ?? '?'} replicas): ${sts.outcome}${sts.templateUpdate ? `, template ${sts.templateUpdate}` : ''}${costWords}`];
  for (const template of sts.templates) {
    const where = `${template.storageLocation.path}:${template.storageLocation.line}`;
    const change = template.volumesFrom !== undefined ? sizeChangeWords(template)
      : template.from === undefined || template.from === template.desiredSize ? template.desiredSize : `${template.from} -> ${template.desiredSize}`;
    const klass = template.storageClassName === undefined ? 'no class'
      : `${template.storageClassName}${template.storageClassExpandable === false ? ' (not expandable)' : ''}`;
    const classChange = template.volumeAttributesClass ? `, class ${template.volumeAttributesClass.from ?? '(none)'} -> ${template.volumeAttributesClass.to ?? '(none)'}`
      : template.desiredClass !== undefined ? `, class ${template.desiredClass}` : '';
    lines.push(`      ${template.templateName}: ${change}${classChange} [${klass}] ${template.readyReplicas}/${template.replicas} ready  (${where})`);
    if (template.cost) lines.push(`        cost: ${costOfTemplate(template.cost)}`);
    for (const reason of template.reasons) lines.push(`        blocked: ${reason}`);
    for (const note of template.serverNotes ?? []) lines.push(`        server: ${note}`);
    for (const pvc of template.pvcs) {
      if (pvc.state === 'done' && template.finished) continue;
      const vac = pvc.volumeAttributesClass;
      const sizes = `request ${pvc.request ?? '?'}, capacity ${pvc.capacity ?? '?'}`
        + (vac ? `, class ${vac.requested ?? '(none)'}, volume ${vac.current ?? '(none)'}${vac.modifyStatus ? ` (${vac.modifyStatus})` : ''}` : '');
      lines.push(`        ${pvc.name}: ${stateWords[pvc.state]} (${sizes})${pvc.message ? `: ${pvc.message}` : ''}`);
    }
  }
  for (const note of sts.notes) lines.push(`      note: ${note}`);
  return lines;
}

function costOfTemplate(cost: NonNullable<TemplateReport['cost']>): string {
  const growth = `${cost.growth} more on ${cost.storageClassName ?? 'no class'}`;
  return cost.monthlyIncrease === undefined ? `${growth}, no price for the class in prices.perGiBMonth`
    : `${formatMoney(cost.monthlyIncrease, cost.currency)} a month (${growth} at ${cost.pricePerGiBMonth} ${cost.currency}/GiB-month)`;
}

function summaryLine(report: PassReport): string {
  const count = (outcome: StatefulSetReport['outcome']): number => report.statefulSets.filter((s) => s.outcome === outcome).length;
  return `  ${count('converged')} converged, ${count('in-progress') + count('waiting')} in progress, `
    + `${count('blocked') + count('failed') + count('namespace-not-allowed')} blocked or failed, ${count('stalled')} stalled, ${count('missing-in-cluster')} missing, `
    + `${report.manifestErrors.length} manifest error(s)`;
}
