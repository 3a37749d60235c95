// Which volumes are within their driver's modification window (functions/engine/plan/modification-windows.ts), read from
// the status annotation as this version writes it (a list of times per claim) and as older versions wrote it (one time
// per claim), and from a claim's conditions; and what is said of them (modification-window-words.ts).
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { markModificationWindows, type VolumeWindow } from '../../functions/engine/plan/modification-windows.ts';
import { windowReasons, windowUntil, windowWords } from '../../functions/engine/plan/modification-window-words.ts';
import type { ModificationLimit } from '../../functions/domain/modification-limit.ts';
import { desiredSet, desiredTemplate, pgWorld, type livePvc } from './builders.ts';

const at = (hours: number): string => new Date(Date.parse('2026-11-28T08:00:00Z') + hours * 3_600_000).toISOString();
const ebs = 'ebs.csi.aws.com';

function windowsOf(modifiedAt: Record<string, unknown>, now: number, limits?: Record<string, ModificationLimit>): VolumeWindow[] {
  const status = [{ templateName: 'data', desiredSize: '10Gi', commitSha: 'c0', replicas: 3, readyReplicas: 3, volumesModifiedAt: modifiedAt }];
  const world = pgWorld({}, { annotations: { 'sts-volume-gitops.io/volume-claim-templates': JSON.stringify(status) } });
  world.storageClasses = world.storageClasses.map((c) => ({ ...c, provisioner: ebs }));
  const plans = planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Gi' })] })], world, { allowedNamespaces: ['db'] });
  markModificationWindows(plans, world, new Date(at(now)), limits);
  return plans[0]?.templates[0]?.modificationWindows ?? [];
}

describe("volumes within their driver's modification window, from the status annotation", () => {
  it('reads the list this version writes: four times within 24h hold the volume until the oldest leaves them', () => {
    assert.deepEqual(windowsOf({ 'data-pg-0': [at(0), at(1), at(2), at(3)], 'data-pg-1': [at(2), at(3)] }, 5), [
      { claim: 'data-pg-0', driver: ebs, limit: { count: 4, perSeconds: 86_400 }, reason: 'limit', modifiedAt: [at(0), at(1), at(2), at(3)], until: at(24) },
    ]);
  });

  it('reads the one time per claim older versions wrote, counted against an old cooldown as one per 6h', () => {
    const oneEvery6h = { [ebs]: { count: 1, perSeconds: 21_600 } };
    assert.deepEqual(windowsOf({ 'data-pg-1': at(0) }, 2, oneEvery6h).map((w) => [w.claim, w.reason === 'limit' ? w.until : w.reason]), [['data-pg-1', at(6)]]);
    assert.deepEqual(windowsOf({ 'data-pg-1': at(0) }, 2), [], 'one modification of four: no window');
  });

  it('forgets what a hand edit left that is no time', () => {
    assert.deepEqual(windowsOf({ 'data-pg-0': [at(0), 'soon', 7, at(1), at(2)], 'data-pg-1': { at: at(0) } }, 3), []);
  });
});

describe('a modification under way, from the claim', () => {
  const condition = (type: string) => ({ type, status: 'True', reason: undefined, message: undefined, lastTransitionTime: at(1) });
  const underWay = (pvc: Parameters<typeof livePvc>[1]): unknown => {
    const world = pgWorld({ 0: pvc });
    world.storageClasses = world.storageClasses.map((c) => ({ ...c, provisioner: ebs }));
    const plans = planTarget([desiredSet({ templates: [desiredTemplate({ size: '20Gi' })] })], world, { allowedNamespaces: ['db'] });
    markModificationWindows(plans, world, new Date(at(2)));
    return plans[0]?.templates[0]?.modificationWindows?.map((w) => [w.claim, w.reason, w.reason === 'under-way' ? w.since : w.until]);
  };

  it('is a controller expansion (Resizing) or a class change in progress, since its condition says', () => {
    assert.deepEqual(underWay({ conditions: [condition('Resizing')] }), [['data-pg-0', 'under-way', at(1)]]);
    assert.deepEqual(underWay({ conditions: [condition('ModifyingVolume')], modifyVolumeStatus: { status: 'InProgress', targetVolumeAttributesClassName: 'fast' } }), [['data-pg-0', 'under-way', at(1)]]);
  });

  it('is not a class change the driver refused, nor a volume waiting for its node (the backend has answered)', () => {
    const refused = { conditions: [condition('ModifyingVolume'), condition('ModifyVolumeError')], modifyVolumeStatus: { status: 'InProgress', targetVolumeAttributesClassName: 'fast' } };
    assert.equal(underWay(refused), undefined);
    assert.equal(underWay({ conditions: [condition('ModifyingVolume')], modifyVolumeStatus: { status: 'Infeasible', targetVolumeAttributesClassName: 'fast' } }), undefined);
    assert.equal(underWay({ conditions: [condition('FileSystemResizePending')] }), undefined);
  });
});

describe("what is said of volumes within their driver's window", () => {
  const limit = { count: 4, perSeconds: 86_400 };
  const used = (claim: string, until: number): VolumeWindow => ({ claim, driver: ebs, limit, reason: 'limit', modifiedAt: [at(until - 24), at(until - 23), at(until - 22), at(until - 21)], until: at(until) });
  const underWay: VolumeWindow = { claim: 'data-pg-2', driver: ebs, limit, reason: 'under-way', since: at(1) };

  it('a volume that used its modifications: until the oldest leaves the window, naming each', () => {
    assert.equal(windowWords(used('data-pg-0', 24)), "waiting for the driver's window until 2026-11-29T08:00:00Z (ebs.csi.aws.com accepts 4 modifications per volume "
      + 'within any 24h, and none while one is under way; modified at 2026-11-28T08:00:00Z, 2026-11-28T09:00:00Z, 2026-11-28T10:00:00Z and 2026-11-28T11:00:00Z)');
  });

  it('a volume with a modification under way: until it completes, saying no time is known', () => {
    assert.equal(windowWords(underWay), "waiting for the driver's window: a modification of this volume is under way (since 2026-11-28T09:00:00Z) and "
      + 'ebs.csi.aws.com accepts 4 modifications per volume within any 24h, and none while one is under way; it waits until that modification completes, a time not known beforehand');
  });

  it('a template with both: each reason, the latest time, and the undated wait', () => {
    const windows = [used('data-pg-0', 24), used('data-pg-1', 26), underWay];
    assert.equal(windowReasons(windows), 'data-pg-0, data-pg-1 were modified 4 times within the last 24h and data-pg-2 has a modification under way, '
      + 'and ebs.csi.aws.com accepts 4 modifications per volume within any 24h, and none while one is under way');
    assert.equal(windowUntil(windows), 'until 2026-11-29T10:00:00Z at the latest, and until the modification under way completes, a time not known yet');
    assert.equal(windowUntil([used('data-pg-0', 24)]), 'until 2026-11-29T08:00:00Z');
  });
});
