import type { RunFailure, RunGate } from '@verdict/client';
import { renderGate } from './quarantine';

const gate = (status: RunGate['status'], rules: RunGate['rules'] = []): RunGate => ({
  runId: 'run-1',
  status,
  evaluatedAt: status === 'passed' || status === 'failed' ? '2026-03-01T12:04:30.000Z' : null,
  rules,
});

const failure = (n: number) => ({
  testCaseId: `case-${n}`,
  project: 'chromium',
  verdict: 'failing-on-base',
  signatureId: null,
});

describe('a run’s quality gate in Markdown', () => {
  it('when the run has not finished or had no rules, then one sentence says so', () => {
    expect(renderGate(gate('pending'), new Map())).toMatch(/^The quality gate of run `run-1` is pending/);
    expect(renderGate(gate('none'), new Map())).toMatch(/^Run `run-1` has no quality gate/);
  });

  it('when rates, booleans and platforms are judged, then each reads as a person would write it', () => {
    const text = renderGate(
      gate('failed', [
        { rule: 'minPassRate', passed: false, threshold: 0.95, observed: 0.875, failures: [] },
        { rule: 'noNewFailures', passed: true, threshold: true, observed: true, failures: [] },
        { rule: 'maxFlakyRate', passed: false, threshold: 0.07, observed: 0.1, failures: [] },
        {
          rule: 'requiredProjects',
          passed: false,
          threshold: ['chromium', 'webkit'],
          observed: ['chromium'],
          failures: [],
        },
      ]),
      new Map(),
    );
    expect(text).toContain('Judged 2026-03-01 12:04Z: 4 rules, 3 broken.');
    expect(text).toMatch(/\| minPassRate \| [^|]+ \| 95% \| 87\.5% \| failed \|/);
    expect(text).toMatch(/\| noNewFailures \| [^|]+ \| true \| true \| passed \|/);
    expect(text).toMatch(/\| maxFlakyRate \| [^|]+ \| 7% \| 10% \| failed \|/);
    expect(text).toMatch(/\| requiredProjects \| [^|]+ \| chromium, webkit \| chromium \| failed \|/);
  });

  it('when a rule lists only the first of its failures, then it says how many there were, and names the tests it knows', () => {
    const known = {
      testCaseId: 'case-0',
      project: 'chromium',
      title: 'pays by card',
      titlePath: ['checkout', 'pays by card'],
      file: 'tests/checkout.spec.ts',
    } as RunFailure;
    const text = renderGate(
      gate('failed', [
        {
          rule: 'maxFailedTests',
          passed: false,
          threshold: 0,
          observed: 25,
          failures: Array.from({ length: 20 }, (_, n) => failure(n)),
        },
      ]),
      new Map([['case-0\u0000chromium', known]]),
    );
    expect(text).toContain('### maxFailedTests: the failures that broke it (the first 20 of 25)');
    expect(text).toContain(
      '- `checkout › pays by card` in `tests/checkout.spec.ts` [chromium]; verdict failing-on-base; caseId `case-0`',
    );
    expect(text).toContain('- a test [chromium]; verdict failing-on-base; caseId `case-19`');
  });
});
