// Pull requests opened and closed per proposal kind (pure): whatever the kinds, only what a pass opened or closed counts.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pullRequestCounts } from '../../../functions/proposals/lifecycle/outcome-counts.ts';
import type { ProposalAction, ProposalOutcome } from '../../../functions/proposals/proposal.ts';

const outcome = (kind: ProposalOutcome['kind'], action: ProposalAction, key = 'db/pg/data'): ProposalOutcome => ({ key, kind, action, pullRequestUrl: undefined });

describe('pullRequestCounts', () => {
  it('counts opened and closed per kind, in the order the kinds first appear; updated, unchanged, failed and the rest are neither', () => {
    assert.deepEqual(pullRequestCounts([
      outcome('size-recovery', 'opened'), outcome('size-recovery', 'opened', 'db/es/data'), outcome('class-recovery', 'closed'),
      outcome('size-recovery', 'closed', 'db/kafka/data'), outcome('size-recovery', 'updated'), outcome('class-recovery', 'failed'),
      outcome('class-recovery', 'unchanged'), outcome('size-recovery', 'declined-before'), outcome('size-recovery', 'open'),
    ]), [
      { kind: 'size-recovery', opened: 2, closed: 1 },
      { kind: 'class-recovery', opened: 0, closed: 1 },
    ]);
  });

  it('leaves out a kind that opened and closed nothing (a dimension value is a metric of its own)', () => {
    assert.deepEqual(pullRequestCounts([outcome('size-recovery', 'unchanged'), outcome('class-recovery', 'impossible')]), []);
    assert.deepEqual(pullRequestCounts([]), []);
  });
});
