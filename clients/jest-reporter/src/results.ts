/**
 * One Jest test file's results as Verdict result items: each test's attempts (with `retryTimes`, Jest
 * runs a test up to n+1 times; every run but the last failed, with the reason Jest kept), failure messages
 * split into message and stack, the test's location when Jest records it (`testLocationInResults`), and
 * the file's console output. A file that failed to run at all (a syntax error, a failing hook outside any
 * test) is one failed result named after the file, so it is counted and not lost.
 *
 * The shapes are declared here (the parts used) rather than imported from Jest's types, which change
 * between the Jest versions the package supports.
 */
import path from 'node:path';
import type { ResultItem } from '@verdict/client';
import {
  annotationsOf,
  clip,
  clipOutput,
  durationOf,
  RESULT_LIMITS,
  stripAnsi,
} from '@verdict/client/reporting';

export interface JestAssertion {
  ancestorTitles: string[];
  title: string;
  status: string;
  duration?: number | null;
  startAt?: number | null;
  failureMessages: string[];
  invocations?: number;
  retryReasons?: string[];
  location?: { line: number; column?: number } | null;
  failing?: boolean;
}

export interface JestFileResult {
  testFilePath: string;
  testResults: JestAssertion[];
  console?: { message: string; type: string }[] | null;
  perfStats?: { start?: number; end?: number; runtime?: number };
  failureMessage?: string | null;
  testExecError?: { message?: string; stack?: string } | null;
  displayName?: string | { name: string } | null;
}

type ItemError = NonNullable<ResultItem['error']>;

const STATUS: Record<string, ResultItem['status']> = {
  passed: 'passed',
  failed: 'failed',
  skipped: 'skipped',
  pending: 'skipped',
  disabled: 'skipped',
  todo: 'skipped',
  focused: 'passed',
};

/** A file path as Jest users read it: relative to rootDir, with forward slashes. */
export function relativeFile(file: string, rootDir: string): string {
  const relative = path.relative(rootDir, file);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return clip((inside ? relative : file).split(path.sep).join('/'), RESULT_LIMITS.file);
}

/**
 * A Jest failure message (message, then the stack's `at …` lines) as an error: the message is what comes
 * before the first stack frame, the stack the whole text.
 */
export function errorOfMessage(text: string): ItemError {
  const plain = stripAnsi(text);
  const frame = plain.search(/\n\s+at /);
  const message = (frame === -1 ? plain : plain.slice(0, frame)).trim() || 'Error';
  return {
    message: clip(message, RESULT_LIMITS.message),
    ...(frame === -1 ? {} : { stack: clip(plain, RESULT_LIMITS.stack) }),
  };
}

function errorOf(messages: readonly string[]): ItemError | undefined {
  const [first, ...others] = messages;
  if (first === undefined) return undefined;
  const error = errorOfMessage(first);
  if (others.length === 0) return error;
  const more = others.map((other) => errorOfMessage(other).message);
  return { ...error, message: clip([error.message, ...more].join('\n\n'), RESULT_LIMITS.message) };
}

const STDOUT_TYPES = new Set([
  'log',
  'info',
  'debug',
  'dir',
  'dirxml',
  'group',
  'groupCollapsed',
  'count',
  'time',
]);

function consoleOf(file: JestFileResult): { stdout?: string[]; stderr?: string[] } {
  const entries = file.console ?? [];
  const stdout = clipOutput(entries.filter((e) => STDOUT_TYPES.has(e.type)).map((e) => `${e.message}\n`));
  const stderr = clipOutput(entries.filter((e) => !STDOUT_TYPES.has(e.type)).map((e) => `${e.message}\n`));
  return { ...(stdout ? { stdout } : {}), ...(stderr ? { stderr } : {}) };
}

function projectOf(file: JestFileResult): string | undefined {
  const name = typeof file.displayName === 'string' ? file.displayName : file.displayName?.name;
  return name ? clip(name, RESULT_LIMITS.project) : undefined;
}

/** The attempts of one test: the failed runs `retryTimes` made it repeat, then its last run. */
function attemptsOf(
  test: JestAssertion,
  base: Omit<ResultItem, 'attempt' | 'status' | 'durationMs' | 'startedAt'>,
  startedAt: string,
): ResultItem[] {
  // The API numbers attempts 0 to 100.
  const runs = Math.min(101, Math.max(1, test.invocations ?? 1));
  const reasons = test.retryReasons ?? [];
  const earlier = Array.from({ length: runs - 1 }, (_, attempt) => {
    const error = reasons[attempt] !== undefined ? errorOfMessage(reasons[attempt]) : undefined;
    return {
      ...base,
      attempt,
      status: 'failed' as const,
      // Jest keeps no duration of a run it repeated.
      durationMs: 0,
      startedAt,
      ...(error ? { error } : {}),
    };
  });
  const status = STATUS[test.status] ?? 'skipped';
  const error = status === 'failed' ? errorOf(test.failureMessages) : undefined;
  const todo = test.status === 'todo' ? annotationsOf([{ type: 'todo' }]) : undefined;
  const last: ResultItem = {
    ...base,
    attempt: runs - 1,
    status,
    durationMs: durationOf(test.duration),
    startedAt,
    ...(error ? { error } : {}),
    ...(todo ? { annotations: todo } : {}),
  };
  return [...earlier, last];
}

/**
 * The result items of one finished test file.
 *
 * @example const items = resultItemsOf(testResult, globalConfig.rootDir);
 */
export function resultItemsOf(file: JestFileResult, rootDir: string): ResultItem[] {
  const relative = relativeFile(file.testFilePath, rootDir);
  const project = projectOf(file);
  const fileStart = file.perfStats?.start
    ? new Date(file.perfStats.start).toISOString()
    : new Date().toISOString();
  const output = consoleOf(file);
  if (file.testResults.length === 0 && (file.testExecError || file.failureMessage)) {
    const message =
      file.testExecError?.stack ??
      file.testExecError?.message ??
      file.failureMessage ??
      'Test file failed to run';
    return [
      {
        file: relative,
        titlePath: [path.basename(relative)],
        ...(project ? { project } : {}),
        attempt: 0,
        status: 'failed',
        durationMs: durationOf(file.perfStats?.runtime),
        startedAt: fileStart,
        error: errorOfMessage(message),
        ...output,
      },
    ];
  }
  const items = file.testResults.flatMap((test) => {
    const location =
      test.location && test.location.line > 0
        ? {
            file: relative,
            line: test.location.line,
            ...(test.location.column ? { column: test.location.column } : {}),
          }
        : undefined;
    const titlePath = [...test.ancestorTitles, test.title]
      .slice(-RESULT_LIMITS.titlePath)
      .map((title) => clip(title, RESULT_LIMITS.title));
    const startedAt = test.startAt ? new Date(test.startAt).toISOString() : fileStart;
    return attemptsOf(
      test,
      { file: relative, titlePath, ...(project ? { project } : {}), ...(location ? { location } : {}) },
      startedAt,
    );
  });
  // Jest keeps console output per file: it goes with the failed attempts, where it explains something,
  // or with the file's first result when nothing failed, so it is kept either way.
  if (output.stdout || output.stderr) {
    const failed = items.filter((item) => item.status === 'failed');
    for (const item of failed.length > 0 ? failed : items.slice(0, 1)) Object.assign(item, output);
  }
  return items;
}
