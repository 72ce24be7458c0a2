import { queryInteger } from './http';

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

  it('when there is no upper bound, then past the safe integers is still refused, not rounded into range', () => {
    const page = queryInteger({ min: 1, fallback: 1 });
    expect(page.parse('9007199254740991')).toBe(Number.MAX_SAFE_INTEGER);
    const parsed = page.safeParse('99999999999999999999');
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues).toHaveLength(1);
    expect(parsed.error?.issues[0]?.code).toBe('too_big');
  });
});
