import { z } from 'zod';
import { commaList, queryInteger, STORED_INTEGER_MAX } from './http';

describe('queryInteger', () => {
  const limit = queryInteger({ min: 1, max: 100, fallback: 20 });
  const messages = (value: unknown) => {
    const parsed = limit.safeParse(value);
    return parsed.success ? [] : parsed.error.issues.map((issue) => issue.message);
  };

  it('when the value is plain decimal digits in bounds, then it is that integer, leading zeros included', () => {
    expect(limit.parse('5')).toBe(5);
    expect(limit.parse('007')).toBe(7);
    expect(limit.parse('100')).toBe(100);
  });

  it('when the value is a negative integer, then the message names the bound, not "an integer"', () => {
    expect(messages('-1')).toEqual(['must be at least 1']);
    expect(messages('1.5')).toEqual(['must be an integer']);
  });

  it('when the parameter is absent, then the fallback applies', () => {
    expect(limit.parse(undefined)).toBe(20);
  });

  it.each(['1e1', '0x10', '1.0', '1.5', '+5', '-1.5', ' 1', '1 ', '', 'abc'])(
    'when the value is %j, then it is not an integer',
    (value) => {
      expect(messages(value)).toEqual(['must be an integer']);
    },
  );

  it('when the value is out of bounds, however large, then one issue says so', () => {
    expect(messages('0')).toHaveLength(1);
    expect(messages('101')).toHaveLength(1);
    expect(messages('99999999999999999999')).toHaveLength(1);
  });

  it('when there is no upper bound of its own, then the bound is what an integer column holds, and past it (even past the safe integers) one issue, not a rounded value', () => {
    const page = queryInteger({ min: 1, fallback: 1 });
    expect(page.parse('2147483647')).toBe(STORED_INTEGER_MAX);
    for (const digits of ['2147483648', '99999999999999999999']) {
      const parsed = page.safeParse(digits);
      expect(parsed.success).toBe(false);
      expect(parsed.error?.issues).toHaveLength(1);
      expect(parsed.error?.issues[0]?.code).toBe('too_big');
    }
  });
});

describe('commaList', () => {
  const urls = commaList('URLs', { max: 3 });
  const sections = commaList('sections', { values: ['errors', 'specs', 'all'] });
  const patternOf = (schema: z.ZodType) =>
    new RegExp((z.toJSONSchema(schema, { io: 'input' }) as { pattern: string }).pattern);

  it.each([
    ['a', true],
    [' a , b ', true],
    ['a,b,c', true],
    ['a,b,c,d', false],
    ['', false],
    [',', false],
    ['a,,b', false],
    ['a, ,b', false],
    ['a,\u00a0', false],
    ['\ufeffa', true],
  ])('when %j is sent, then the schema and the pattern the document shows agree (%s)', (value, accepted) => {
    expect(urls.safeParse(value).success).toBe(accepted);
    expect(patternOf(urls).test(value)).toBe(accepted);
  });

  it.each([
    ['errors', true],
    [' specs ,all', true],
    ['errors,bogus', false],
    ['Errors', false],
    ['', false],
  ])('when the sections %j are sent, then the schema and the pattern agree (%s)', (value, accepted) => {
    expect(sections.safeParse(value).success).toBe(accepted);
    expect(patternOf(sections).test(value)).toBe(accepted);
  });

  it('when entries are sent, then they come back trimmed, and a refusal says why', () => {
    expect(urls.parse(' a , b ')).toEqual(['a', 'b']);
    expect(urls.safeParse('a,,b').error?.issues[0]?.message).toBe(
      'must be a comma-separated list of URLs without empty entries',
    );
    expect(sections.safeParse('errors,bogus').error?.issues[0]?.message).toBe(
      'unknown value "bogus"; must be a comma-separated list of errors, specs, all',
    );
  });
});
