import type { AnalyticsSummary } from '../types';
import { clip, count, duration, percent, table } from './markdown';

type UniqueTest = AnalyticsSummary['uniqueFlakyTests'][number];

function testTable(tests: readonly UniqueTest[], limit: number, what: string): string[] {
  if (tests.length === 0) return [`No ${what}.`];
  const shown = tests.slice(0, limit);
  return [
    `${tests.length > shown.length ? `The first ${shown.length} of ${tests.length} ${what}` : `The ${count(tests.length, what.replace(/s$/, ''), what)}`}, most days first:`,
    '',
    table(
      ['Test', 'File', 'Days', 'Dates'],
      shown.map((test) => [
        clip(test.title, 200),
        test.filePath,
        test.failedInDays,
        clip(test.dates.join(', '), 120),
      ]),
    ),
  ];
}

/** The analytics summary: metrics, then the flaky tests and the new failures. */
export function renderAnalyticsSummary(summary: AnalyticsSummary, limit: number): string {
  const { metrics, range } = summary;
  return [
    `## Test suite health from ${range.from.slice(0, 10)} to ${range.to.slice(0, 10)} (${range.days} days, UTC)`,
    '',
    `- Runs: ${metrics.totalRuns} (${metrics.passedRuns} passed, ${metrics.failedRuns} failed; ${metrics.avgRunsPerDay} a day on average), average run duration ${duration(metrics.avgExecutionTime)}.`,
    `- Test cases that ran: ${metrics.totalTestCases}; test durations: half under ${duration(metrics.durationThresholds.fast)}, 75% under ${duration(metrics.durationThresholds.medium)}, 90% under ${duration(metrics.durationThresholds.slow)}.`,
    `- Flaky tests over the last ${range.flakyLookbackDays} days: ${metrics.flaky.totalFlakyTestCases} (${percent(metrics.flaky.flakinessPercentage)} of the tests that ran).`,
    `- New failures (failed after passing before, or on their first run): ${metrics.newFailures.totalNewFailures} (${percent(metrics.newFailures.newFailuresPercentage)}).`,
    '',
    '### Flaky tests',
    '',
    ...testTable(summary.uniqueFlakyTests, limit, 'flaky tests'),
    '',
    '### New failures',
    '',
    ...testTable(summary.uniqueNewFailures, limit, 'new failures'),
    '',
    'Next: search_tests with a title finds its caseId; get_test_history shows its executions.',
  ].join('\n');
}
