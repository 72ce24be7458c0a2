/**
 * Whether this member has to rejoin its group: set when a heartbeat reports a rebalance, cleared when the
 * member has rejoined. kafkajs goes on handing out the batches it already fetched; they are skipped
 * meanwhile (and fetched again after the rejoin), so that the member rejoins at once instead of after
 * every queued batch. The flag expires after rebalanceTimeout, so a missed rejoin event cannot stall it.
 *
 * @example const membership = new Membership(30_000); if (membership.rejoinPending) return;
 */
export class Membership {
  private pendingSince: number | undefined;
  private joins = 0;

  constructor(private readonly rebalanceTimeoutMs: number) {}

  get rejoinPending(): boolean {
    return this.pendingSince !== undefined && Date.now() - this.pendingSince < this.rebalanceTimeoutMs;
  }

  /** How many times this member has joined its group; a batch notes it when it starts. */
  get generation(): number {
    return this.joins;
  }

  /**
   * A heartbeat of a batch that started in `generation` reported a rebalance. Ignored when the member has
   * rejoined since: that heartbeat was in flight across the rejoin and speaks of the old generation, and
   * taking it at its word would skip every batch until the flag expires.
   */
  mustRejoin(generation: number = this.joins): void {
    if (generation !== this.joins) return;
    this.pendingSince ??= Date.now();
  }

  rejoined(): void {
    this.joins += 1;
    this.pendingSince = undefined;
  }
}
