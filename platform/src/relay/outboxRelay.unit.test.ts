import type { EventBus } from '../eventBus/types';
import type { EventStore } from '../eventStore/types';
import { silentLogger } from '../logging';
import { createMemoryCheckpointStore } from './checkpoints';
import { createOutboxRelay } from './outboxRelay';

/** A store that is always caught up and counts how often the relay looks. */
function quietStore() {
  const store = {
    reads: 0,
    readAllSerialized: async ({ after }: { after: unknown }) => {
      store.reads += 1;
      return { events: [], cursor: after };
    },
  };
  return store;
}

const bus = { publish: async () => undefined } as unknown as EventBus;

describe('the outbox relay when the store is quiet', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('when nothing is appended for a second, then it looks a handful of times, not every 10 ms', async () => {
    const store = quietStore();
    const relay = createOutboxRelay({
      name: 'quiet',
      store: store as unknown as EventStore,
      bus,
      checkpoints: createMemoryCheckpointStore(),
      route: () => ({ topic: 't', key: 'k' }),
      logger: silentLogger(),
    });
    relay.start();
    await jest.advanceTimersByTimeAsync(1_000);
    // 10, 20, 40, 80, 160, then every 250 ms: about eight reads instead of a hundred.
    expect(store.reads).toBeGreaterThanOrEqual(5);
    expect(store.reads).toBeLessThanOrEqual(10);
    const stopped = relay.stop();
    await jest.advanceTimersByTimeAsync(0);
    await stopped;
  });

  it('when notified during a long pause, then it looks at once and starts again from the short pause', async () => {
    const store = quietStore();
    const relay = createOutboxRelay({
      name: 'notified',
      store: store as unknown as EventStore,
      bus,
      checkpoints: createMemoryCheckpointStore(),
      route: () => ({ topic: 't', key: 'k' }),
      logger: silentLogger(),
    });
    relay.start();
    await jest.advanceTimersByTimeAsync(2_000);
    const before = store.reads;
    relay.notify();
    await jest.advanceTimersByTimeAsync(0);
    expect(store.reads).toBe(before + 1);
    await jest.advanceTimersByTimeAsync(10);
    expect(store.reads).toBe(before + 2);
    const stopped = relay.stop();
    await jest.advanceTimersByTimeAsync(0);
    await stopped;
  });
});
