/**
 * Bounds how long a Redis command may take without a timer per command. node-redis's own per-command
 * `timeout` builds an AbortSignal (and its DOMException) for every command, which a gateway doing several
 * commands per request pays in CPU on every request. Here the commands due in the same slot share one
 * timer and one rejection, so a command costs a map lookup and a Promise.race; it fails at most `slotMs`
 * after its deadline.
 */
export class RedisTimeoutError extends Error {
  constructor(ms: number) {
    super(`Redis did not answer within ${ms} ms`);
    this.name = 'RedisTimeoutError';
  }
}

export type Deadline = <T>(command: Promise<T>) => Promise<T>;

/**
 * @example const within = deadline(1_000); const value = await within(client.get(key));
 */
export function deadline(ms: number, slotMs = 10): Deadline {
  if (!Number.isFinite(ms) || ms <= 0) throw new RangeError(`ms must be positive, got ${ms}`);
  const slots = new Map<number, Promise<never>>();
  // One error for every timeout of this deadline: a slot fires every `slotMs` under load whether or not a
  // command is still waiting on it, and a stack trace says nothing about which command was slow.
  const timedOut = new RedisTimeoutError(ms);
  const slotFor = (): Promise<never> => {
    const now = Date.now();
    const due = Math.ceil((now + ms) / slotMs) * slotMs;
    let slot = slots.get(due);
    if (slot === undefined) {
      slot = new Promise<never>((_resolve, reject) => {
        setTimeout(() => {
          slots.delete(due);
          reject(timedOut);
        }, due - now).unref();
      });
      // Nobody may be racing against it any more when it fires: that is not an unhandled rejection.
      slot.catch(() => undefined);
      slots.set(due, slot);
    }
    return slot;
  };
  return (command) => Promise.race([command, slotFor()]);
}
