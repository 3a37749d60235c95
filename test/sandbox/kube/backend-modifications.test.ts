// The sandbox's storage backend limit (sandbox/kube/controllers/backend-modifications.ts), as AWS EBS enforces it
// since January 2026: four modifications of a volume within a rolling 24 hours, none while one is still optimizing,
// refused in the words aws-ebs-csi-driver passes on; a resize and a class change arriving together are one call.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { backendModification } from '../../../sandbox/kube/controllers/backend-modifications.ts';
import { createWorld, defaultDriver, type DriverProfile } from '../../../sandbox/kube/controllers/world.ts';
import { applySeed } from '../../../sandbox/kube/seed.ts';
import { ObjectStore, type KubeObject } from '../../../sandbox/kube/store.ts';

const hour = 3_600_000;
const start = Date.parse('2026-11-28T08:00:00Z');
const ebs: DriverProfile = { ...defaultDriver, name: 'ebs.csi.aws.com', modificationLimit: { count: 4, perMs: 24 * hour }, optimizingMs: 0 };
const pv = { apiVersion: 'v1', kind: 'PersistentVolume', metadata: { name: 'pvc-1' }, spec: { csi: { driver: 'ebs.csi.aws.com', volumeHandle: 'vol-0abc' } } } as KubeObject;

function backend(driver: DriverProfile): { at: (ms: number, rpc?: 'expand' | 'modify') => string | undefined } {
  let now = start;
  const world = createWorld(new ObjectStore(() => new Date(now)), () => new Date(now));
  return {
    at: (ms, rpc = 'expand') => {
      now = ms;
      return backendModification(world, pv, driver, rpc)?.desc;
    },
  };
}

describe("the sandbox backend's modification limit", () => {
  it('takes four modifications within 24 hours and refuses the fifth until the oldest leaves them', () => {
    const ebsBackend = backend(ebs);
    for (const h of [0, 1, 2, 3]) assert.equal(ebsBackend.at(start + h * hour), undefined, `modification at +${h}h`);
    assert.match(ebsBackend.at(start + 4 * hour) ?? '', /^Could not resize volume "vol-0abc": rpc error: code = Internal desc = Could not modify volume "vol-0abc": operation error EC2: ModifyVolume, https response error StatusCode: 400, RequestID: [0-9a-f-]{36}, api error VolumeModificationRateExceeded: You've reached the maximum modification rate per volume limit\. You can modify this volume again after 2026-11-29T08:00:00Z\.$/);
    assert.match(ebsBackend.at(start + 24 * hour - 1, 'modify') ?? '', /^Could not modify volume "vol-0abc": .*VolumeModificationRateExceeded/, 'the modifier is refused alike, without the resize wrapping');
    assert.equal(ebsBackend.at(start + 24 * hour), undefined, 'at 24h the first has left the window');
    assert.match(ebsBackend.at(start + 24 * hour + 60_000) ?? '', /again after 2026-11-29T09:00:00Z\.$/, 'then the second is the oldest of four');
  });

  it('counts a resize and a class change arriving within two seconds once, as the driver coalesces them into one call', () => {
    const ebsBackend = backend(ebs);
    assert.equal(ebsBackend.at(start), undefined);
    assert.equal(ebsBackend.at(start + 1_000, 'modify'), undefined);
    for (const h of [1, 2, 3]) assert.equal(ebsBackend.at(start + h * hour), undefined, `modification at +${h}h`);
    assert.match(ebsBackend.at(start + 4 * hour) ?? '', /VolumeModificationRateExceeded/);
  });

  it('refuses any modification while the last is still optimizing, whatever the count', () => {
    const optimizing = backend({ ...ebs, optimizingMs: hour });
    assert.equal(optimizing.at(start), undefined);
    assert.match(optimizing.at(start + hour / 2) ?? '', /api error IncorrectModificationState: Volume vol-0abc cannot be modified in modification state OPTIMIZING$/);
    assert.equal(optimizing.at(start + hour), undefined, 'completed after an hour');
  });

  it('a driver without a limit is never refused and remembers nothing', () => {
    const free = backend(defaultDriver);
    for (const h of [0, 0.1, 0.2, 0.3, 0.4, 0.5]) assert.equal(free.at(start + h * hour), undefined);
  });

  it('is seeded per driver: EBS four per 24h by default, a limit or the older cooldown in seconds, and a clear error for neither', () => {
    const seeded = (driver: Record<string, unknown>): DriverProfile | undefined => {
      const world = createWorld(new ObjectStore(), () => new Date(start));
      applySeed(world, { storageClasses: [{ name: 'gp3', driver }] });
      return world.drivers.get('gp3');
    };
    assert.deepEqual(seeded({ name: 'ebs.csi.aws.com' })?.modificationLimit, { count: 4, perMs: 24 * hour });
    assert.deepEqual(seeded({ name: 'ebs.csi.aws.com', modificationCooldownSeconds: 21_600 })?.modificationLimit, { count: 1, perMs: 6 * hour });
    assert.deepEqual(seeded({ modificationLimit: { count: 2, perSeconds: 60 }, optimizingSeconds: 30 }), { ...seeded({}), modificationLimit: { count: 2, perMs: 60_000 }, optimizingMs: 30_000 });
    assert.equal(seeded({ name: 'ebs.csi.aws.com', modificationLimit: { count: 1, perSeconds: 0 } })?.modificationLimit, undefined, '0 seconds: none');
    assert.throws(() => seeded({ modificationLimit: { count: 0, perSeconds: 60 } }), /storageClasses\[gp3\]\.driver\.modificationLimit must be \{ count: a whole number of at least 1, perSeconds: a number of seconds \}/);
    assert.throws(() => seeded({ modificationLimit: { count: 1, perSeconds: 60 }, modificationCooldownSeconds: 60 }), /sets both modificationLimit and modificationCooldownSeconds/);
  });
});
