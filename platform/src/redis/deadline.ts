/**
 * Bounds how long a Redis command may take without a timer per command. node-redis's own per-command
 * `timeout` builds an AbortSignal (and its DOMException) for every command, which a gateway doing several
 * commands per request pays in CPU on every request. Here the commands due in the same slot share one
 * timer; a command that answers leaves its slot at once, so nothing of it is kept until the timer fires
 * (kept for the whole deadline, every command outlived two young-generation collections and was promoted,
 * and the old generation's collections showed as latency spikes). It fails at most `slotMs` after its
 * deadline.
 */
export class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

export type Deadline = <T>(command: Promise<T>) => Promise<T>;

type Reject = (error: Error) => void;

/**
 * @example const within = deadline(1_000); const value = await within(client.get(key));
 */
export function deadline(ms: number, slotMs = 10): Deadline {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`ms must be positive, got ${ms}`);
  const slots = new Map<number, Set<Reject>>();
  // One error for every timeout of this deadline: a stack trace says nothing about which command was slow.
  const timedOut = new RedisTimeoutError(ms);
  const slotFor = (): Set<Reject> => {
    const now = Date.now();
    const due = Math.ceil((now + ms) / slotMs) * slotMs;
    let waiting = slots.get(due);
    if (waiting === undefined) {
      const slot = new Set<Reject>();
      waiting = slot;
      slots.set(due, slot);
      setTimeout(() => {
        slots.delete(due);
        for (const reject of slot) reject(timedOut);
      }, due - now).unref();
    }
    return waiting;
  };
  return <T>(command: Promise<T>) =>
    new Promise<T>((resolve, reject) => {
      const slot = slotFor();
      slot.add(reject);
      command.then(
        (value) => {
          slot.delete(reject);
          resolve(value);
        },
        (error: unknown) => {
          slot.delete(reject);
          reject(error as Error);
        },
      );
    });
}
