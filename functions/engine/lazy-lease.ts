// The target's Lease as one pass holds it: taken just before the first write (a pass over an unchanged world writes
// nothing), renewed before a recreation record is written when a third of its duration has gone, and released with
// what the pass's ledger knows of the records.
import type { ClusterPort, LeaseState } from './ports.ts';
import type { RecordLedger } from './records/ledger.ts';

export interface LeaseHolder {
  cluster: ClusterPort;
  holderIdentity: string;
  leaseDurationSeconds?: number;
  now?: () => Date;
}

export class LazyLease {
  private held: LeaseState | undefined;
  private everHeld = false;
  /** StatefulSets are applied concurrently: the first to need the Lease takes it, the others wait for that. */
  private taking: Promise<void> | undefined;

  constructor(
    private readonly holder: LeaseHolder, private readonly namespace: string, private readonly name: string,
    private readonly seen: LeaseState | undefined, private readonly ledger: RecordLedger,
  ) {}

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
   * Before a record is written: the Lease is renewed (optimistic lock on our own hold) once a third of its duration
   * has gone, so a pass that overran its Lease learns it (409) before writing a record that a pass which took over
   * after the expiry, and will release the Lease saying `none`, would never see.
   */
  async ensureFresh(): Promise<void> {
    await this.ensure();
    const held = this.held;
    if (!held?.renewTime) return;
    const age = (this.holder.now ? this.holder.now() : new Date()).getTime() - new Date(held.renewTime).getTime();
    if (age < (held.durationSeconds * 1000) / 3) return;
    await this.write(held);
  }

  private async write(over: LeaseState | undefined): Promise<void> {
    this.taking ??= this.holder.cluster.writeLease(
      this.namespace, this.name, this.holder.holderIdentity, this.holder.leaseDurationSeconds ?? 300, over, this.ledger.holdingMark(),
    )
      .then((held) => {
        this.held = held;
        this.everHeld = true;
      })
      .finally(() => { this.taking = undefined; });
    await this.taking;
  }

  /** `completed`: the pass ran to its end; otherwise the Lease is left saying records may be outstanding. */
  async release(completed: boolean): Promise<void> {
    await this.taking?.catch(() => undefined);
    if (!this.held) return;
    const mark = completed ? this.ledger.finalMark() : this.ledger.holdingMark();
    await this.holder.cluster.releaseLease(this.namespace, this.name, this.held, mark);
    this.held = undefined;
  }
}
