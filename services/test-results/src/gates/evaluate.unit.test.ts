import { evaluateGate, MAX_GATE_FAILURES, type GatedRun } from './evaluate';

const run = (overrides: Partial<GatedRun> = {}): GatedRun => ({
  stats: { total: 100, passed: 90, failed: 3, flaky: 5, skipped: 2 },
  failures: [
    { testCaseId: 'a', project: 'chromium', verdict: 'new', signatureId: null },
    { testCaseId: 'b', project: 'chromium', verdict: 'failing-on-base', signatureId: null },
    { testCaseId: 'c', project: 'firefox', verdict: 'quarantined', signatureId: null },
  ],
  platforms: ['chromium', 'firefox'],
  durationMs: 120_000,
  ...overrides,
});

describe('a quality gate', () => {
  it('when a project has no rules, then every run passes it', () => {
    expect(evaluateGate({}, run())).toEqual({ status: 'passed', rules: [] });
  });

  it('when failures exceed maxFailedTests, then it fails naming them; a quarantined failure does not count', () => {
    const gate = evaluateGate({ maxFailedTests: 1 }, run());
    expect(gate.status).toBe('failed');
    expect(gate.rules).toEqual([
      {
        rule: 'maxFailedTests',
        threshold: 1,
        observed: 2,
        passed: false,
        failures: [
          { testCaseId: 'a', project: 'chromium', verdict: 'new', signatureId: null },
          { testCaseId: 'b', project: 'chromium', verdict: 'failing-on-base', signatureId: null },
        ],
      },
    ]);
    expect(evaluateGate({ maxFailedTests: 2 }, run()).status).toBe('passed');
  });

  it('when a quarantined test fails with a new signature (verdict new), then noNewFailures fails and names it', () => {
    const gate = evaluateGate({ noNewFailures: true }, run());
    expect(gate.rules[0]).toMatchObject({
      rule: 'noNewFailures',
      passed: false,
      failures: [{ testCaseId: 'a', verdict: 'new', signatureId: null }],
    });
    const onlyKnown = run({
      failures: [{ testCaseId: 'c', project: null, verdict: 'quarantined', signatureId: null }],
    });
    expect(evaluateGate({ noNewFailures: true }, onlyKnown).status).toBe('passed');
  });

  it('when the pass rate is computed, then skipped tests are left out and quarantined failures count as passing', () => {
    // (90 passed + 5 flaky + 1 quarantined) of 98 that ran.
    const gate = evaluateGate({ minPassRate: 0.98 }, run());
    expect(gate.rules[0]).toMatchObject({ rule: 'minPassRate', observed: 96 / 98, passed: false });
    expect(evaluateGate({ minPassRate: 0.97 }, run()).status).toBe('passed');
  });

  it('when nothing ran, then minPassRate and minTestCount fail', () => {
    const empty = run({ stats: { total: 3, passed: 0, failed: 0, flaky: 0, skipped: 3 }, failures: [] });
    const gate = evaluateGate({ minPassRate: 0, minTestCount: 1 }, empty);
    expect(gate.rules.map((rule) => [rule.rule, rule.observed, rule.passed])).toEqual([
      ['minPassRate', 0, false],
      ['minTestCount', 0, false],
    ]);
  });

  it('when the flaky rate, the platforms or the duration are over their rules, then each rule says its threshold and what was observed', () => {
    const gate = evaluateGate(
      { maxFlakyRate: 0.06, requiredProjects: ['chromium', 'webkit'], maxDurationMs: 60_000 },
      run(),
    );
    expect(gate).toEqual({
      status: 'failed',
      rules: [
        { rule: 'maxFlakyRate', threshold: 0.06, observed: 5 / 98, passed: true, failures: [] },
        {
          rule: 'requiredProjects',
          threshold: ['chromium', 'webkit'],
          observed: ['chromium', 'firefox'],
          passed: false,
          failures: [],
        },
        { rule: 'maxDurationMs', threshold: 60_000, observed: 120_000, passed: false, failures: [] },
      ],
    });
  });

  it(`when more than ${MAX_GATE_FAILURES} failures break a rule, then the first ${MAX_GATE_FAILURES} are listed and the count is whole`, () => {
    const failures = Array.from({ length: 30 }, (_, i) => ({
      testCaseId: `t${i}`,
      project: null,
      verdict: 'new',
      signatureId: null,
    }));
    const gate = evaluateGate({ maxFailedTests: 0 }, run({ failures }));
    expect(gate.rules[0]).toMatchObject({ observed: 30, passed: false });
    expect(gate.rules[0]?.failures).toHaveLength(MAX_GATE_FAILURES);
  });
});
