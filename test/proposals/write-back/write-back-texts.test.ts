// A write-back pull request's cost, from the plan of a set an autoscaler is growing (pure): each volume counted once,
// at its committed size (domain/volume-cost.ts), so one still expanding is not both "already paid" and "grows more".
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTarget } from '../../../functions/engine/plan/plan.ts';
import { reportFromPlan } from '../../../functions/engine/run-pass.ts';
import { writeBackBody } from '../../../functions/proposals/write-back/write-back-texts.ts';
import { decideWriteBack } from '../../../functions/usage/write-back.ts';
import { desiredSet, desiredTemplate, pgWorld } from '../../engine/builders.ts';

const prices = { currency: 'USD', perGiBMonth: { standard: 0.1 } };

/** Git and the live template at 20Gi; data-pg-0 as `grown` says, the other two at 20Gi. */
function body(grown: { request: string; capacity: string }): ReturnType<typeof writeBackBody> {
  const world = pgWorld({ 0: grown, 1: { request: '20Gi' }, 2: { request: '20Gi' } }, { size: '20Gi' });
  const [plan] = planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Gi' })] })], world, { allowedNamespaces: ['*'], prices });
  const template = plan?.templates[0];
  assert.ok(plan && template);
  const decision = decideWriteBack(plan, template);
  assert.ok(decision, 'the autoscaler\'s size is written back');
  return writeBackBody({ decision, git: '20Gi', template: reportFromPlan(plan, 'c0ffee').templates[0], prices });
}

describe('a write-back pull request\'s cost', () => {
  it('counts a volume whose expansion is still running once, at the size it will reach: paid for, not grown again on merge', () => {
    // The autoscaler asked 30Gi for data-pg-0; the driver has not finished (capacity still 20Gi).
    const written = body({ request: '30Gi', capacity: '20Gi' });
    assert.deepEqual(written.cost?.lines, ['Nothing new for the volumes already at 30Gi: that is already being paid. The 10Gi beyond Git\'s 20Gi across 3 volumes already costs \\(once the expansion under way finishes\\) \\+1.00 USD a month. '
      + 'data-pg-1, data-pg-2 grow to 30Gi \\(20Gi in all, \\+2.00 USD a month more\\).']);
    assert.match(written.onMerge.lines[0] ?? '', /grows data-pg-1 \(20Gi\), data-pg-2 \(20Gi\) to 30Gi/);
    assert.doesNotMatch(written.onMerge.lines[0] ?? '', /data-pg-0/);
  });

  it('says the same numbers once the expansion has finished, without the words for one under way', () => {
    const written = body({ request: '30Gi', capacity: '30Gi' });
    assert.deepEqual(written.cost?.lines, ['Nothing new for the volumes already at 30Gi: that is already being paid. The 10Gi beyond Git\'s 20Gi across 3 volumes already cost \\+1.00 USD a month. '
      + 'data-pg-1, data-pg-2 grow to 30Gi \\(20Gi in all, \\+2.00 USD a month more\\).']);
  });
});
