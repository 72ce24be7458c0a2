import { createLogger, warnWhileSlow } from './logging';

function capture() {
  const lines: string[] = [];
  const logger = createLogger({
    service: 'test',
    level: 'info',
    destination: { write: (line: string) => lines.push(line) },
  });
  return { logger, lines };
}

describe('the process logger', () => {
  it('when a PostgreSQL error is logged, then what it quotes of the request (where, detail) is redacted', () => {
    const { logger, lines } = capture();
    const err = Object.assign(new Error('invalid input syntax for type json'), {
      code: '22P02',
      where: 'JSON data, line 1: {"item":{"stdout":["secret build output',
      detail: 'Unicode low surrogate must follow a high surrogate.',
    });
    logger.error({ err }, 'unexpected error');
    expect(lines).toHaveLength(1);
    const line = lines[0] ?? '';
    expect(line).not.toContain('secret build output');
    expect(line).not.toContain('low surrogate');
    expect(JSON.parse(line)).toMatchObject({
      err: { message: 'invalid input syntax for type json', code: '22P02', where: '[redacted]' },
    });
  });

  it('when a token or an authorization header is logged, then it is redacted', () => {
    const { logger, lines } = capture();
    logger.info({ token: 'svc_pat_x', headers: { authorization: 'Bearer y' } }, 'oops');
    expect(lines[0]).not.toContain('svc_pat_x');
    expect(lines[0]).not.toContain('Bearer y');
  });

  it('when a step takes longer than its interval, then it warns that it is still waiting, naming the step, until it is done', async () => {
    jest.useFakeTimers();
    try {
      const { logger, lines } = capture();
      let finish!: (value: string) => void;
      const step = warnWhileSlow(
        logger,
        'taking the lock',
        () => new Promise<string>((r) => (finish = r)),
        1000,
      );
      jest.advanceTimersByTime(2500);
      finish('done');
      expect(await step).toBe('done');
      jest.advanceTimersByTime(5000);
      expect(lines.map((line) => JSON.parse(line) as { level: number; msg: string; step: string })).toEqual([
        expect.objectContaining({ level: 40, msg: 'still taking the lock', step: 'taking the lock' }),
        expect.objectContaining({ level: 40, msg: 'still taking the lock', step: 'taking the lock' }),
      ]);
    } finally {
      jest.useRealTimers();
    }
  });
});
