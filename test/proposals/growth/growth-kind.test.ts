// The growth kind's hooks and words (pure): an open growth pull request is closed only on positive evidence (usage
// fell, growth off, at a limit, Git's size changed), never because usage was not read or a change is under way; a
// person's close holds until a larger size is needed or Git's size changes; each replica's evidence says used,
// capacity, percent, inodes when they are the cause, days to full and the share after the growth.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { GrowthDecision, ReplicaUsage } from '../../../functions/domain/volume-usage.ts';
import type { PassReport, TemplateReport } from '../../../functions/engine/run-pass.ts';
import { growthKind } from '../../../functions/proposals/growth/growth-kind.ts';
import { causeWords, replicaEvidence, type Growth } from '../../../functions/proposals/growth/growth-texts.ts';
import type { ProposalMark } from '../../../functions/proposals/lifecycle/marker.ts';

const gi = 2 ** 30;
const ref = { namespace: 'db', statefulSet: 'pg', template: 'data', storageLocation: { path: 'k8s/pg.yaml', line: 24, column: 22 } };
const open: ProposalMark = { identity: { kind: 'growth', namespace: 'db', statefulSet: 'pg', template: 'data' }, values: { from: '10Gi', to: '15Gi' } };

function report(desiredSize: string, growth: GrowthDecision[] | undefined): PassReport {
  const template: TemplateReport = {
    templateName: 'data', desiredSize, commitSha: 'c0ffee', replicas: 2, readyReplicas: 2, action: 'unchanged', from: undefined,
    storageClassName: 'standard', storageClassExpandable: true, finished: true, justFinished: false, reasons: [], pvcs: [],
    storageLocation: ref.storageLocation, quota: [], failureEvents: [],
  };
  return {
    target: 'demo', mode: 'apply', commitSha: 'c0ffee', outcome: 'ok', manifestErrors: [], notes: [],
    statefulSets: [{ namespace: 'db', name: 'pg', outcome: 'converged', podManagementPolicy: 'OrderedReady', replicas: 2, templateUpdate: undefined, templates: [template], notes: [] }],
    ...(growth ? { growth } : {}),
  };
}

const none = (code: Extract<GrowthDecision, { action: 'none' }>['code'], sentence: string): GrowthDecision => ({ ...ref, action: 'none', code, sentence: `no growth: ${sentence}` });
const grow: Growth = {
  ...ref, action: 'grow', from: '10Gi', to: '15Gi', because: { claim: 'data-pg-0', ordinal: 0, cause: 'inodes', value: 92.4 }, cuts: [],
  triggers: [{ claim: 'data-pg-0', ordinal: 0, cause: 'inodes', value: 92.4 }],
  after: [{ claim: 'data-pg-0', usedPercent: 40.2 }], sentence: 'propose 15Gi (from 10Gi), because data-pg-0 has used 92% of its inodes',
};

describe('the growth kind', () => {
  const cases: Array<[string, PassReport, string | undefined]> = [
    ['usage fell below the threshold', report('10Gi', [none('below-threshold', 'the fullest replica, data-pg-0, is 40% full')]), 'usage fell: the fullest replica, data-pg-0, is 40% full'],
    ['growth turned off for the set', report('10Gi', [none('growth-off', 'growth is off for this StatefulSet (k8s/pg.yaml:6)')]), 'growth is off for this StatefulSet (k8s/pg.yaml:6)'],
    ['at its max', report('10Gi', [none('at-max', 'data-pg-0 is 85% full, but 10Gi is already at 10Gi')]), 'data-pg-0 is 85% full, but 10Gi is already at 10Gi'],
    ['the size in Git changed (a person merged another)', report('20Gi', [none('change-under-way', 'a change to 20Gi is under way')]), 'the size in Git changed (now 20Gi, was 10Gi)'],
    ['usage not read this pass', report('10Gi', undefined), undefined],
    ['a change under way at the same size', report('10Gi', [none('change-under-way', 'data-pg-1 is still expanding')]), undefined],
    ['still needed', report('10Gi', [grow]), undefined],
  ];
  for (const [name, pass, expected] of cases) {
    it(`resolution: ${name}`, () => assert.equal(growthKind.resolution(pass, open), expected));
  }

  it('a person\'s close holds until a larger size is needed or the size in Git changes', () => {
    const declined = { from: '10Gi', to: '15Gi' };
    assert.equal(growthKind.changedSinceDeclined(declined, { from: '10Gi', to: '15Gi' }), false);
    assert.equal(growthKind.changedSinceDeclined(declined, { from: '10Gi', to: '15360Mi' }), false, 'the same size, written otherwise');
    assert.equal(growthKind.changedSinceDeclined(declined, { from: '10Gi', to: '12Gi' }), false, 'a smaller step is no reason to ask again');
    assert.equal(growthKind.changedSinceDeclined(declined, { from: '10Gi', to: '20Gi' }), true, 'usage rose by a further step');
    assert.equal(growthKind.changedSinceDeclined(declined, { from: '12Gi', to: '18Gi' }), true);
  });

  it('says each replica\'s evidence, inodes where they are the cause', () => {
    const replica: ReplicaUsage = {
      claim: 'data-pg-0', ordinal: 0, usedBytes: 6 * gi, capacityBytes: 10 * gi, usedPercent: 60, inodesUsed: 605_000, inodes: 655_360, inodesPercent: 92.3,
      bytesPerDay: 0.5 * gi, daysToFull: 8,
    };
    assert.equal(replicaEvidence(replica, grow), 'data-pg-0: 6Gi of 10Gi used (60%), inodes 605,000 of 655,360 used (92%), full in 8 days at 0.5Gi a day; 40% at 15Gi');
    assert.equal(replicaEvidence({ ...replica, daysToFull: 0.5 }, { ...grow, because: { ...grow.because, cause: 'bytes' } }), 'data-pg-0: 6Gi of 10Gi used (60%), full in 12 hours at 0.5Gi a day; 40% at 15Gi');
    assert.equal(causeWords(grow.because), 'data-pg-0 inodes 92% used');
    assert.equal(causeWords({ ...grow.because, cause: 'fills-soon', value: 4.96 }), 'data-pg-0 full in 5 days');
  });
});
