// The target's Lease as one pass holds it: taken just before the first write (a pass over an unchanged world writes
// nothing), written again before each recreation record is saved and after each is deleted, so that it lists exactly
// the recreations in progress, and released with what the pass's ledger knows of the records.
import { ClusterError, type ClusterPort, type LeaseState } from './ports.ts';
import type { RecordLedger } from './records/ledger.ts';

export interface LeaseHolder {
  cluster: ClusterPort;
  holderIdentity: string;
  leaseDurationSeconds?: number;
}

export class LazyLease {
  private held: LeaseState | undefined;
  private everHeld = false;
  /** The ids of recreations in progress the last Lease write listed. */
  private listed = new Set<string>();
  /** StatefulSets are applied concurrently: the first to need the Lease takes it, the others wait for that. */
  private taking: Promise<void> | undefined;

  constructor(
    private readonly holder: LeaseHolder, private readonly namespace: string, private readonly name: string,
    private readonly seen: LeaseState | undefined, private readonly ledger: RecordLedger,
  ) {}

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

  async ensure(): Promise<void> {
    if (this.held) return;
    // The optimistic lock on what we saw before reading the cluster proves nobody wrote since (409 otherwise).
    await this.write(this.seen);
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

  private async write(over: LeaseState | undefined): Promise<void> {
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
    this.held = await this.holder.cluster.writeLease(
      this.namespace, this.name, this.holder.holderIdentity, this.holder.leaseDurationSeconds ?? 300, over, this.ledger.marks(false),
    );
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
