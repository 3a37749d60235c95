// A CSI driver's modification cooldown (functions/domain/modification-cooldown.ts): AWS EBS's six hours by default,
// the target's setting over it, and none for drivers the tool knows nothing of.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { modificationCooldownOf, modificationWindow } from '../../functions/domain/modification-cooldown.ts';

const modified = new Date('2026-11-28T06:00:00Z');
const hoursLater = (hours: number): Date => new Date(modified.getTime() + hours * 3_600_000);

describe('a driver\'s modification window', () => {
  const cases: Array<{ name: string; driver: string | undefined; at: Date; configured?: Record<string, number>; expect: ReturnType<typeof modificationWindow> }> = [
    { name: 'an EBS volume modified 2 hours ago waits until 6 hours after', driver: 'ebs.csi.aws.com', at: hoursLater(2), expect: { within: true, driver: 'ebs.csi.aws.com', cooldownSeconds: 21_600, until: hoursLater(6) } },
    { name: 'an EBS volume modified 6 hours ago may be modified again', driver: 'ebs.csi.aws.com', at: hoursLater(6), expect: { within: false } },
    { name: 'a configured cooldown replaces the default', driver: 'ebs.csi.aws.com', at: hoursLater(2), configured: { 'ebs.csi.aws.com': 3_600 }, expect: { within: false } },
    { name: 'a driver given a cooldown by the configuration has one', driver: 'pd.csi.storage.gke.io', at: hoursLater(1), configured: { 'pd.csi.storage.gke.io': 4 * 3_600 }, expect: { within: true, driver: 'pd.csi.storage.gke.io', cooldownSeconds: 14_400, until: hoursLater(4) } },
    { name: 'a driver the tool knows nothing of has none', driver: 'hostpath.csi.k8s.io', at: hoursLater(0.1), expect: { within: false } },
    { name: 'a class with no driver named has none', driver: undefined, at: hoursLater(0.1), expect: { within: false } },
  ];
  for (const c of cases) it(c.name, () => assert.deepEqual(modificationWindow(c.driver, modified, c.at, c.configured), c.expect));

  it('a volume never modified is within no window', () => {
    assert.deepEqual(modificationWindow('ebs.csi.aws.com', undefined, hoursLater(1)), { within: false });
    assert.equal(modificationCooldownOf('ebs.csi.aws.com'), 21_600);
    assert.equal(modificationCooldownOf('ebs.csi.aws.com', { 'ebs.csi.aws.com': 0 }), 0, '0s turns it off');
  });
});
