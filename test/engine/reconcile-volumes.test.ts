// The KEP-0661 loop's decisions, driven with an in-memory patcher that records calls and fails where told.
// (The same loop runs against the Kubernetes sandbox over HTTP in test/integration.)
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { planTarget } from '../../functions/engine/plan/plan.ts';
import { ClusterError } from '../../functions/engine/ports.ts';
import { describePatch, reconcileVolumes } from '../../functions/engine/volumes/reconcile-volumes.ts';
import { desiredSet, pgWorld, runningPod } from './builders.ts';

function recordingPatcher(failures: Record<string, ClusterError> = {}) {
  const calls: string[] = [];
  return {
    calls,
    patchPvcStorage: (_namespace: string, name: string, storage: string): Promise<void> => {
      calls.push(`${name}=${storage}`);
      const failure = failures[name];
      return failure ? Promise.reject(failure) : Promise.resolve();
    },
  };
}

function setup(policy: 'OrderedReady' | 'Parallel', pods = [0, 1, 2].map((i) => runningPod(`pg-${i}`))) {
  const world = pgWorld({}, { podManagementPolicy: policy });
  const namespace = world.namespaces.get('db');
  assert.ok(namespace);
  namespace.pods = pods;
  const plan = planTarget([desiredSet({ podManagementPolicy: policy })], world, { allowedNamespaces: ['*'] })[0];
  assert.ok(plan?.live);
  return { plan, live: plan.live, pods };
}

const invalid = new ClusterError('PersistentVolumeClaim "data-pg-1" is invalid: spec.resources.requests.storage: Forbidden: field can not be less than status.capacity', 422, 'Invalid');

describe('reconcileVolumes', () => {
  it('patches every replica in ordinal order when all pods run the current revision', async () => {
    const { plan, live, pods } = setup('OrderedReady');
    const patcher = recordingPatcher();
    const rollout = await reconcileVolumes(live, plan.templates, pods, patcher, live.updateRevision);
    assert.deepEqual(patcher.calls, ['data-pg-0=20Gi', 'data-pg-1=20Gi', 'data-pg-2=20Gi']);
    assert.deepEqual(rollout.progress.get('data')?.map((p) => p.state), ['patched', 'patched', 'patched']);
  });

  it('waits for pods that are not running, terminating, or at an old revision, without failing', async () => {
    const pods = [runningPod('pg-0', 'pg-rev0'), runningPod('pg-1', 'pg-rev1', { phase: 'Pending' }), runningPod('pg-2', 'pg-rev1', { deleting: true })];
    const { plan, live } = setup('OrderedReady', pods);
    const patcher = recordingPatcher();
    const rollout = await reconcileVolumes(live, plan.templates, pods, patcher, live.updateRevision);
    assert.deepEqual(patcher.calls, []);
    assert.deepEqual(rollout.progress.get('data')?.map((p) => p.state), ['waiting-for-pod', 'waiting-for-pod', 'waiting-for-pod']);
    assert.equal(rollout.failures.length, 0);
  });

  it('stops an OrderedReady set at the first replica with a non-transient error', async () => {
    const { plan, live, pods } = setup('OrderedReady');
    const patcher = recordingPatcher({ 'data-pg-1': invalid });
    const rollout = await reconcileVolumes(live, plan.templates, pods, patcher, live.updateRevision);
    assert.deepEqual(patcher.calls, ['data-pg-0=20Gi', 'data-pg-1=20Gi']);
    assert.equal(rollout.failures[0]?.transient, false);
    assert.deepEqual(rollout.progress.get('data')?.map((p) => p.state), ['patched', 'failed', 'to-patch']);
    assert.equal(rollout.stoppedByTransientError, false);
  });

  it('lets a Parallel set carry on past a non-transient error', async () => {
    const { plan, live, pods } = setup('Parallel');
    const patcher = recordingPatcher({ 'data-pg-1': invalid });
    const rollout = await reconcileVolumes(live, plan.templates, pods, patcher, live.updateRevision);
    assert.deepEqual(patcher.calls, ['data-pg-0=20Gi', 'data-pg-1=20Gi', 'data-pg-2=20Gi']);
    assert.deepEqual(rollout.progress.get('data')?.map((p) => p.state), ['patched', 'failed', 'patched']);
  });

  it('stops any set at a transient error (409 conflict, 5xx, network) so the next pass retries', async () => {
    for (const error of [new ClusterError('conflict', 409, 'Conflict'), new ClusterError('boom', 503, 'ServiceUnavailable'), new ClusterError('reset', undefined, undefined)]) {
      const { plan, live, pods } = setup('Parallel');
      const patcher = recordingPatcher({ 'data-pg-0': error });
      const rollout = await reconcileVolumes(live, plan.templates, pods, patcher, live.updateRevision);
      assert.deepEqual(patcher.calls, ['data-pg-0=20Gi'], error.message);
      assert.equal(rollout.stoppedByTransientError, true);
      assert.deepEqual(rollout.progress.get('data')?.map((p) => p.state), ['retrying', 'to-patch', 'to-patch']);
    }
  });

  it('does not patch a PVC while the controller is still expanding it towards another size (KEP-1790 cases 3-5)', async () => {
    const world = pgWorld({ 0: { request: '100Gi', capacity: '10Gi', allocated: '100Gi', resizeStatus: 'ControllerResizeInProgress' } });
    const plan = planTarget([desiredSet()], world, { allowedNamespaces: ['*'] })[0];
    assert.ok(plan?.live);
    const patcher = recordingPatcher();
    const pods = world.namespaces.get('db')?.pods ?? [];
    const rollout = await reconcileVolumes(plan.live, plan.templates, pods, patcher, plan.live.updateRevision);
    assert.deepEqual(patcher.calls, ['data-pg-1=20Gi', 'data-pg-2=20Gi']);
    const first = rollout.progress.get('data')?.[0];
    assert.equal(first?.state, 'in-progress-other-size');
    assert.equal(first?.message, 'in progress to 100Gi; 20Gi will not be attempted until it ends');
  });
});

