// A pass writes its Lease before each recreation record is saved, listing the record among the recreations in
// progress, and after each is deleted, through the client-node adapter against the sandbox: the Lease lists a record
// before it exists and stops listing it once it is gone, two sets
// saving at once are both listed, and a pass that overran its Lease, taken over since, learns it (409) before writing a
// record the new holder would never know of. And the Lease is short and renewed while the pass works (issue 35): a
// pass that cannot renew stops writing before it lapses, one taken over at once. The renewals' clock is played.
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { KubeCluster } from '../../functions/adapters/kube/kube-cluster.ts';
import { leaseOutstandingAnnotation } from '../../functions/adapters/kube/map-objects.ts';
import type { RecreationRecord } from '../../functions/domain/live-state.ts';
import { ClusterError } from '../../functions/engine/ports.ts';
import { defaultLeaseTiming, LazyLease, LeaseLostError, type LeaseClock } from '../../functions/engine/lease/lazy-lease.ts';
import { fencedCluster } from '../../functions/engine/lease/fenced-cluster.ts';
import { RecordKey } from '../../functions/engine/records/authenticity.ts';
import { passLedger, type RecordLedger } from '../../functions/engine/records/ledger.ts';
import { readOutstanding } from '../../functions/engine/records/outstanding.ts';
import { startKubeSandbox, type KubeSandbox } from '../../sandbox/kube/index.ts';
import type { LoggedRequest } from '../../sandbox/kube/request-log.ts';
import { mustResourceType } from '../../sandbox/kube/store.ts';

const leaseType = mustResourceType('coordination.k8s.io/v1', 'Lease');
const key = RecordKey.fromText('k'.repeat(32), 'the test');

const sealed = (name: string, mac: string): RecreationRecord => ({
  namespace: 'db', recordNamespace: 'ops', recordName: `r-${name}`, ownerTarget: 't', statefulSetName: name, oldUid: 'u', target: {},
  updateRevision: undefined, mac,
});

describe('LazyLease before a record is saved', () => {
  let kube: KubeSandbox;
  let cluster: KubeCluster;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['ops'] } });
    cluster = new KubeCluster(kube.kubeConfig());
  });
  after(() => kube.close());

  function pass(name: string): { lease: LazyLease; ledger: RecordLedger; listed: () => string[]; version: () => string | undefined } {
    const place = { leaseNamespace: 'ops', leaseName: name, target: 't' };
    const ledger = passLedger(undefined, key, place, { ids: new Set() }, false);
    ledger.listedStateNamespace([]);
    const lease = new LazyLease({ cluster, holderIdentity: 'slow-pass' }, 'ops', name, undefined, ledger);
    const stored = (): ReturnType<KubeSandbox['store']['get']> => kube.store.get(leaseType, 'ops', name);
    return {
      lease, ledger,
      listed: () => [...readOutstanding(stored()?.metadata.annotations?.[leaseOutstandingAnnotation], key, place).ids].sort(),
      version: () => stored()?.metadata.resourceVersion,
    };
  }

  it('writes the Lease listing each record before it is saved, and unlisting it as soon as it was deleted', async () => {
    const { lease, ledger, listed, version } = pass('fenced');
    await lease.ensure();
    const taken = version();
    assert.deepEqual(listed(), []);
    ledger.saving(sealed('pg', 'mac-pg'));
    await lease.listOutstanding();
    assert.notEqual(version(), taken, 'a write for the save');
    assert.deepEqual(listed(), ['mac-pg'], 'listed before the ConfigMap exists');
    const fenced = version();
    await lease.listOutstanding();
    assert.equal(version(), fenced, 'nothing new to list: no write');
    ledger.deleted('ops', 'r-pg');
    await lease.listOutstanding();
    assert.deepEqual(listed(), [], 'unlisted before the release, which a timeout may never reach');
    assert.equal(kube.store.get(leaseType, 'ops', 'fenced')?.spec?.holderIdentity, 'slow-pass', 'still held');
    await lease.release(true);
    assert.deepEqual(listed(), []);
    assert.equal(kube.store.get(leaseType, 'ops', 'fenced')?.metadata.annotations?.['sts-volume-gitops.io/recreation-records'], 'none');
  });

  it('lists two records saved at once, whichever write carries them', async () => {
    const { lease, ledger, listed } = pass('concurrent');
    await lease.ensure();
    ledger.saving(sealed('pg', 'mac-pg'));
    const first = lease.listOutstanding();
    ledger.saving(sealed('redis', 'mac-redis'));
    await Promise.all([first, lease.listOutstanding()]);
    assert.deepEqual(listed(), ['mac-pg', 'mac-redis']);
    await lease.release(false);
    assert.deepEqual(listed(), ['mac-pg', 'mac-redis'], 'a pass that did not complete leaves them listed');
  });

  it('fails (409) once another pass took the Lease over, before anything is saved', async () => {
    const { lease, ledger } = pass('taken-over');
    await lease.ensure();
    // The pass stalls past its Lease; another one takes it over (an optimistic write on what it read).
    await cluster.writeLease('ops', 'taken-over', 'next-pass', 30, await cluster.readLease('ops', 'taken-over'));
    ledger.saving(sealed('pg', 'mac-pg'));
    await assert.rejects(lease.listOutstanding(), (error: unknown) => error instanceof ClusterError && error.status === 409);
    await lease.release(true);
    assert.equal((await cluster.readLease('ops', 'taken-over'))?.holder, 'next-pass', 'the release leaves the new holder alone');
  });
});

