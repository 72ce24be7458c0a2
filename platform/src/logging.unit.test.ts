import { createLogger } from './logging';

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
});
