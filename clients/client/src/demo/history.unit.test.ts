import type { ResultItem } from '../types';
import { demoHistory, type DemoRun, type DemoTestRef } from './history';

const now = new Date('2026-11-29T01:30:00.000Z');
const history = demoHistory({ now });
const { runs, story } = history;

const resultsOf = (run: DemoRun, test: DemoTestRef): ResultItem[] =>
  run.results.filter(
    (result) => result.file === test.file && result.titlePath.join('>') === test.titlePath.join('>'),
  );
const outcomeOf = (run: DemoRun, test: DemoTestRef) => {
  const attempts = resultsOf(run, test);
  if (attempts.length === 0) return 'absent';
  if (attempts.at(-1)?.status === 'passed') return attempts.length > 1 ? 'flaky' : 'passed';
  return attempts[0]?.status === 'skipped' ? 'skipped' : 'failed';
};
const onMain = runs.filter((run) => run.start.branch === 'main');

describe('demoHistory', () => {
  it('when given the same now and seed twice, then it makes the same history', () => {
    expect(demoHistory({ now })).toEqual(history);
  });

  it('when given another seed, then the history differs', () => {
    expect(demoHistory({ now, seed: 2 }).runs).not.toEqual(runs);
  });

  it('when a day passes, then the runs of the days both windows hold keep their content', () => {
    const tomorrow = demoHistory({ now: new Date(now.getTime() + 86_400_000) });
    const before = runs.find((run) => run.ciRunId.includes(':main:2026-11-05:'));
    const after = tomorrow.runs.find((run) => run.ciRunId === before?.ciRunId);
    expect(after?.start.commit).toEqual(before?.start.commit);
    expect(after?.start.startedAt).toEqual(before?.start.startedAt);
  });

  it('when asked for 30 days, then runs start on 30 distinct days of the last 30 × 24 hours, none after now', () => {
    const days = new Set(runs.map((run) => run.start.startedAt.slice(0, 10)));
    expect(days.size).toBe(30);
    expect([...days].sort()[0]).toBe('2026-10-30');
    for (const run of runs) {
      expect(Date.parse(run.finishedAt)).toBeLessThanOrEqual(now.getTime());
      expect(Date.parse(run.start.startedAt)).toBeGreaterThanOrEqual(now.getTime() - 30 * 86_400_000);
      expect(Date.parse(run.finishedAt)).toBeGreaterThan(Date.parse(run.start.startedAt));
    }
  });

  it('when listing branches, then main has several runs a weekday and both feature branches have runs', () => {
    const count = (branch: string) => runs.filter((run) => run.start.branch === branch).length;
    expect(count('main')).toBeGreaterThanOrEqual(60);
    expect(story.branches).toEqual(['feature/checkout-v2', 'fix/login-timeout']);
    for (const branch of story.branches) expect(count(branch)).toBeGreaterThanOrEqual(5);
    expect(new Set(runs.map((run) => run.start.branch)).size).toBe(3);
  });

  it('when reading a run, then it has a unique ciRunId, a commit with sha, message and author, and CI and framework', () => {
    expect(new Set(runs.map((run) => run.ciRunId)).size).toBe(runs.length);
    for (const run of runs) {
      expect(run.start.ciRunId).toBe(run.ciRunId);
      expect(run.start.commit?.sha).toMatch(/^[0-9a-f]{40}$/);
      expect(run.start.commit?.message).toBeTruthy();
      expect(run.start.commit?.author).toMatch(/<.+@.+>/);
      expect(run.start.framework?.name).toBe('playwright');
      expect(run.start.ci?.buildId).toBeTruthy();
    }
  });

  it('when counting tests, then a run has 60 to 120 tests across 10 spec files', () => {
    const run = runs[0] as DemoRun;
    const tests = new Set(run.results.map((result) => `${result.file}>${result.titlePath.join('>')}`));
    expect(tests.size).toBeGreaterThanOrEqual(60);
    expect(tests.size).toBeLessThanOrEqual(120);
    expect(new Set(run.results.map((result) => result.file)).size).toBe(10);
  });

  it('when the regression commit lands on main, then its test passed in every main run before and fails in every main run from it on', () => {
    const index = onMain.findIndex((run) => run.ciRunId === story.regression.ciRunId);
    expect(index).toBeGreaterThan(5);
    expect(onMain[index]?.start.commit?.sha).toBe(story.regression.commit.sha);
    expect(onMain[index]?.start.commit?.message).toBe(story.regression.commit.message);
    expect(onMain.slice(0, index).map((run) => outcomeOf(run, story.regression))).toEqual(
      onMain.slice(0, index).map(() => 'passed'),
    );
    const after = onMain.slice(index);
    expect(after.length).toBeGreaterThan(5);
    expect(after.map((run) => outcomeOf(run, story.regression))).toEqual(after.map(() => 'failed'));
    const failed = resultsOf(after[0] as DemoRun, story.regression);
    expect(failed.map((result) => result.attempt)).toEqual([0, 1]);
    expect(failed[0]?.error?.message).toMatch(/^Error: expect\(received\)\.toBe\(expected\)/);
  });

  it('when a flaky test flakes, then attempt 0 failed with an error and attempt 1 passed without one', () => {
    for (const test of story.flaky.slice(0, 2)) {
      const flaky = runs.filter((run) => outcomeOf(run, test) === 'flaky');
      expect(flaky.length).toBeGreaterThanOrEqual(3);
      expect(flaky.length).toBeLessThan(runs.length / 2);
      for (const run of flaky) {
        const [first, retry] = resultsOf(run, test);
        expect([first?.attempt, first?.status, typeof first?.error?.message]).toEqual([
          0,
          'failed',
          'string',
        ]);
        expect([retry?.attempt, retry?.status, retry?.error]).toEqual([1, 'passed', undefined]);
      }
    }
  });

  it('when the login fix branch runs, then the login test it fixes never flakes there', () => {
    const [login] = story.flaky;
    const fixed = runs.filter((run) => run.start.branch === 'fix/login-timeout');
    expect(fixed.map((run) => outcomeOf(run, login as DemoTestRef))).toEqual(fixed.map(() => 'passed'));
  });

  it('when the same error recurs, then its messages differ in numbers and ids but keep their shape', () => {
    const messages = runs.flatMap((run) =>
      run.results.flatMap((result) => (result.error ? [result.error.message] : [])),
    );
    const refused = messages.filter((message) => message.includes('ECONNREFUSED'));
    expect(refused.length).toBeGreaterThanOrEqual(5);
    expect(new Set(refused).size).toBeGreaterThan(refused.length / 2);
    for (const message of refused)
      expect(message).toMatch(/^Error: apiRequestContext\.post: connect ECONNREFUSED 127\.0\.0\.1:\d{5}$/);
    const invoices = messages.filter((message) => message.startsWith('Error: Invoice download failed'));
    expect(invoices.some((message) => message.includes(' 500 '))).toBe(true);
    expect(invoices.some((message) => message.includes(' 503 '))).toBe(true);
    expect(new Set(invoices.map((message) => /ord_\w+/.exec(message)?.[0])).size).toBe(invoices.length);
    expect(
      messages.some((message) => message.startsWith('TimeoutError: locator.click: Timeout 5000ms exceeded.')),
    ).toBe(true);
  });

  it('when the slow-down day comes, then the slowed spec takes about twice as long and the others do not', () => {
    const total = (run: DemoRun, slowed: boolean) =>
      run.results
        .filter((result) => (result.file === story.slowdown.file) === slowed && result.attempt === 0)
        .reduce((sum, result) => sum + result.durationMs, 0);
    const mean = (list: DemoRun[], slowed: boolean) =>
      list.reduce((sum, run) => sum + total(run, slowed), 0) / list.length;
    const before = onMain.filter((run) => run.start.startedAt < story.slowdown.from);
    const after = onMain.filter((run) => run.start.startedAt >= story.slowdown.from);
    expect(mean(after, true) / mean(before, true)).toBeGreaterThan(1.8);
    expect(mean(after, false) / mean(before, false)).toBeLessThan(1.2);
  });

  it('when feature/checkout-v2 runs mid-way, then its branch-only failure fails there and never on main', () => {
    const failing = runs.filter((run) => outcomeOf(run, story.branchFailure) === 'failed');
    expect(failing.length).toBeGreaterThanOrEqual(3);
    expect(new Set(failing.map((run) => run.start.branch))).toEqual(new Set([story.branchFailure.branch]));
  });

  it('when asked for a smaller history, then it has those days and fewer tests, the story included', () => {
    const small = demoHistory({ now, days: 4, testsPerSpec: 2 });
    expect(new Set(small.runs.map((run) => run.start.startedAt.slice(0, 10))).size).toBeLessThanOrEqual(4);
    const tests = new Set(
      small.runs[0]?.results.map((result) => `${result.file}>${result.titlePath.join('>')}`),
    );
    expect(tests.size).toBeLessThan(30);
    expect(tests.has(`${story.regression.file}>${story.regression.titlePath.join('>')}`)).toBe(true);
  });
});
