import type { RunDetail, RunList } from '@verdict/client';
import { clip, code, count, duration, firstLine, fitLines, minute, oneLine, table } from './markdown';

type Run = RunList['data'][number];
type Pagination = RunList['pagination'];

/** `failed`, `passed`, `running`: what a reader wants first of a run. */
export function resultOf(run: Pick<Run, 'status' | 'outcome'>): string {
  return run.status === 'running' ? 'running' : (run.outcome ?? 'finished');
}

/** `Runs 1–10 of 42, newest first (page 1 of 5; next: page=2)`. */
export function pageLine(what: string, pagination: Pagination, shown: number): string {
  if (pagination.total === 0 || shown === 0) return `No ${what} match.`;
  const first = (pagination.page - 1) * pagination.limit + 1;
  const pages = Math.max(1, Math.ceil(pagination.total / pagination.limit));
  const next = pagination.hasNext ? `; next: page=${pagination.page + 1}` : '';
  return `${what[0]?.toUpperCase()}${what.slice(1)} ${first}–${first + shown - 1} of ${pagination.total} (page ${pagination.page} of ${pages}${next})`;
}

/** The runs list as a table. */
export function renderRunList(runs: readonly Run[], pagination: Pagination): string {
  const head = `${pageLine('runs', pagination, runs.length)}, newest first.`;
  if (runs.length === 0) return head;
  return [
    head,
    '',
    table(
      [
        'Run',
        'Id',
        'Result',
        'Branch',
        'Commit',
        'Started (UTC)',
        'Duration',
        'Tests',
        'Failed',
        'Flaky',
        'Passed',
        'Skipped',
      ],
      runs.map((run) => [
        `#${run.counter}`,
        run.id,
        resultOf(run),
        run.branch,
        run.commit?.sha.slice(0, 10),
        minute(run.startedAt),
        duration(run.durationMs),
        run.stats.total,
        run.stats.failed,
        run.stats.flaky,
        run.stats.passed,
        run.stats.skipped,
      ]),
    ),
  ].join('\n');
}

/** Where and when a run ran, in one or two lines. */
export function runContext(run: Run): string[] {
  const where = [
    run.branch ? `branch ${code(run.branch)}` : null,
    run.commit
      ? `commit ${code(run.commit.sha.slice(0, 12))}${run.commit.message ? ` "${clip(oneLine(run.commit.message), 100)}"` : ''}${run.commit.author ? ` by ${oneLine(run.commit.author)}` : ''}`
      : null,
    run.environment ? `environment ${code(run.environment)}` : null,
    run.ci
      ? `CI ${[run.ci.provider, run.ci.buildId].filter(Boolean).join(' ')}${run.ci.url ? ` ${run.ci.url}` : ''}`.trim()
      : null,
    run.framework ? `${run.framework.name}${run.framework.version ? ` ${run.framework.version}` : ''}` : null,
  ].filter((part): part is string => part !== null);
  const when = `Started ${minute(run.startedAt)}${run.finishedAt ? `, finished ${minute(run.finishedAt)} (${duration(run.durationMs)})` : ', still running'}.`;
  return [...(where.length > 0 ? [`${where.join(' · ')}.`] : []), when];
}

export function statsLine(stats: Run['stats']): string {
  return `Tests: ${stats.total} — ${stats.failed} failed, ${stats.flaky} flaky (failed, then passed on a retry), ${stats.passed} passed, ${stats.skipped} skipped.`;
}

/** A run with its failures grouped by error message, within `budget` characters. */
export function renderRun(run: RunDetail, budget: number): string {
  const title = run.title ? ` ${code(run.title)}` : '';
  const lines = [
    `## Run #${run.counter} ${code(run.id)}${title}: ${resultOf(run)}`,
    '',
    ...runContext(run),
    statsLine(run.stats),
  ];
  const groups = run.errors?.groups ?? [];
  if (groups.length === 0) {
    lines.push(
      '',
      run.stats.failed + run.stats.flaky > 0
        ? 'No error messages were recorded for its failures.'
        : 'No failures.',
    );
  } else {
    const attempts = run.errors?.total ?? 0;
    lines.push(
      '',
      `### Failures grouped by error (${count(groups.length, 'distinct error')}, ${count(attempts, 'failed attempt')})`,
      '',
      'Flaky tests appear here too (their failed attempts); get_failure_context tells failed from flaky.',
    );
    for (const [index, group] of groups.entries()) {
      const tests = new Set(group.tests.map((test) => test.testCaseId)).size;
      lines.push(
        '',
        `${index + 1}. ${code(clip(firstLine(group.message), 300))} — ${count(group.count, 'failed attempt')} in ${count(tests, 'test')}${group.tests.length >= 100 ? ' (first 100 shown)' : ''}`,
      );
      const at = group.stacks[0] ? stackFrame(group.stacks[0]) : null;
      if (at) lines.push(`   at ${code(at)}`);
      for (const test of group.tests) {
        const platform = test.project ? ` [${oneLine(test.project)}]` : '';
        lines.push(
          `   - ${code(test.title)} in ${code(test.file)}${platform}; attempts ${test.attempts.join(', ')}; caseId ${code(test.testCaseId)}`,
        );
      }
    }
  }
  const next = `Next: get_failure_context with runId=${run.id} lists every failing test by error; with a caseId it gives that test's error, stack, steps, output and artifacts. get_test_history with a caseId tells a new failure from a recurring or flaky one.`;
  const body = fitLines(
    lines,
    budget - next.length - 2,
    (omitted) =>
      `… ${omitted} more lines cut to fit budgetChars=${budget}: raise it, or use get_failure_context.`,
  );
  return `${body}\n\n${next}`;
}

/** The first stack frame that points into a file: where the error was raised. */
function stackFrame(stack: string): string | null {
  const frame = stack
    .split(/\r?\n/)
    .map((line) => line.trim())
    .find((line) => line.startsWith('at '));
  return frame ? clip(frame.slice(3), 200) : null;
}
