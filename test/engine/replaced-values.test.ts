// The status annotation's memory of values Git replaced before they were reached (issue 35 item 3): what the feedback
// needs to say, on each one's commit, how it ended. Pure: summariseTemplate over plain plans and progress.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PvcProgress } from '../../functions/engine/volumes/pvc-progress.ts';
import { replacedKept, summariseTemplate, type TemplateStatus } from '../../functions/engine/report/template-status.ts';
import { liveSet, livePvc, templatePlan } from './builders.ts';

const live = liveSet({ replicas: 2 });
const pvcs = [livePvc('data-pg-0', { request: '20Gi' }), livePvc('data-pg-1', { request: '20Gi' })];
const claim = (state: PvcProgress['state'], terminal = false): PvcProgress => ({
  name: 'data-pg-0', ordinal: 0, state, request: undefined, capacity: undefined, message: state === 'failed' ? 'exceeds maximum allowed' : undefined, terminal, since: undefined,
});
const at = (size: string, progress: PvcProgress[], previous: TemplateStatus[], commit: string): TemplateStatus =>
  summariseTemplate(templatePlan(pvcs, { size, action: 'resize' }), progress, live, commit.repeat(40), previous);

describe('replaced values in the status annotation', () => {
  it('a value that failed for good and is replaced is kept, with its error and commit, while the new value stays', () => {
    const failed = at('100Gi', [claim('failed', true)], [], 'a');
    assert.equal(failed.failedForGood, true);
    const recovering = at('50Gi', [claim('patched')], [failed], 'b');
    assert.deepEqual(recovering.replaced, [{ desiredSize: '100Gi', commitSha: 'a'.repeat(40), lastError: 'exceeds maximum allowed', failedForGood: true }]);
    assert.equal(recovering.failedForGood, undefined, 'the new value has not failed');
    const reached = at('50Gi', [claim('done'), { ...claim('done'), name: 'data-pg-1', ordinal: 1 }], [recovering], 'c');
    assert.deepEqual(reached.replaced, recovering.replaced, 'kept once reached: the pass that sees it reached reports the ending');
    assert.equal(at('60Gi', [claim('patched')], [reached], 'd').replaced, undefined, 'a value reached ends the list');
  });

  it('a value replaced while in progress is kept too (its check said in progress), without failing for good', () => {
    const moving = at('100Gi', [claim('patched')], [], 'a');
    assert.deepEqual(at('80Gi', [], [moving], 'b').replaced, [{ desiredSize: '100Gi', commitSha: 'a'.repeat(40) }]);
  });

  it(`keeps the last ${replacedKept}, and forgets a list a person broke`, () => {
    let status = at('100Gi', [claim('failed', true)], [], 'a');
    for (let i = 0; i < replacedKept + 2; i++) status = at(`${101 + i}Gi`, [claim('failed', true)], [status], 'a');
    assert.equal(status.replaced?.length, replacedKept);
    assert.equal(status.replaced?.at(-1)?.desiredSize, `${100 + replacedKept + 1}Gi`);
    const broken = { ...status, replaced: 'edited by hand' } as unknown as TemplateStatus;
    assert.equal(at(status.desiredSize, [], [broken], 'a').replaced, undefined);
  });
});
