import { ValidationError } from '@verdict/platform';
import { parseDebugBundleQuery, rawQueryOf, type QueryIssue, type RawQuery } from './params';
import { assertAttemptInRange, resolveAttempt } from './test/attempt';

/** The ValidationError a query is rejected with; fails the test when it is accepted. */
function rejectionOf(query: RawQuery): ValidationError {
  try {
    parseDebugBundleQuery(query);
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(query)} to be rejected`);
}

function issuesOf(error: ValidationError): QueryIssue[] {
  return (error.details as { issues: QueryIssue[] }).issues;
}

/** Asserts a 400 VALIDATION_ERROR that names `parameter` under spec §4.2 rule `rule`. */
function expectRejected(query: RawQuery, parameter: string, rule: number | null): ValidationError {
  const error = rejectionOf(query);
  expect(error.code).toBe('VALIDATION_ERROR');
  expect(issuesOf(error)).toContainEqual(expect.objectContaining({ parameter, rule }));
  expect(error.message).toContain(parameter);
  return error;
}

describe('parseDebugBundleQuery: scope selection (spec §4.2 priority table)', () => {
  it('when only runId is sent, then the run scope is selected with the defaults', () => {
    expect(parseDebugBundleQuery({ runId: 'r1' })).toEqual({
      scope: 'run',
      runId: 'r1',
      page: 1,
      limit: 10,
      view: 'full',
      as: 'json',
    });
  });

  it('when suiteId and runId are sent, then the suite scope is selected', () => {
    expect(
      parseDebugBundleQuery({ runId: 'r1', suiteId: 's1', view: 'brief', page: '3', limit: '50' }),
    ).toEqual({ scope: 'suite', runId: 'r1', suiteId: 's1', page: 3, limit: 50, view: 'brief', as: 'json' });
  });

  it('when caseId is sent alone, then the test scope is selected without a runId (the latest run)', () => {
    expect(parseDebugBundleQuery({ caseId: 'c1' })).toEqual({
      scope: 'test',
      caseId: 'c1',
      view: 'full',
      as: 'json',
    });
  });

  it('when caseId comes with runId and suiteId, then the test scope wins and keeps the runId', () => {
    expect(parseDebugBundleQuery({ caseId: 'c1', runId: 'r1', suiteId: 's1' })).toEqual({
      scope: 'test',
      caseId: 'c1',
      runId: 'r1',
      view: 'full',
      as: 'json',
    });
  });

  it('when as=markdown comes with budgetChars, then both are returned', () => {
    expect(
      parseDebugBundleQuery({ caseId: 'c1', as: 'markdown', budgetChars: '128000', view: 'headline' }),
    ).toEqual({ scope: 'test', caseId: 'c1', view: 'headline', as: 'markdown', budgetChars: 128000 });
  });
});

describe('parseDebugBundleQuery: the defaults view=full, page=1, limit=10 are accepted at every scope', () => {
  const defaults = { view: 'full', page: '1', limit: '10' };

  it.each([
    ['run', { runId: 'r1' }],
    ['suite', { runId: 'r1', suiteId: 's1' }],
    ['test', { caseId: 'c1' }],
  ])('when the defaults are sent at %s scope, then the request is accepted', (scope, ids) => {
    expect(parseDebugBundleQuery({ ...ids, ...defaults }).scope).toBe(scope);
  });
});

describe('parseDebugBundleQuery: the ten rejections of spec §4.2', () => {
  it('rule 1: when none of runId, suiteId, caseId is sent, then 400 VALIDATION_ERROR', () => {
    expectRejected({ view: 'full', as: 'json' }, 'runId', 1);
    expectRejected({}, 'runId', 1);
  });

  it('rule 2: when suiteId is sent without runId, then 400 VALIDATION_ERROR', () => {
    expectRejected({ suiteId: 's1' }, 'suiteId', 2);
    expectRejected({ suiteId: 's1', caseId: 'c1' }, 'suiteId', 2);
  });

  it('rule 3: when as, view or budgetChars is not a valid value, then 400 VALIDATION_ERROR', () => {
    expectRejected({ runId: 'r1', as: 'xml' }, 'as', 3);
    expectRejected({ caseId: 'c1', view: 'summary' }, 'view', 3);
    expectRejected({ caseId: 'c1', view: 'FULL' }, 'view', 3);
    for (const budgetChars of ['0', '128001', '12.5', 'abc', '-5', '']) {
      expectRejected({ caseId: 'c1', as: 'markdown', budgetChars }, 'budgetChars', 3);
    }
  });

  it('rule 4: when view is not full at run scope, then 400 VALIDATION_ERROR', () => {
    expectRejected({ runId: 'r1', view: 'brief' }, 'view', 4);
    expectRejected({ runId: 'r1', view: 'headline' }, 'view', 4);
  });

  it('when project is sent without caseId, then 400 VALIDATION_ERROR: run and suite scopes list every platform', () => {
    expectRejected({ runId: 'r1', project: 'firefox' }, 'project', null);
    expect(parseDebugBundleQuery({ caseId: 'c1', project: 'firefox' })).toMatchObject({
      scope: 'test',
      project: 'firefox',
    });
  });

  it('rule 5: when attempt is sent without caseId, then 400 VALIDATION_ERROR', () => {
    expectRejected({ runId: 'r1', attempt: '0' }, 'attempt', 5);
    expectRejected({ runId: 'r1', suiteId: 's1', attempt: '1' }, 'attempt', 5);
  });

  it('rule 6: when page or limit has a non-default value at test scope, then 400 VALIDATION_ERROR', () => {
    expectRejected({ caseId: 'c1', page: '2' }, 'page', 6);
    expectRejected({ caseId: 'c1', limit: '20' }, 'limit', 6);
    expectRejected({ caseId: 'c1', runId: 'r1', limit: '9' }, 'limit', 6);
  });

  it('rule 7: when budgetChars is sent without as=markdown, then 400 VALIDATION_ERROR', () => {
    expectRejected({ caseId: 'c1', budgetChars: '500' }, 'budgetChars', 7);
    expectRejected({ caseId: 'c1', as: 'json', budgetChars: '500' }, 'budgetChars', 7);
  });

  it('rule 8: when a parameter is sent more than once, even with the same value, then 400 VALIDATION_ERROR', () => {
    expectRejected({ runId: ['r1', 'r2'] }, 'runId', 8);
    expectRejected(rawQueryOf('/p1/debug-bundle?runId=r1&runId=r1'), 'runId', 8);
    expectRejected(rawQueryOf('/p1/debug-bundle?caseId=c1&view=full&view=full'), 'view', 8);
    expectRejected(rawQueryOf('/p1/debug-bundle?runId=r1&utm=a&utm=a'), 'utm', 8);
  });

  it('rule 9: when a retired parameter (format, detail, maxLength) is sent, then 400 VALIDATION_ERROR', () => {
    expectRejected({ runId: 'r1', format: 'markdown' }, 'format', 9);
    expectRejected({ caseId: 'c1', detail: 'full' }, 'detail', 9);
    expectRejected({ caseId: 'c1', as: 'markdown', maxLength: '100' }, 'maxLength', 9);
    expectRejected({ runId: 'r1', format: '' }, 'format', 9);
  });

  it('rule 10: when page or limit is out of range or not an integer, then 400 VALIDATION_ERROR', () => {
    for (const page of ['0', '1000001', '1.5', 'abc', '-1', '+2', ' 2', '1e3', '']) {
      expectRejected({ runId: 'r1', page }, 'page', 10);
    }
    for (const limit of ['0', '51', 'ten', '10.0']) {
      expectRejected({ runId: 'r1', suiteId: 's1', limit }, 'limit', 10);
    }
  });
});

describe('parseDebugBundleQuery: limits and edge cases', () => {
  it('when page and limit sit at their bounds, then they are accepted', () => {
    expect(parseDebugBundleQuery({ runId: 'r1', page: '1000000', limit: '50' })).toMatchObject({
      page: 1000000,
      limit: 50,
    });
    expect(parseDebugBundleQuery({ runId: 'r1', page: '1', limit: '1' })).toMatchObject({
      page: 1,
      limit: 1,
    });
  });

  it('when budgetChars sits at its bounds with as=markdown, then it is accepted', () => {
    expect(parseDebugBundleQuery({ runId: 'r1', as: 'markdown', budgetChars: '1' })).toMatchObject({
      budgetChars: 1,
    });
  });

  it('when attempt is a non-negative integer with caseId, then it is returned', () => {
    expect(parseDebugBundleQuery({ caseId: 'c1', attempt: '0' })).toMatchObject({ attempt: 0 });
    expect(parseDebugBundleQuery({ caseId: 'c1', attempt: '12' })).toMatchObject({ attempt: 12 });
  });

  it('when attempt is an integer past the largest safe one, then it is kept as past every index (INVALID_ATTEMPT later)', () => {
    const query = parseDebugBundleQuery({ caseId: 'c1', attempt: '99999999999999999999' });
    expect(query).toMatchObject({ attempt: Number.MAX_SAFE_INTEGER });
    expect(() => assertAttemptInRange(Number.MAX_SAFE_INTEGER, 2)).toThrow(
      expect.objectContaining({ code: 'INVALID_ATTEMPT' }),
    );
  });

  it('when attempt is negative, fractional or not a number, then 400 VALIDATION_ERROR (not INVALID_ATTEMPT)', () => {
    for (const attempt of ['-1', '1.5', 'last', '']) {
      expectRejected({ caseId: 'c1', attempt }, 'attempt', null);
    }
  });

  it('when an id is sent empty, then 400 VALIDATION_ERROR rather than treating it as missing', () => {
    expectRejected({ runId: '' }, 'runId', null);
    expectRejected({ caseId: '', runId: 'r1' }, 'caseId', null);
    expectRejected({ runId: 'r1', suiteId: '' }, 'suiteId', null);
  });

  it('when an id is longer than 512 characters, then 400 VALIDATION_ERROR', () => {
    expectRejected({ runId: 'r'.repeat(513) }, 'runId', null);
    expect(parseDebugBundleQuery({ runId: 'r'.repeat(512) }).scope).toBe('run');
  });

  it('when unknown parameters are sent once, then they are ignored', () => {
    expect(parseDebugBundleQuery({ runId: 'r1', RunId: 'x', include: 'all', toString: 'x' })).toEqual(
      parseDebugBundleQuery({ runId: 'r1' }),
    );
  });

  it('when several rules are broken, then one error names every one of them', () => {
    const error = rejectionOf({ suiteId: 's1', attempt: 'x', format: 'json', budgetChars: '9' });
    expect(issuesOf(error).map((issue) => [issue.parameter, issue.rule])).toEqual(
      expect.arrayContaining([
        ['format', 9],
        ['attempt', null],
        ['suiteId', 2],
        ['attempt', 5],
        ['budgetChars', 7],
      ]),
    );
    expect(error.message.split('; ')).toHaveLength(issuesOf(error).length);
  });
});

describe('rawQueryOf', () => {
  it('when a parameter repeats, then it becomes an array; single ones stay strings', () => {
    expect({ ...rawQueryOf('/p/debug-bundle?runId=r%201&a=1&a=2&a=3') }).toEqual({
      runId: 'r 1',
      a: ['1', '2', '3'],
    });
  });

  it('when the URL has no query, then the query is empty', () => {
    expect({ ...rawQueryOf('/p/debug-bundle') }).toEqual({});
  });

  it('when a value or a name holds a NUL (%00), then it reads as U+FFFD, as in every other query', () => {
    expect({ ...rawQueryOf('/p/debug-bundle?runId=%00&a%00=1') }).toEqual({
      runId: '\uFFFD',
      'a\uFFFD': '1',
    });
  });

  it('when a name has the bracket form of qs-style clients (view[]), then it is that parameter, its rules included', () => {
    expect({ ...rawQueryOf('/p/debug-bundle?runId=r1&view[]=brief&suiteId%5B%5D=s') }).toEqual({
      runId: 'r1',
      view: 'brief',
      suiteId: 's',
    });
    expectRejected(rawQueryOf('/p1/debug-bundle?runId=r1&view[]=brief'), 'view', 4);
    expectRejected(rawQueryOf('/p1/debug-bundle?runId=r1&format[]=x'), 'format', 9);
    expectRejected(rawQueryOf('/p1/debug-bundle?runId=r1&runId[]=r1'), 'runId', 8);
  });

  it('when a parameter is named __proto__, then it is a plain key', () => {
    const query = rawQueryOf('/p?__proto__=x&runId=r1');
    expect(Object.getPrototypeOf(query)).toBeNull();
    expect(query.__proto__).toBe('x');
  });
});

describe('attempt range (400 INVALID_ATTEMPT)', () => {
  it('when the attempt index is within the attempts, then it is accepted', () => {
    expect(() => assertAttemptInRange(0, 1)).not.toThrow();
    expect(() => assertAttemptInRange(2, 3)).not.toThrow();
  });

  it('when the attempt index is beyond the attempts, then 400 INVALID_ATTEMPT', () => {
    expect(() => assertAttemptInRange(3, 3)).toThrow(expect.objectContaining({ code: 'INVALID_ATTEMPT' }));
    expect(() => assertAttemptInRange(3, 3)).toThrow(
      /attempt: 3 is out of range; this test has 3 attempts \(0 to 2\)/,
    );
    expect(() => assertAttemptInRange(0, 0)).toThrow(expect.objectContaining({ code: 'INVALID_ATTEMPT' }));
  });

  it('when no attempt is requested, then the latest is resolved', () => {
    expect(resolveAttempt(undefined, 3)).toBe(2);
    expect(resolveAttempt(1, 3)).toBe(1);
  });

  it('when a test has no attempts, then resolving any attempt is 400 INVALID_ATTEMPT', () => {
    expect(() => resolveAttempt(undefined, 0)).toThrow(expect.objectContaining({ code: 'INVALID_ATTEMPT' }));
  });
});
