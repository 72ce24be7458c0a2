import { deadline, RedisTimeoutError } from './deadline';

describe('deadline', () => {
  it('when the command answers in time, then its value comes through', async () => {
    const within = deadline(1_000);
    await expect(within(Promise.resolve('value'))).resolves.toBe('value');
  });

  it('when the command fails in time, then its own error comes through', async () => {
    const within = deadline(1_000);
    await expect(within(Promise.reject(new Error('refused')))).rejects.toThrow('refused');
  });

  it('when the command does not answer, then it fails with RedisTimeoutError after the deadline', async () => {
    const within = deadline(30, 10);
    const started = Date.now();
    const never = new Promise<string>(() => undefined);
    await expect(within(never)).rejects.toBeInstanceOf(RedisTimeoutError);
    expect(Date.now() - started).toBeGreaterThanOrEqual(29);
  });

  it('when many commands share a slot and none answers, then every one of them fails', async () => {
    const within = deadline(20, 50);
    const never = () => new Promise<number>(() => undefined);
    const results = await Promise.allSettled(Array.from({ length: 100 }, () => within(never())));
    expect(results.every((result) => result.status === 'rejected')).toBe(true);
  });

  it('when a deadline is not positive, then it is refused', () => {
    expect(() => deadline(0)).toThrow(RangeError);
  });
});
