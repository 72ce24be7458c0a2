import type { ExplorerData, TestCaseDetail } from '../types';
import { clip, code, duration, firstLine, minute, oneLine, percent, table } from './markdown';
import { pageLine } from './runs';

type Execution = NonNullable<TestCaseDetail['history']>['items'][number];
type ExplorerTest = ExplorerData['testCases'][number];

/** `main (3), feat/x (1)`: how often each value occurs, most often first. */
function tally(values: readonly (string | null)[]): string {
  const counts = new Map<string, number>();
  for (const value of values) {
    const key = value ?? '(none)';
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return [...counts.entries()]
    .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
    .map(([value, n]) => `${code(value)} (${n})`)
    .join(', ');
}

const rate = (part: number, total: number) =>
  total === 0 ? '–' : percent(Math.round((part / total) * 1000) / 10);

/** A test case's counts, where it failed, and its latest executions as a table. */
export function renderTestHistory(detail: TestCaseDetail, outcome?: string): string {
  const { stats } = detail;
  const items = detail.history?.items ?? [];
  const total = detail.history?.pagination.total ?? items.length;
  const failures = items.filter((item) => item.outcome === 'failed' || item.outcome === 'flaky');
  const lines = [
    `## ${code(oneLine(detail.titlePath.join(' › ') || detail.title))} in ${code(detail.file)}`,
    '',
    `caseId ${code(detail.id)} · platforms ${detail.platforms.length > 0 ? detail.platforms.map(code).join(', ') : '–'}${detail.tags.length > 0 ? ` · tags ${detail.tags.map(code).join(', ')}` : ''} · first seen ${minute(detail.firstSeenAt)}, last seen ${minute(detail.lastSeenAt)}.`,
    `All recorded executions: ${stats.total} — ${stats.passed} passed, ${stats.failed} failed, ${stats.flaky} flaky, ${stats.skipped} skipped (failure rate ${rate(stats.failed, stats.total)}, flaky rate ${rate(stats.flaky, stats.total)}).`,
  ];
  if (items.length === 0) {
    lines.push('', outcome ? `No ${outcome} execution recorded.` : 'No execution recorded.');
    return lines.join('\n');
  }
  const latest = items[0] as Execution;
  lines.push(
    `Latest execution: ${latest.outcome} in run #${latest.counter} ${code(latest.runId)} on ${minute(latest.startedAt)}${latest.branch ? ` (branch ${code(latest.branch)})` : ''}.`,
  );
  if (failures.length > 0) {
    const last = failures[0] as Execution;
    const dimensions = [
      ['branches', failures.map((f) => f.branch)],
      ['environments', failures.map((f) => f.environment)],
      ['platforms', failures.map((f) => f.project)],
    ] as const;
    const where = dimensions
      .filter(([, values]) => values.some((value) => value !== null))
      .map(([name, values]) => `${name} ${tally(values)}`);
    lines.push(
      `Where it failed or was flaky, among the ${items.length} executions shown: ${where.length > 0 ? where.join('; ') : 'no branch, environment or platform recorded'}.`,
      `Last failure: ${last.outcome} in run #${last.counter} ${code(last.runId)} on ${minute(last.startedAt)}${last.errorMessage ? `: ${code(clip(firstLine(last.errorMessage), 200))}` : ''}.`,
    );
  } else {
    lines.push(`It did not fail in the ${items.length} executions shown.`);
  }
  lines.push(
    '',
    `Latest ${items.length} of ${total}${outcome ? ` ${outcome}` : ''} executions, newest first:`,
    '',
    table(
      [
        'Run',
        'Run id',
        'Started (UTC)',
        'Branch',
        'Env',
        'Platform',
        'Outcome',
        'Attempts',
        'Duration',
        'Error',
      ],
      items.map((item) => [
        `#${item.counter}`,
        item.runId,
        minute(item.startedAt),
        item.branch,
        item.environment,
        item.project,
        item.outcome,
        item.attempts,
        duration(item.durationMs),
        item.errorMessage ? clip(firstLine(item.errorMessage), 120) : null,
      ]),
    ),
  );
  return lines.join('\n');
}

/** Explorer test cases as a table. */
export function renderExplorer(
  tests: readonly ExplorerTest[],
  options: { heading?: string; pagination?: ExplorerData['pagination']; days?: number },
): string {
  const heading =
    options.heading ??
    `${options.pagination ? pageLine('tests', options.pagination, tests.length) : `${tests.length} tests`}${options.days ? `, metrics over the last ${options.days} days` : ''}.`;
  if (tests.length === 0) return heading;
  return [
    heading,
    '',
    table(
      [
        'Test',
        'Spec file',
        'Latest',
        'Fail rate',
        'Flaky rate',
        'Executions',
        'Avg duration',
        'Platforms',
        'Last run',
        'caseId',
      ],
      tests.map((test) => [
        clip(test.fullTitle, 200),
        test.specName,
        test.status,
        percent(test.failureRate),
        percent(test.flakyRate),
        test.executions,
        duration(test.avgDuration),
        test.platforms.join(', '),
        `#${test.lastRun.counter} ${minute(test.lastRun.timestamp)}${test.lastRun.branch ? ` ${test.lastRun.branch}` : ''}`,
        test.testCaseId,
      ]),
    ),
  ].join('\n');
}
