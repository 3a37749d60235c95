// A CSI driver's modification limit (functions/domain/modification-limit.ts): AWS EBS's four modifications per volume
// within a rolling 24 hours by default, none while one is under way, the target's setting over it (the older one per
// cooldown form among them), and none for drivers the tool knows nothing of.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { limitOfCooldown, modificationLimitOf, modificationsToRemember, modificationWindow } from '../../functions/domain/modification-limit.ts';

const start = new Date('2026-11-28T06:00:00Z');
const hoursLater = (hours: number): Date => new Date(start.getTime() + hours * 3_600_000);
const ebs = 'ebs.csi.aws.com';
const ebsLimit = { count: 4, perSeconds: 86_400 };

describe("a driver's modification window", () => {
  it('an EBS volume modified three times within 24 hours may be modified a fourth time', () => {
    assert.deepEqual(modificationWindow(ebs, { modifiedAt: [hoursLater(0), hoursLater(1), hoursLater(2)] }, hoursLater(3)), { within: false });
  });

  it('one modified four times waits until the oldest of the four leaves the 24 hours, in whatever order they were written', () => {
    const modifiedAt = [hoursLater(3), hoursLater(0), hoursLater(2), hoursLater(1)];
    assert.deepEqual(modificationWindow(ebs, { modifiedAt }, hoursLater(4)), {
      within: true, reason: 'limit', driver: ebs, limit: ebsLimit, modifiedAt: [0, 1, 2, 3].map(hoursLater), until: hoursLater(24),
    });
    assert.deepEqual(modificationWindow(ebs, { modifiedAt }, hoursLater(24)), { within: false }, 'at 24h the oldest has left: three remain');
  });

  it('only the newest four count: the fifth oldest left the window long before, and older times are ignored', () => {
    const modifiedAt = [hoursLater(-30), hoursLater(-1), hoursLater(0), hoursLater(5), hoursLater(6)];
    const window = modificationWindow(ebs, { modifiedAt }, hoursLater(7));
    assert.equal(window.within && window.reason === 'limit' ? window.until.toISOString() : window, hoursLater(23).toISOString());
  });

  it('a volume with a modification under way waits until it completes, whatever the count; no time is given', () => {
    assert.deepEqual(modificationWindow(ebs, { modifiedAt: [], underWay: { since: hoursLater(1) } }, hoursLater(2)), {
      within: true, reason: 'under-way', driver: ebs, limit: ebsLimit, since: hoursLater(1),
    });
    assert.deepEqual(modificationWindow(ebs, { modifiedAt: [], underWay: {} }, hoursLater(2)), { within: true, reason: 'under-way', driver: ebs, limit: ebsLimit });
  });

  it('the older form, a cooldown, is one modification per that time', () => {
    const configured = { [ebs]: limitOfCooldown('6h') ?? assert.fail('6h is a duration') };
    assert.deepEqual(configured[ebs], { count: 1, perSeconds: 21_600 });
    const window = modificationWindow(ebs, { modifiedAt: [hoursLater(0)] }, hoursLater(2), configured);
    assert.equal(window.within && window.reason === 'limit' ? window.until.toISOString() : window, hoursLater(6).toISOString());
    assert.deepEqual(modificationWindow(ebs, { modifiedAt: [hoursLater(0)] }, hoursLater(6), configured), { within: false });
    assert.equal(limitOfCooldown('six hours'), undefined);
  });

  const cases: Array<{ name: string; driver: string | undefined; configured?: Record<string, { count: number; perSeconds: number }>; within: boolean }> = [
    { name: 'a configured limit replaces the default', driver: ebs, configured: { [ebs]: { count: 8, perSeconds: 86_400 } }, within: false },
    { name: 'a driver given a limit by the configuration has one', driver: 'pd.csi.storage.gke.io', configured: { 'pd.csi.storage.gke.io': { count: 2, perSeconds: 3_600 } }, within: true },
    { name: 'a window of 0s turns it off', driver: ebs, configured: { [ebs]: { count: 1, perSeconds: 0 } }, within: false },
    { name: 'a driver the tool knows nothing of has none', driver: 'hostpath.csi.k8s.io', within: false },
    { name: 'a class with no driver named has none', driver: undefined, within: false },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const window = modificationWindow(c.driver, { modifiedAt: [hoursLater(0), hoursLater(0.2), hoursLater(0.4), hoursLater(0.6)] }, hoursLater(0.8), c.configured);
      assert.equal(window.within, c.within);
    });
  }

  it('a volume never modified is within no window; the default is four per 24h', () => {
    assert.deepEqual(modificationWindow(ebs, { modifiedAt: [] }, hoursLater(1)), { within: false });
    assert.deepEqual(modificationLimitOf(ebs), ebsLimit);
    assert.equal(modificationLimitOf(ebs, { [ebs]: { count: 1, perSeconds: 0 } }), undefined);
  });
});

describe('the modification times worth remembering', () => {
  it('keeps those within the window, at most the count, oldest first; none without a limit', () => {
    const times = [hoursLater(-25), hoursLater(3), hoursLater(1), hoursLater(2), hoursLater(0), hoursLater(4)];
    assert.deepEqual(modificationsToRemember(times, ebsLimit, hoursLater(4)), [1, 2, 3, 4].map(hoursLater));
    assert.deepEqual(modificationsToRemember(times, { count: 1, perSeconds: 21_600 }, hoursLater(4)), [hoursLater(4)]);
    assert.deepEqual(modificationsToRemember(times, undefined, hoursLater(4)), []);
  });
});
