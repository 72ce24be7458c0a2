import { Membership } from './kafka';

describe('a Kafka consumer group membership', () => {
  it('when a heartbeat of the current generation reports a rebalance, then a rejoin is pending until the member rejoins', () => {
    const membership = new Membership(30_000);
    membership.mustRejoin(membership.generation);
    expect(membership.rejoinPending).toBe(true);
    membership.rejoined();
    expect(membership.rejoinPending).toBe(false);
  });

  it('when a heartbeat sent before the latest rejoin reports a rebalance, then it is ignored and batches go on', () => {
    const membership = new Membership(30_000);
    const startedIn = membership.generation;
    membership.rejoined();
    membership.mustRejoin(startedIn);
    expect(membership.rejoinPending).toBe(false);
  });

  it('when a rejoin never comes, then the pending flag expires after the rebalance timeout', () => {
    const membership = new Membership(0);
    membership.mustRejoin(membership.generation);
    expect(membership.rejoinPending).toBe(false);
  });
});
