// The target's Lease as one pass holds it: taken just before the first write (a pass over an unchanged world writes
// nothing), renewed while the pass works, written again before each recreation record is saved and after each is
// deleted, so that it lists exactly the recreations in progress, and released with what the pass's ledger knows of the
// records.
//
// A short Lease, renewed, as controllers' leader election holds theirs (client-go leaderelection, whose defaults
// kube-controller-manager uses): 15 s, renewed every 2 s, so a pass that dies costs the next one at most 15 s, not the
// 300 s a Lease written once for the whole pass held. A pass that cannot renew stops writing before its Lease lapses:
// every write of the pass is fenced (fenced-cluster.ts) by `assertHeld`, which refuses it once 10 s (the renew
// deadline) have passed since the last renewal that succeeded, timed from before that renewal was sent on the pass's
// own monotonic clock; others may take the Lease only 15 s after the renewTime that renewal wrote, which is later. A
// renewal answered 409 (someone else took it) or 404 (it is gone) ends the hold at once.
import { setTimeout as sleepFor } from 'node:timers/promises';
import { ClusterError, type ClusterPort, type LeaseState } from '../ports.ts';
import type { RecordLedger } from '../records/ledger.ts';

/** How a Lease is held: client-go leaderelection's leaseDuration, renewDeadline and retryPeriod. */
export interface LeaseTiming {
  /** `leaseDurationSeconds`: how long after its renewTime others may take it. */
  durationSeconds: number;
  /** A holder that has not renewed for this long stops writing (shorter than the duration). */
  renewDeadlineMs: number;
  /** How often the holder renews. */
  retryPeriodMs: number;
}

export const defaultLeaseTiming: LeaseTiming = { durationSeconds: 15, renewDeadlineMs: 10_000, retryPeriodMs: 2_000 };

/** The holder's own clock: monotonic milliseconds and a sleep that stops when the hold ends (tests play one). */
export interface LeaseClock {
  now(): number;
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}

const processClock: LeaseClock = {
  now: () => performance.now(),
  // Unreferenced: a renewal never keeps a process alive; an aborted sleep ends quietly.
  sleep: (ms, signal) => sleepFor(ms, undefined, { signal, ref: false }).catch(() => undefined),
};

/** The pass no longer holds its Lease: a write now could race the holder that takes it over. */
export class LeaseLostError extends ClusterError {
  constructor(message: string) {
    super(message, 409, 'Conflict');
    this.name = 'LeaseLostError';
  }
}

export interface LeaseHolder {
  cluster: ClusterPort;
  holderIdentity: string;
  leaseTiming?: LeaseTiming;
  leaseClock?: LeaseClock;
}

export class LazyLease {
  private held: LeaseState | undefined;
  private everHeld = false;
  /** The ids of recreations in progress the last Lease write listed. */
  private listed = new Set<string>();
  /** StatefulSets are applied concurrently: the first to need the Lease takes it, the others wait for that. */
  private taking: Promise<void> | undefined;
  /** When (LeaseClock ms) the last write of the Lease that succeeded was sent. */
  private renewedAt = 0;
  /** Why the hold ended before the release, once it has. */
  private lost: string | undefined;
  private readonly stopRenewing = new AbortController();
  private renewing: Promise<void> | undefined;
  private readonly timing: LeaseTiming;
  private readonly clock: LeaseClock;

  constructor(
    private readonly holder: LeaseHolder, private readonly namespace: string, private readonly name: string,
    private readonly seen: LeaseState | undefined, private readonly ledger: RecordLedger,
  ) {
    this.timing = holder.leaseTiming ?? defaultLeaseTiming;
    this.clock = holder.leaseClock ?? processClock;
  }

  /**
   * Whether the pass found the Lease still held (it may take it: expired, or its own identity's): the pass before ended
   * without releasing it, interrupted or out of time. A pass that finishes always releases it.
   */
  get foundUnreleased(): boolean {
    return this.seen?.holder !== undefined;
  }

  /** Whether this pass took the Lease at some point (then its release, not a separate write, leaves the records mark). */
  get taken(): boolean {
    return this.everHeld;
  }

  /**
   * Throws LeaseLostError once the hold has ended: renewed too long ago (the renew deadline passed), or taken over. A
   * pass that has not taken the Lease is not stopped here (it writes nothing that needs it).
   */
  assertHeld(): void {
    if (!this.everHeld) return;
    if (this.lost === undefined && this.clock.now() - this.renewedAt >= this.timing.renewDeadlineMs) {
      this.lost = `could not renew it for ${this.timing.renewDeadlineMs / 1000}s, and others may take it ${this.timing.durationSeconds}s after its last renewal`;
      this.stopRenewing.abort();
    }
    if (this.lost !== undefined) throw new LeaseLostError(`stopped writing: lease ${this.namespace}/${this.name} is no longer held by this pass: ${this.lost}`);
  }