/** The renewals' clock, played: sleepers wake when the test moves it past their time. */
class PlayedClock implements LeaseClock {
  private at = 0;
  private sleepers: Array<{ until: number; wake: () => void }> = [];

  now(): number {
    return this.at;
  }

  sleep(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      this.sleepers.push({ until: this.at + ms, wake: resolve });
      signal.addEventListener('abort', () => resolve(), { once: true });
    });
  }

  /** Once the renewals sleep again (their last write answered and dealt with): then the clock may move on. */
  async asleep(): Promise<void> {
    for (let i = 0; i < 1000 && this.sleepers.length === 0; i++) await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(this.sleepers.length > 0, 'the renewals never slept again');
  }

  advance(ms: number): void {
    this.at += ms;
    const due = this.sleepers.filter((s) => s.until <= this.at);
    this.sleepers = this.sleepers.filter((s) => s.until > this.at);
    for (const sleeper of due) sleeper.wake();
  }
}

/** Waits for the sandbox to have served what the renewal sends (I/O, not time: no assertion on speed). */
async function served(kube: KubeSandbox, what: (log: KubeSandbox['requestLog']) => boolean): Promise<void> {
  for (let i = 0; i < 1000 && !what(kube.requestLog); i++) await new Promise((resolve) => setTimeout(resolve, 5));
  assert.ok(what(kube.requestLog), 'the sandbox never served the request');
}

const leaseWrites = (log: KubeSandbox['requestLog']): LoggedRequest[] => log.entries.filter((e) => e.resource === 'leases' && e.verb === 'update');

