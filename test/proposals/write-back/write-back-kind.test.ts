// The write-back kind's hooks (pure): an open write-back closes only on positive evidence (Git at least the size it
// proposes, or the template gone from a complete clean pass); a person's close holds until the live size grows.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PassReport, StatefulSetReport, TemplateReport } from '../../../functions/engine/run-pass.ts';
import type { ProposalMark } from '../../../functions/proposals/lifecycle/marker.ts';
import { writeBackKind } from '../../../functions/proposals/write-back/write-back-kind.ts';

const open: ProposalMark = { identity: { kind: 'write-back', namespace: 'db', statefulSet: 'pg', template: 'data' }, values: { from: '10Gi', to: '20Gi' } };

function template(desiredSize: string): TemplateReport {
  return {
    templateName: 'data', desiredSize, commitSha: 'c0ffee', replicas: 2, readyReplicas: 0, action: 'blocked', from: '10Gi',
    storageClassName: 'standard', storageClassExpandable: true, finished: false, justFinished: false, reasons: [], pvcs: [],
    storageLocation: { path: 'k8s/pg.yaml', line: 20, column: 22 }, quota: [], failureEvents: [],
  };
}

function report(templates: TemplateReport[] | undefined, extra: Partial<PassReport> = {}, outcome: StatefulSetReport['outcome'] = 'blocked'): PassReport {
  const statefulSets: StatefulSetReport[] = templates === undefined ? []
    : [{ namespace: 'db', name: 'pg', outcome, podManagementPolicy: 'OrderedReady', replicas: 2, templateUpdate: undefined, templates, notes: [] }];
  return { target: 'demo', mode: 'apply', commitSha: 'c0ffee', outcome: 'ok', statefulSets, manifestErrors: [], notes: [], ...extra };
}

describe('the write-back kind', () => {
  const resolutions: Array<[string, PassReport, string | undefined]> = [
    ['keeps it while Git is below the live size', report([template('10Gi')]), undefined],
    ['keeps it while Git moved but is still below it (the candidate updates it in place)', report([template('15Gi')]), undefined],
    ['closes it once Git says the size it proposed', report([template('20Gi')], {}, 'converged'), 'Git now says 20Gi, at least the live size 20Gi it proposed'],
    ['closes it once Git says more, spelled otherwise', report([template('25600Mi')], {}, 'in-progress'), 'Git now says 25600Mi, at least the live size 20Gi it proposed'],
    ['closes it when a complete clean pass no longer has the template', report(undefined), 'db/pg/data is no longer in Git'],
    ['keeps it when a manifest could not be read', report(undefined, { manifestErrors: [{ path: 'k8s/pg.yaml', line: 3, column: 1, message: 'bad indentation' }] }), undefined],
    ['keeps it when the pass ran short of time', report(undefined, { outcome: 'incomplete' }), undefined],
  ];
  for (const [name, pass, expected] of resolutions) {
    it(name, () => assert.equal(writeBackKind.resolution(pass, open), expected));
  }

  const declines: Array<[string, Record<string, string>, boolean]> = [
    ['the same live size: the close holds', { from: '10Gi', to: '20Gi' }, false],
    ['Git moved, the live size did not: the close holds', { from: '15Gi', to: '20Gi' }, false],
    ['the live size grew further: proposed again', { from: '10Gi', to: '25Gi' }, true],
    ['the same size spelled otherwise: the close holds', { from: '10Gi', to: '20480Mi' }, false],
  ];
  for (const [name, now, expected] of declines) {
    it(`after a person's close, ${name}`, () => assert.equal(writeBackKind.changedSinceDeclined(open.values, now), expected));
  }
});