  async ensure(): Promise<void> {
    if (this.held) {
      this.assertHeld();
      return;
    }
    // The optimistic lock on what we saw before reading the cluster proves nobody wrote since (409 otherwise).
    await this.write(this.seen);
    this.renewing ??= this.renewWhileHeld();
  }

  /**
   * Writes the Lease until it lists exactly the ledger's recreations in progress (no write when it already does), under
   * an optimistic lock on our own hold. Called before a record is saved (its id already entered): a record exists only
   * once the Lease's signed mark lists it (a record it does not list is never acted on), and a pass that overran its
   * Lease learns it (409) before writing a record the holder that took over would know nothing of. Called again once a
   * record's delete is confirmed: a finished recreation is unlisted at once, not at a release that a timeout may never
   * reach, so a copy of its record put back is refused. Each write lists the ids as they are when it begins; one that
   * began before another set's id was entered (or struck) is followed by another.
   */
  async listOutstanding(): Promise<void> {
    await this.ensure();
    while (!sameIds(this.listed, this.ledger.outstandingIds())) await this.write(this.held);
  }

  /** Every retryPeriod until the release: a write of the Lease as held (its renewTime moves; what it lists is the ledger's). */
  private async renewWhileHeld(): Promise<void> {
    const signal = this.stopRenewing.signal;
    for (;;) {
      await this.clock.sleep(this.timing.retryPeriodMs, signal);
      if (signal.aborted || !this.held) return;
      try {
        await this.write(this.held);
      } catch (error) {
        if (error instanceof LeaseLostError) return;
        // A refusal (taken over: 409; deleted: 404) ends the hold now; anything passing is tried again until the deadline.
        if (error instanceof ClusterError && (error.status === 409 || error.status === 404)) {
          this.lost ??= error.status === 409 ? 'another pass took it over' : 'it was deleted';
          return;
        }
      }
    }
  }

  private async write(over: LeaseState | undefined): Promise<void> {
    if (over !== undefined && over === this.held) this.assertHeld();
    this.taking ??= (async () => {
      try {
        await this.writeOver(over);
      } catch (error) {
        // Over our own hold, a conflict may be only a busy pass striking what it finished: then write over what it left.
        const struck = over !== undefined && over === this.held && error instanceof ClusterError && error.status === 409
          ? await this.struckSince(over) : undefined;
        if (!struck) throw error;
        await this.writeOver(struck);
      }
    })().finally(() => { this.taking = undefined; });
    await this.taking;
  }

  private async writeOver(over: LeaseState | undefined): Promise<void> {
    const ids = this.ledger.outstandingIds();
    const sentAt = this.clock.now();
    this.held = await this.holder.cluster.writeLease(
      this.namespace, this.name, this.holder.holderIdentity, this.timing.durationSeconds, over, this.ledger.marks(false),
    );
    this.renewedAt = sentAt;
    this.listed = ids;
    this.everHeld = true;
  }

  /**
   * The Lease as it is now, when it is still our hold as `held` (same holder, same renewTime) and only its mark changed:
   * a pass on the busy path finished recreations (it created their StatefulSets and deleted their records) and struck
   * them from the mark. The ledger forgets those, and the caller writes over the Lease as it is now. Undefined when
   * anything else happened (another holder took over, the Lease is gone): the caller's 409 stands.
   */
  private async struckSince(held: LeaseState): Promise<LeaseState | undefined> {
    const now = await this.holder.cluster.readLease(this.namespace, this.name);
    if (!now || now.holder !== this.holder.holderIdentity || now.renewTime !== held.renewTime) return undefined;
    const listedNow = this.ledger.readMark(now.outstandingRecords);
    this.ledger.struck([...this.listed].filter((id) => !listedNow.has(id)));
    return now;
  }

  /** `completed`: the pass ran to its end; otherwise the Lease is left saying records may be outstanding. */
  async release(completed: boolean): Promise<void> {
    this.stopRenewing.abort();
    await this.renewing;
    await this.taking?.catch(() => undefined);
    const held = this.held;
    if (!held) return;
    this.held = undefined;
    if (await this.holder.cluster.releaseLease(this.namespace, this.name, held, this.ledger.marks(completed))) return;
    const struck = await this.struckSince(held);
    if (struck) await this.holder.cluster.releaseLease(this.namespace, this.name, struck, this.ledger.marks(completed));
  }
}

function sameIds(a: ReadonlySet<string>, b: ReadonlySet<string>): boolean {
  return a.size === b.size && [...a].every((id) => b.has(id));
}
