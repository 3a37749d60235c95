// The fault campaign, small: a few fast-check schedules of API faults on both sandboxes and process kills, each
// followed by clean passes until converged, with every invariant checked (run-schedule.ts). A failure prints the seed
// and the schedule (fast-check's counterexample); `npm run campaign -- --runs 1000` runs the big one.
import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import fc from 'fast-check';
import { ChildPool } from './child-pool.ts';
import { playOctokitWaitsFaster } from './play-time-faster.ts';
import { runSchedule } from './run-schedule.ts';
import { scheduleArbitrary } from './schedule.ts';

const seed = Number(process.env.CAMPAIGN_SEED ?? 20261123);
const numRuns = Number(process.env.CAMPAIGN_RUNS ?? 4);

describe('fault campaign (small)', () => {
  const children = new ChildPool();
  after(() => children.close());

  it(`keeps every invariant over ${numRuns} random fault schedules (seed ${seed}, CAMPAIGN_SEED to change)`, async () => {
    playOctokitWaitsFaster();
    let kills = 0;
    let faults = 0;
    let pvcPatches = 0;
    await fc.assert(fc.asyncProperty(scheduleArbitrary({ killRate: 0.5 }), async (schedule) => {
      const result = await runSchedule(schedule, children);
      kills += result.injected.kills;
      pvcPatches += result.pvcPatchesSeen;
      faults += Object.values(result.injected.faults).reduce((sum, n) => sum + (n ?? 0), 0);
      assert.deepEqual(result.violations, [], `seed ${seed}: ${JSON.stringify(schedule)}`);
      assert.notEqual(result.passesToConverge, undefined);
    }), { seed, numRuns, endOnFailure: true });
    // The schedules did exercise something: faults were injected and a pass process was killed.
    assert.ok(faults > 0, 'no fault was injected');
    assert.ok(kills > 0, 'no pass process was killed');
    assert.ok(pvcPatches > 0, 'no PVC patch went through the recorder');
  });
});
