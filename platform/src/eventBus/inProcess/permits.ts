/** How many partitions one subscription handles at the same time (its concurrentPartitions). */
/** Hands out at most `size` permits; a waiter whose signal aborts leaves the queue empty-handed. */
export class Permits {
  private free: number;
  private readonly queue: Array<(release: () => void) => void> = [];

  constructor(size: number) {
    this.free = size;
  }

  acquire(signal: AbortSignal): Promise<(() => void) | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    if (this.free > 0) {
      this.free -= 1;
      return Promise.resolve(this.releaser());
    }
    return new Promise((resolve) => {
      const grant = (release: () => void): void => {
        signal.removeEventListener('abort', onAbort);
        resolve(release);
      };
      const onAbort = (): void => {
        this.queue.splice(this.queue.indexOf(grant), 1);
        resolve(undefined);
      };
      this.queue.push(grant);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.queue.shift();
      if (next) next(this.releaser());
      else this.free += 1;
    };
  }
}
