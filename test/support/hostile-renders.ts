// Each field of the tool's reports a hostile string can reach (names, paths, classes, messages from the API server and
// the driver, notes), and every text the renderers of functions/feedback/ and functions/proposals/ make of it: the plan
// comment (also a check run's summary), the progress comment, and the bodies of both kinds of recovery pull request.
import type { LocatedError } from '../../functions/domain/desired-state.ts';
import type { StatefulSetReport, TemplateReport } from '../../functions/engine/run-pass.ts';
import { renderPlanComment } from '../../functions/feedback/render-plan-comment.ts';
import { renderProgressComment } from '../../functions/feedback/render-progress.ts';
import { classRecoveryBody, sizeRecoveryBody } from '../../functions/proposals/recovery/recovery-texts.ts';
import { composeBody, type BodyFrame } from '../../functions/proposals/body/compose-body.ts';
import { footerSection } from '../../functions/proposals/body/footer.ts';

export const links = { htmlBase: 'https://github.com', owner: 'acme', repo: 'gitops' };
export const repoLink = 'https://github.com/acme/gitops/blob/';

export function template(overrides: Partial<TemplateReport> = {}): TemplateReport {
  return {
    templateName: 'data', desiredSize: '20Gi', commitSha: 'a'.repeat(40), replicas: 2, readyReplicas: 0, action: 'blocked', from: '10Gi',
    storageClassName: 'standard', storageClassExpandable: true, finished: false, justFinished: false, reasons: ['blocked for a reason'],
    pvcs: [{ name: 'data-pg-0', ordinal: 0, state: 'failed', request: '20Gi', capacity: '10Gi', message: 'resize failed', terminal: true, since: '2026-01-01T00:00:00Z' }],
    storageLocation: { path: 'k8s/pg.yaml', line: 29, column: 22 },
    quota: [{ quota: 'storage-quota', resource: 'requests.storage', used: '10Gi', growth: '10Gi', limit: '100Gi' }],
    failureEvents: [{ pvcName: 'data-pg-0', reason: 'VolumeResizeFailed', message: 'driver said no', lastTimestamp: '2026-01-01T00:00:00Z' } as TemplateReport['failureEvents'][number]],
    ...overrides,
  };
}

export function statefulSet(overrides: Partial<StatefulSetReport> = {}, templateOverrides: Partial<TemplateReport> = {}): StatefulSetReport {
  return {
    namespace: 'db', name: 'pg', outcome: 'failed', podManagementPolicy: 'OrderedReady', replicas: 2, templateUpdate: undefined,
    templates: [template(templateOverrides)], notes: [], ...overrides,
  };
}

export interface Rendered { markdown: string; description: string }

export function plan(sts: StatefulSetReport, errors: LocatedError[] = [], target = 'demo'): Rendered {
  return renderPlanComment({ target, headSha: 'b'.repeat(40), links, statefulSets: [sts], errors });
}

export function progress(sts: StatefulSetReport, target = 'demo'): Rendered {
  return renderProgressComment({
    target, sts, commitSha: 'c'.repeat(40),
    recoveryNotes: new Map([[`${sts.namespace}/${sts.name}/${sts.templates[0]?.templateName ?? ''}`, { 'size-recovery': 'data-pg-0 already reached 20Gi' }]]),
  });
}

function both(sts: StatefulSetReport): Rendered[] {
  return [plan(sts), progress(sts)];
}

/** The marker a recovery pull request's body starts with (the tool's own HTML comment). */
export const recoveryMarker = '<!-- sts-volume-gitops:proposal kind=size-recovery key=db/pg/data from=20Gi to=15Gi -->';

/** The frame the lifecycle puts around a body: the marker, the change table (the file path is quoted there too) and the footer. */
function frame(path: string, field: 'storage' | 'volumeAttributesClassName', from: string, to: string): BodyFrame {
  return { marker: recoveryMarker, edit: { path, line: 3, field, from, to, before: '', after: '' }, footer: footerSection('when the failure changes') };
}

/**
 * The recovery pull requests' bodies, for a size (20Gi failed, 15Gi proposed: sizes Git holds are quantities) and for a
 * class (`className` failed and proposed), with `explanation` as why (they have no status description to check).
 */
export function recoveries(sts: StatefulSetReport, quoted: { className?: string; explanation?: string } = {}): Rendered[] {
  const tpl = sts.templates[0] ?? template();
  const explanation = quoted.explanation ?? 'the driver states a maximum of 15Gi';
  const [failedClass, proposedClass] = [quoted.className ?? 'gold', quoted.className ?? 'silver'];
  const classTemplate = { ...tpl, pvcs: tpl.pvcs.map((p) => ({ ...p, failedOn: 'class' as const, volumeAttributesClass: { requested: failedClass, current: proposedClass, modifyStatus: 'Infeasible' } })) };
  return [
    { markdown: composeBody(sizeRecoveryBody({ sts, template: tpl, failed: '20Gi', decision: { kind: 'propose', size: '15Gi', bytes: 15n << 30n, rule: 'driver-maximum', explanation } }), frame(tpl.storageLocation?.path ?? 'k8s/pg.yaml', 'storage', '20Gi', '15Gi')), description: '' },
    { markdown: composeBody(classRecoveryBody({ sts, template: classTemplate, failed: failedClass, decision: { className: proposedClass, explanation } }), frame(tpl.storageLocation?.path ?? 'k8s/pg.yaml', 'volumeAttributesClassName', failedClass, proposedClass)), description: '' },
  ];
}

function all(sts: StatefulSetReport): Rendered[] {
  return [...both(sts), ...recoveries(sts)];
}

/** Each field a hostile string can reach, and the texts that show it. */
export const fields: Array<[field: string, render: (text: string) => Rendered[]]> = [
  ['StatefulSet name', (text) => all(statefulSet({ name: text }))],
  ['namespace', (text) => all(statefulSet({ namespace: text }))],
  ['template name', (text) => all(statefulSet({}, { templateName: text }))],
  ['StorageClass name', (text) => both(statefulSet({}, { storageClassName: text }))],
  ['quota name', (text) => both(statefulSet({}, { quota: [{ quota: text, resource: 'requests.storage', used: '1Gi', growth: '1Gi', limit: '2Gi' }] }))],
  ['file path of a blocked template', (text) => both(statefulSet({}, { storageLocation: { path: `k8s/${text}.yaml`, line: 3, column: 1 } }))],
  ['API server message (block reason)', (text) => both(statefulSet({}, { reasons: [`admission webhook "quota.acme" denied the request: ${text}`] }))],
  ['PVC message from the cluster', (text) => all(statefulSet({}, { pvcs: [{ ...template().pvcs[0]!, message: text }] }))],
  ['PVC name', (text) => all(statefulSet({}, { pvcs: [{ ...template().pvcs[0]!, name: text }] }))],
  ['driver message (failure event)', (text) => all(statefulSet({}, { failureEvents: [{ ...template().failureEvents[0]!, message: text }] }))],
  ['note on a StatefulSet missing in the cluster', (text) => both(statefulSet({ outcome: 'missing-in-cluster', notes: [text] }))],
  ['target name', (text) => [plan(statefulSet(), [], text), progress(statefulSet(), text)]],
  ['manifest error path and message', (text) => [plan(statefulSet(), [{ path: `k8s/${text}.yaml`, line: 7, column: 3, message: `YAML error: ${text}` }])]],
  ['class a recovery quotes, and why it proposes', (text) => recoveries(statefulSet(), { className: text, explanation: text })],
];
