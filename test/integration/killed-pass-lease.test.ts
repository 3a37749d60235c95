// Issue 35 item 5: a pass SIGKILLed mid-apply (in a process of its own, against the Kubernetes and GitHub sandboxes)
// leaves its Lease held. The next pass is busy only until the dead holder's short Lease lapses, 15 s after its last
// renewal, not 300 s; it says who holds the target, since and until when, and keeps the change's progress check
// saying it waits. A pass at that time (its clock played, not waited for) takes the target over and applies, and the
// set converges with every pod kept.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { progressContext } from '../../functions/feedback/check-names.ts';
import { ChildPool } from '../campaign/child-pool.ts';
import { FaultPlan } from '../campaign/fault-plan.ts';
import { leaseName, namespace, podIdentities, startWorld, types, type World } from '../campaign/world.ts';
import { statusesOf } from '../support/passes.ts';

describe('a pass killed mid-apply', () => {
  const children = new ChildPool();
  let world: World;
  before(async () => {
    world = await startWorld({ growPg: true, growWh: false, openPr: false });
  });
  after(async () => {
    await world.close();
    await children.close();
  });

  it('delays the next apply only until its short Lease lapses, and the busy passes say until when', async () => {
    const pods = podIdentities(world);
    const plan = new FaultPlan({ kube: world.kube.faults, github: world.github.faults });
    // Killed as its 7th write is served: the orphan delete of pg (after its PVCs' dry runs, the Lease, the dry-run PUT,
    // the Lease listing the record and the record): it holds the Lease, and pg is gone until recreated.
    const child = await children.take();
    plan.begin([], { among: 'write', atRequest: 7, when: 'after' }, () => child.kill());
    const { killed } = await child.runPass({ configPath: world.configPath, env: world.env, holder: 'killed-pass' });
    plan.end();
    assert.equal(killed, true, 'the pass was killed mid-apply');
    world.kube.tick(2); // the garbage collector finishes the orphan delete: pg is absent
    const lease = world.kube.store.get(types.lease, 'default', leaseName)?.spec as { holderIdentity: string; leaseDurationSeconds: number; acquireTime: string; renewTime: string };
    assert.equal(lease.holderIdentity, 'killed-pass');
    assert.equal(lease.leaseDurationSeconds, 15);
    const lapses = Date.parse(lease.renewTime) + 15_000;

    // A pass before it lapses (the clock is the one the killed pass wrote its renewTime by) is busy, and says so.
    const busy = await world.pass('next-pass', () => Date.parse(lease.renewTime) + 1_000);
    assert.equal(busy.error, undefined, busy.error);
    assert.equal(busy.report?.outcome, 'busy');
    const until = new Date(lapses).toISOString();
    assert.deepEqual(busy.report?.heldBy, { lease: `default/${leaseName}`, holder: 'killed-pass', since: new Date(Date.parse(lease.acquireTime)).toISOString(), until });
    assert.ok(lapses - Date.parse(lease.acquireTime) < 60_000, 'the dead holder costs well under a minute from the moment it took the target');
    // The set it left absent is back (the busy path's one write), and its change is said to wait, on GitHub too.
    assert.ok(world.kube.store.get(types.sts, namespace, 'pg')?.metadata.deletionTimestamp === undefined, 'the StatefulSet the kill left absent is recreated');
    const waiting = busy.report?.statefulSets.find((s) => s.name === 'pg');
    assert.equal(waiting?.outcome, 'waiting');
    const status = statusesOf(world.github, world.commits.pg ?? '', progressContext('demo', { namespace, name: 'pg' })).at(-1);
    assert.equal(status?.state, 'pending');
    assert.match(status?.description ?? '', new RegExp(`^waiting: another pass \\(killed-pass\\) holds the target since .* until ${until.replace(/[.]/g, '\\.')}; resizing: `));

    // Once it has lapsed, the next pass takes the target over and applies.
    world.kube.tick(2); // the StatefulSet controller takes up the recreated set
    world.kube.requestLog.reset();
    const takeover = await world.pass('takeover-pass', () => lapses + 1);
    assert.equal(takeover.error, undefined, takeover.error);
    assert.equal(takeover.report?.outcome, 'ok');
    assert.ok(world.kube.requestLog.writes().some((w) => w.resource === 'persistentvolumeclaims'), 'it patched PVCs');
    for (let i = 0; i < 10; i++) {
      world.kube.tick(2);
      const run = await world.pass('later-pass');
      if (run.report?.statefulSets.every((s) => s.outcome === 'converged')) break;
    }
    const pvcs = world.kube.store.list(types.pvc, namespace).filter((p) => p.metadata.name.startsWith('data-pg-'));
    assert.deepEqual(pvcs.map((p) => (p.status?.capacity as { storage: string }).storage), ['20Gi', '20Gi']);
    assert.deepEqual(podIdentities(world), pods, 'no pod restarted');
  });
});
