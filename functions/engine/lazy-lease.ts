// The target's Lease as one pass holds it: taken just before the first write (a pass over an unchanged world writes
// nothing), written again before each recreation record is saved, listing that record among the recreations in
// progress, and released with what the pass's ledger knows of the records.
import type { ClusterPort, LeaseState } from './ports.ts';
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
   * Before a record is saved (its id already in the ledger): the Lease is written with the ids of every recreation in
   * progress, the new one's among them, under an optimistic lock on our own hold. So a record exists only once the
   * Lease's signed mark lists it (a record it does not list is never acted on), and a pass that overran its Lease learns
   * it (409) before writing a record the holder that took over would know nothing of. A write that began after the id
   * was entered (another set's, concurrently) lists it too; one that began before does not, and is followed by another.
   */
  async fenceSave(): Promise<void> {
    await this.ensure();
    while (![...this.ledger.outstandingIds()].every((id) => this.listed.has(id))) await this.write(this.held);
  }

  private async write(over: LeaseState | undefined): Promise<void> {
    this.taking ??= (async () => {
      const ids = this.ledger.outstandingIds();
      this.held = await this.holder.cluster.writeLease(
        this.namespace, this.name, this.holder.holderIdentity, this.holder.leaseDurationSeconds ?? 300, over, this.ledger.marks(false),
      );
      this.listed = ids;
      this.everHeld = true;
    })().finally(() => { this.taking = undefined; });
    await this.taking;
  }

  /** `completed`: the pass ran to its end; otherwise the Lease is left saying records may be outstanding. */
  async release(completed: boolean): Promise<void> {
    await this.taking?.catch(() => undefined);
    if (!this.held) return;
    await this.holder.cluster.releaseLease(this.namespace, this.name, this.held, this.ledger.marks(completed));
    this.held = undefined;
  }
}