describe('LazyLease renewed while the pass works (client-go leaderelection: 15 s, renewed every 2 s, 10 s to renew)', () => {
  let kube: KubeSandbox;
  let cluster: KubeCluster;

  before(async () => {
    kube = await startKubeSandbox({ seed: { namespaces: ['ops', 'db'] } });
    cluster = new KubeCluster(kube.kubeConfig());
  });
  after(() => kube.close());

  function pass(name: string, clock: PlayedClock): LazyLease {
    const ledger = passLedger(undefined, key, { leaseNamespace: 'ops', leaseName: name, target: 't' }, { ids: new Set() }, false);
    ledger.listedStateNamespace([]);
    return new LazyLease({ cluster, holderIdentity: 'working-pass', leaseClock: clock }, 'ops', name, undefined, ledger);
  }
  const spec = (name: string) => kube.store.get(leaseType, 'ops', name)?.spec as { leaseDurationSeconds: number; acquireTime: string; renewTime: string; holderIdentity: string | null };

  it('takes a 15 s Lease and renews it every 2 s, keeping its acquireTime, until the release', async () => {
    const clock = new PlayedClock();
    const lease = pass('renewed', clock);
    await lease.ensure();
    const taken = spec('renewed');
    assert.equal(taken.leaseDurationSeconds, 15);
    assert.equal(taken.acquireTime, taken.renewTime);
    kube.requestLog.reset();
    await new Promise((resolve) => setTimeout(resolve, 20)); // a renewTime of its own
    for (const renewals of [1, 2]) {
      await clock.asleep();
      clock.advance(2_000);
      await served(kube, (log) => leaseWrites(log).length === renewals);
    }
    const renewed = spec('renewed');
    assert.equal(renewed.acquireTime, taken.acquireTime, 'since when it is held stays');
    assert.ok(Date.parse(renewed.renewTime) > Date.parse(taken.renewTime), 'the renewTime moves on');
    lease.assertHeld();
    await lease.release(true);
    assert.equal(spec('renewed').holderIdentity ?? null, null);
    clock.advance(10_000);
    assert.equal(leaseWrites(kube.requestLog).length, 2, 'no renewal after the release');
  });

  it('stops writing once it could not renew for 10 s, 5 s before anyone may take the Lease; the fenced writes never reach the server', async () => {
    const clock = new PlayedClock();
    const lease = pass('unrenewable', clock);
    const fenced = fencedCluster(cluster, lease);
    await lease.ensure();
    const lastRenewal = spec('unrenewable');
    kube.faults.add({ method: 'PUT', resource: 'leases', errorRate: 1, errorCode: 503 });
    try {
      kube.requestLog.reset();
      for (let step = 1; step <= 4; step++) {
        await clock.asleep();
        clock.advance(2_000);
        await served(kube, (log) => leaseWrites(log).length === step);
      }
      await clock.asleep();
      clock.advance(1_999); // 9.999 s since the last renewal that succeeded was sent
      lease.assertHeld();
      await fenced.annotatePvc('db', 'absent', 'k', 'v').catch(() => undefined); // still allowed: it reaches the server (a 404 there)
      assert.equal(kube.requestLog.writes().filter((e) => e.resource === 'persistentvolumeclaims').length, 1);
      clock.advance(1); // 10 s: the renew deadline
      assert.throws(() => lease.assertHeld(), (error: unknown) => error instanceof LeaseLostError && /could not renew it for 10s/.test(error.message));
      await assert.rejects(fenced.annotatePvc('db', 'absent', 'k', 'v'), LeaseLostError);
      await assert.rejects(fenced.recordEvent({ apiVersion: 'v1', kind: 'Pod', namespace: 'db', name: 'p', uid: 'u' }, 'Normal', 'R', 'm'), LeaseLostError);
      assert.equal(kube.requestLog.writes().filter((e) => e.resource !== 'leases').length, 1, 'nothing after the deadline reached the server');
      // Reads go on; what the holder wrote last still holds the Lease for others until 15 s after its renewTime.
      assert.ok((await fenced.readLease('ops', 'unrenewable'))?.holder === 'working-pass');
      assert.equal(spec('unrenewable').renewTime, lastRenewal.renewTime);
    assert.equal(lastRenewal.leaseDurationSeconds * 1000 - defaultLeaseTiming.renewDeadlineMs, 5_000, 'it stopped 5 s before the Lease lapses');
      await assert.rejects(lease.listOutstanding(), LeaseLostError);
    } finally {
      kube.faults.clear();
      await lease.release(false);
    }
  });

  it('stops at once when a renewal finds the Lease taken over (409), whatever the deadline', async () => {
    const clock = new PlayedClock();
    const lease = pass('taken', clock);
    await lease.ensure();
    await cluster.writeLease('ops', 'taken', 'next-pass', 15, await cluster.readLease('ops', 'taken'));
    kube.requestLog.reset();
    await clock.asleep();
    clock.advance(2_000);
    await served(kube, (log) => leaseWrites(log).some((e) => e.status === 409));
    await served(kube, () => { try { lease.assertHeld(); return false; } catch { return true; } });
    assert.throws(() => lease.assertHeld(), (error: unknown) => error instanceof LeaseLostError && /another pass took it over/.test(error.message));
    await lease.release(true);
    assert.equal(spec('taken').holderIdentity, 'next-pass', 'the release leaves the new holder alone');
  });
});
