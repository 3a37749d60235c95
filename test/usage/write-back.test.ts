// The write-back decision (functions/usage/write-back.ts), table-driven: when the live template or a PVC is larger
// than Git for good, Git should say the largest live size; when Git is still on its way (a lowering it may make, a size
// refused for good, a template it grew itself), nothing.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { WriteBackDecision } from '../../functions/domain/volume-usage.ts';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { statusAnnotation } from '../../functions/engine/report/template-status.ts';
import { decideWriteBack } from '../../functions/usage/write-back.ts';
import { desiredSet, desiredTemplate, pgWorld } from '../engine/builders.ts';

interface Case {
  name: string;
  git: string;
  live: string;
  pvcs?: Parameters<typeof pgWorld>[0];
  /** The size the tool's status annotation says it applied to the template. */
  applied?: string;
  expect: Pick<WriteBackDecision, 'to' | 'found'> | undefined;
}

const infeasible = { resizeStatus: 'ControllerResizeInfeasible' };

const cases: Case[] = [
  {
    name: 'PVCs an autoscaler grew (Git still 10Gi): propose the largest, with what was found where',
    git: '10Gi', live: '10Gi', pvcs: { 0: { request: '20Gi' }, 1: { request: '15Gi', capacity: '15Gi' } },
    expect: { to: '20Gi', found: [{ where: 'pvc', name: 'data-pg-0', size: '20Gi', capacity: '20Gi' }, { where: 'pvc', name: 'data-pg-1', size: '15Gi', capacity: '15Gi' }] },
  },
  {
    name: 'a PVC an autoscaler is still growing (request 20Gi, capacity 10Gi): Git cannot go back below 10Gi, so it counts',
    git: '10Gi', live: '10Gi', pvcs: { 0: { request: '20Gi', capacity: '10Gi' } },
    expect: { to: '20Gi', found: [{ where: 'pvc', name: 'data-pg-0', size: '20Gi', capacity: '10Gi' }] },
  },
  {
    name: 'a template recreated larger by hand (no annotation of ours says Git put it there)',
    git: '10Gi', live: '20Gi',
    expect: { to: '20Gi', found: [{ where: 'template', name: 'data', size: '20Gi' }] },
  },
  {
    name: 'a template and PVCs both larger: the largest of them',
    git: '10Gi', live: '15Gi', applied: '10Gi', pvcs: { 2: { request: '20Gi' } },
    expect: { to: '20Gi', found: [{ where: 'template', name: 'data', size: '15Gi' }, { where: 'pvc', name: 'data-pg-2', size: '20Gi', capacity: '20Gi' }] },
  },
  {
    name: 'a template Git grew and then lowered before its PVCs grew: Git\'s own change, nothing',
    git: '10Gi', live: '20Gi', applied: '20Gi',
    expect: undefined,
  },
  {
    name: 'Git lowered after the driver refused the size for good (KEP-1790 recovery): the refused size never counts',
    git: '50Gi', live: '100Gi', applied: '100Gi',
    pvcs: { 0: { request: '100Gi', capacity: '20Gi', ...infeasible }, 1: { request: '100Gi', capacity: '20Gi', ...infeasible }, 2: { request: '100Gi', capacity: '20Gi', ...infeasible } },
    expect: undefined,
  },
  {
    name: 'Git lowered during an expansion, still above the capacity: Git may lower it, nothing',
    git: '20Gi', live: '30Gi', applied: '30Gi', pvcs: { 0: { request: '30Gi', capacity: '10Gi' } },
    expect: undefined,
  },
  {
    name: 'a capacity the driver rounded up (10G asked, 10Gi given) is not a size someone chose',
    git: '10G', live: '10G', pvcs: { 0: { request: '10G', capacity: '10Gi' }, 1: { request: '10G', capacity: '10Gi' }, 2: { request: '10G', capacity: '10Gi' } },
    expect: undefined,
  },
  {
    name: 'Git above the live size is a resize, not a write-back',
    git: '20Gi', live: '10Gi',
    expect: undefined,
  },
];

describe('the write-back decision for a template', () => {
  for (const c of cases) {
    it(c.name, () => {
      const annotations: Record<string, string> = c.applied ? { [statusAnnotation]: JSON.stringify([{ templateName: 'data', desiredSize: c.applied, commitSha: 'c0ffee', replicas: 3, readyReplicas: 3 }]) } : {};
      const world = pgWorld(c.pvcs ?? {}, { size: c.live, annotations });
      const [sts] = planTarget([desiredSet({ templates: [desiredTemplate({ size: c.git })] })], world, { allowedNamespaces: ['db'] });
      const template = sts?.templates[0];
      assert.ok(sts && template);
      const decision = decideWriteBack(sts, template);
      if (c.expect === undefined) {
        assert.equal(decision, undefined, decision?.sentence);
        return;
      }
      assert.ok(decision);
      assert.deepEqual({ to: decision.to, found: decision.found }, c.expect);
      assert.equal(decision.git, c.git);
      assert.deepEqual([decision.namespace, decision.statefulSet, decision.template], ['db', 'pg', 'data']);
    });
  }

  it('says what it found where, in one sentence', () => {
    const world = pgWorld({ 0: { request: '20Gi', capacity: '10Gi' } }, { size: '15Gi' });
    const [sts] = planTarget([desiredSet({ templates: [desiredTemplate({ size: '10Gi' })] })], world, { allowedNamespaces: ['db'] });
    const template = sts?.templates[0];
    assert.ok(sts && template);
    assert.equal(decideWriteBack(sts, template)?.sentence,
      'Git says 10Gi, but the volumes were grown outside Git (the live template asks for 15Gi; data-pg-0 asks for 20Gi (capacity 10Gi)): propose 20Gi, the largest, since volumes never shrink');
  });
});