describe('reconcileVolumes with a volumeAttributesClassName change', () => {
  it('patches the class alone where the size is reached, and both in one patch where it is not', async () => {
    const world = pgWorld({
      0: { request: '20Gi', volumeAttributesClassName: 'silver', currentVolumeAttributesClassName: 'silver' },
      1: { volumeAttributesClassName: 'silver', currentVolumeAttributesClassName: 'silver' },
      2: { request: '20Gi', volumeAttributesClassName: 'gold', currentVolumeAttributesClassName: 'gold' },
    });
    world.server = { major: 1, minor: 34, gitVersion: 'v1.34.9' };
    world.volumeAttributesClasses = [{ name: 'gold', driverName: 'ebs.csi.aws.com', parameters: {}, deleting: false }];
    const sts = world.namespaces.get('db')?.statefulSets[0];
    assert.ok(sts?.templates[0]);
    sts.templates[0].volumeAttributesClassName = 'silver';
    const desired = desiredSet();
    assert.ok(desired.templates[0]);
    desired.templates[0].volumeAttributesClassName = 'gold';
    const plan = planTarget([desired], world, { allowedNamespaces: ['*'] })[0];
    assert.ok(plan?.live);
    const calls: string[] = [];
    const rollout = await reconcileVolumes(plan.live, plan.templates, [0, 1, 2].map((i) => runningPod(`pg-${i}`)), {
      patchPvcStorage: (_ns: string, name: string, storage: string, _rv: string, className?: string) => {
        calls.push(`${name}=${storage},${className ?? '-'}`);
        return Promise.resolve();
      },
    }, plan.live.updateRevision);
    // data-pg-0's capacity is already 20Gi: a size-only rule would have refused to patch it.
    assert.deepEqual(calls, ['data-pg-0=20Gi,gold', 'data-pg-1=20Gi,gold']);
    assert.deepEqual(rollout.progress.get('data')?.map((p) => p.state), ['modifying', 'patched', 'done']);
    // What was patched, said as it is: the class alone where the size stays (the patch repeats the size, which changes nothing).
    assert.deepEqual(rollout.patched.map(describePatch), ['VolumeAttributesClass gold', '20Gi and VolumeAttributesClass gold']);
  });
});

describe('describePatch', () => {
  it('names the size alone when only the size changes', async () => {
    const { plan, live, pods } = setup('OrderedReady');
    const rollout = await reconcileVolumes(live, plan.templates, pods, recordingPatcher(), live.updateRevision);
    assert.deepEqual(rollout.patched.map(describePatch), ['20Gi', '20Gi', '20Gi']);
  });
});
