import { renderFailures, type FailingTest } from './failures';

const ERRORS = [
  'TimeoutError: locator.click: Timeout 5000ms exceeded.\nCall log:\n  - waiting for getByRole("button", { name: "Pay" })',
  'Error: expect(received).toBe(expected)\n\nExpected: 200\nReceived: 500',
  'Error: page.goto: net::ERR_CONNECTION_REFUSED at http://localhost:3000/checkout',
];

/** `n` failing tests across files and errors, every tenth one flaky. */
function failingTests(n: number): FailingTest[] {
  return Array.from({ length: n }, (_, i) => ({
    caseId: `case-${String(i).padStart(4, '0')}-${'x'.repeat(24)}`,
    title: `test number ${i} of the checkout`,
    titlePath: ['checkout', `group ${i % 7}`, `test number ${i} of the checkout`],
    file: `tests/checkout/part-${i % 5}.spec.ts`,
    line: 10 + i,
    project: i % 2 === 0 ? 'chromium' : 'firefox',
    outcome: i % 10 === 0 ? 'flaky' : 'failed',
    attempts: 2,
    error: { message: ERRORS[i % ERRORS.length] as string },
    alsoFailedIn: i % 3 === 0 ? ['run-a', 'run-b'] : [],
  }));
}

const report = (tests: FailingTest[]) => ({
  headline: `**Run \`r1\` failed**: ${tests.length} failed of 500 tests.`,
  tests,
  notFetched: 0,
  next: ['Next: get_failure_context with a caseId.'],
});

describe('renderFailures', () => {
  it('when everything fits, then each failing test is listed with its caseId, platform and file under its error', () => {
    const text = renderFailures(report(failingTests(6)), 128_000);
    expect(text).toContain('## Failing tests by error (3 distinct errors, 6 tests)');
    expect(text).toContain('caseId `case-0001-');
    expect(text).toContain('[firefox]');
    expect(text).toContain('`tests/checkout/part-1.spec.ts:11`');
    expect(text).toContain('flaky: `checkout › group 0 › test number 0 of the checkout`');
    expect(text).toContain('Next: get_failure_context with a caseId.');
  });

  it.each([40_000, 20_000, 12_000, 9_000])(
    'when 200 tests fail and budgetChars is %i, then the answer stays within it and still names every failing test',
    (budget) => {
      const tests = failingTests(200);
      const text = renderFailures(report(tests), budget);
      expect(text.length).toBeLessThanOrEqual(budget);
      const unnamed = tests.filter((test) => !text.includes(test.title));
      expect(unnamed).toEqual([]);
      expect(text).toContain('Next: get_failure_context with a caseId.');
    },
  );

  it('when the budget is ample, then ids are kept; when it is tight, then detail goes before names do', () => {
    const tests = failingTests(200);
    expect(renderFailures(report(tests), 128_000)).toContain('caseId `');
    const tight = renderFailures(report(tests), 9_000);
    expect(tight).not.toContain('caseId `');
  });

  it('when not even the titles fit, then as many as fit are named and the answer says how many are not and what budget names them all', () => {
    const tests = failingTests(200);
    const text = renderFailures(report(tests), 2_000);
    expect(text.length).toBeLessThanOrEqual(2_000);
    const named = tests.filter(
      (test) => text.includes(`${test.title}\n`) || text.includes(`${test.title};`),
    ).length;
    const note = /… (\d+) more failing tests not named: budgetChars=(\d+) names them all\./.exec(text);
    expect(note).not.toBeNull();
    expect(Number(note?.[1])).toBe(200 - named);
    expect(named).toBeGreaterThan(0);
    // The budget it names is enough.
    const enough = Number(note?.[2]);
    expect(tests.every((test) => renderFailures(report(tests), enough).includes(test.title))).toBe(true);
  });

  it('when messages differ only in their numbers, then they are one error, said to vary', () => {
    const tests = failingTests(4).map((test, i) => ({
      ...test,
      error: { message: `Error: product ${i * 7} not found (port 30${i}1)` },
    }));
    const text = renderFailures(report(tests), 10_000);
    expect(text).toContain('(1 distinct error, 4 tests)');
    expect(text).toContain('### 1. `Error: product 0 not found (port 3001)` (numbers vary) (4 tests)');
  });

  it('when every test has its own error and the budget is tight, then errors are left out and every test is still named under its file', () => {
    const tests = failingTests(200).map((test, i) => ({
      ...test,
      error: { message: `Error: case ${'abcdefghij'[i % 10]}${'klmnopqrst'[Math.floor(i / 10) % 10]} broke` },
    }));
    const text = renderFailures(report(tests), 7_000);
    expect(text.length).toBeLessThanOrEqual(7_000);
    expect(text).toContain('_Errors left out to fit budgetChars');
    expect(text).toContain(
      '- tests/checkout/part-0.spec.ts: test number 0 of the checkout; test number 5 of the checkout;',
    );
    expect(tests.filter((test) => !text.includes(test.title))).toEqual([]);
  });

  it('when no test fails, then it says so', () => {
    expect(renderFailures(report([]), 1_000)).toContain('No failing tests.');
  });

  it('when only some pages were read, then the answer says how many failing tests were left out', () => {
    const text = renderFailures({ ...report(failingTests(3)), notFetched: 997 }, 10_000);
    expect(text).toContain('Only the first 3 failing tests were read; 997 more exist.');
  });

  it('when an error message holds backticks and line breaks, then it stays in one code span on one line', () => {
    const tests = failingTests(1).map((test) => ({
      ...test,
      error: { message: 'Expected `a` to be ``b``\nsecond line' },
    }));
    const text = renderFailures(report(tests), 10_000);
    expect(text).toContain('### 1. ``` Expected `a` to be ``b`` ``` (1 test)');
    expect(text).not.toContain('second line');
  });
});
