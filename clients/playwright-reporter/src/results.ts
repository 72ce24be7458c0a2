/**
 * One attempt of a Playwright test (a TestCase and one of its TestResults) as a Verdict result item:
 * everything Playwright's reporter API gives, which is more than its JSON report keeps: the whole tree of
 * steps (hooks, fixtures, Playwright calls, expects, test.step), every error with its snippet and
 * location, the attempt's output, annotations, tags and the test's location. Paths are relative to the
 * config's rootDir, as Playwright's own reports write spec files, so a retry command finds them.
 */
import path from 'node:path';
import type {
  FullConfig,
  Location,
  TestCase,
  TestError,
  TestResult,
  TestStep,
} from '@playwright/test/reporter';
import type { ResultItem, StartRunBody } from '@verdict/client';
import {
  annotationsOf,
  clip,
  clipOutput,
  durationOf,
  outputText,
  RESULT_LIMITS,
  stripAnsi,
  type PendingFile,
} from '@verdict/client/reporting';

type ItemError = NonNullable<ResultItem['error']>;
type ItemStep = NonNullable<ResultItem['steps']>[number];
type ItemLocation = NonNullable<ResultItem['location']>;

/** A path as the report shows it: relative to rootDir when inside it, with forward slashes. */
export function relativeFile(file: string, rootDir: string): string {
  const relative = path.relative(rootDir, file);
  const inside = relative !== '' && !relative.startsWith('..') && !path.isAbsolute(relative);
  return clip((inside ? relative : file).split(path.sep).join('/'), RESULT_LIMITS.file);
}

function locationOf(location: Location | undefined, rootDir: string): ItemLocation | undefined {
  if (!location || location.file === '') return undefined;
  return {
    file: relativeFile(location.file, rootDir),
    line: Math.max(0, location.line),
    column: Math.max(0, location.column),
  };
}

function errorOf(error: TestError, rootDir: string): ItemError {
  const location = locationOf(error.location, rootDir);
  return {
    message: clip(stripAnsi(error.message ?? error.value ?? 'Unknown error'), RESULT_LIMITS.message),
    ...(error.stack ? { stack: clip(stripAnsi(error.stack), RESULT_LIMITS.stack) } : {}),
    ...(error.snippet ? { snippet: clip(stripAnsi(error.snippet), RESULT_LIMITS.snippet) } : {}),
    ...(location ? { location } : {}),
  };
}

/** The first error, with the messages of the others (soft assertions, a timeout after a failure) after it. */
function resultError(result: TestResult, rootDir: string): ItemError | undefined {
  const errors = result.errors.length > 0 ? result.errors : result.error ? [result.error] : [];
  const [first, ...others] = errors;
  if (!first) return undefined;
  const error = errorOf(first, rootDir);
  const further = others.map((other) => stripAnsi(other.message ?? other.value ?? '')).filter(Boolean);
  return further.length === 0
    ? error
    : { ...error, message: clip([error.message, ...further].join('\n\n'), RESULT_LIMITS.message) };
}

function stepOf(step: TestStep, rootDir: string): ItemStep {
  const location = locationOf(step.location, rootDir);
  const children = step.steps.slice(0, RESULT_LIMITS.steps).map((child) => stepOf(child, rootDir));
  return {
    title: clip(step.title, RESULT_LIMITS.title),
    category: clip(step.category, RESULT_LIMITS.category),
    durationMs: durationOf(step.duration),
    ...(step.error ? { error: errorOf(step.error, rootDir) } : {}),
    ...(location ? { location } : {}),
    ...(children.length > 0 ? { steps: children } : {}),
  };
}

/** The describe titles above the test, then its own: the title path of Playwright's JSON report. */
export function titlePathOf(test: TestCase): string[] {
  const titles = [test.title];
  for (let suite = test.parent; suite && suite.type === 'describe'; suite = suite.parent!) {
    titles.unshift(suite.title);
  }
  return titles.slice(-RESULT_LIMITS.titlePath).map((title) => clip(title, RESULT_LIMITS.title));
}

/** The project (browser, platform) the test ran in; none for a config without named projects. */
function projectOf(test: TestCase): string | undefined {
  const name = test.parent.project()?.name;
  return name ? clip(name, RESULT_LIMITS.project) : undefined;
}

function tagsOf(test: TestCase): string[] | undefined {
  const tags = (test.tags ?? [])
    .filter((tag) => tag !== '')
    .slice(0, RESULT_LIMITS.tags)
    .map((tag) => clip(tag, RESULT_LIMITS.tag));
  return tags.length > 0 ? tags : undefined;
}

/**
 * Where the attempt ran: Playwright's workerIndex and parallelIndex, and its ordinal among the tests that
 * worker began (stamped in onTestBegin). None for an attempt no worker ran (workerIndex -1).
 */
function workerOf(result: TestResult, ordinal: number | undefined): ResultItem['worker'] {
  if (result.workerIndex < 0) return undefined;
  return {
    index: result.workerIndex,
    ...(result.parallelIndex >= 0 ? { parallelIndex: result.parallelIndex } : {}),
    ...(ordinal !== undefined ? { ordinal } : {}),
  };
}

/**
 * The settings that decide which tests share a worker and in which order: workers, fullyParallel and the
 * shard. (A project's own fullyParallel is not in the reporter API.) Playwright has no seed: none is sent.
 */
export function runnerSettingsOf(config: FullConfig): NonNullable<StartRunBody['settings']> {
  return {
    ...(config.workers > 0 ? { workers: config.workers } : {}),
    fullyParallel: config.fullyParallel,
    ...(config.shard ? { shard: { current: config.shard.current, total: config.shard.total } } : {}),
  };
}

/** An attempt's result item, and the files (screenshots, videos, traces) to upload and attach to it. */
export function resultItemOf(
  test: TestCase,
  result: TestResult,
  rootDir: string,
  ordinal?: number,
): { item: ResultItem; files: PendingFile[] } {
  const location = locationOf(test.location, rootDir);
  const error = resultError(result, rootDir);
  const steps = result.steps.slice(0, RESULT_LIMITS.steps).map((step) => stepOf(step, rootDir));
  const stdout = clipOutput(result.stdout.map(outputText));
  const stderr = clipOutput(result.stderr.map(outputText));
  // The test's annotations and those of this attempt (Playwright 1.52+ keeps them per attempt too).
  const annotations = annotationsOf([
    ...test.annotations,
    ...((result as { annotations?: TestCase['annotations'] }).annotations ?? []),
  ]);
  const tags = tagsOf(test);
  const project = projectOf(test);
  const worker = workerOf(result, ordinal);
  const item: ResultItem = {
    file: location?.file ?? relativeFile(test.location.file, rootDir),
    titlePath: titlePathOf(test),
    ...(project ? { project } : {}),
    attempt: result.retry,
    // A result Playwright could not finish has no outcome of its own: the run was interrupted.
    status: result.status ?? 'interrupted',
    expectedStatus: test.expectedStatus,
    durationMs: durationOf(result.duration),
    startedAt: new Date(result.startTime).toISOString(),
    ...(error ? { error } : {}),
    ...(steps.length > 0 ? { steps } : {}),
    ...(stdout ? { stdout } : {}),
    ...(stderr ? { stderr } : {}),
    ...(annotations ? { annotations } : {}),
    ...(tags ? { tags } : {}),
    ...(location ? { location } : {}),
    ...(worker ? { worker } : {}),
  };
  const files = result.attachments
    .filter((attachment) => attachment.path !== undefined || attachment.body !== undefined)
    .slice(0, RESULT_LIMITS.attachments)
    .map((attachment) => ({
      name: clip(attachment.name, 500),
      contentType: attachment.contentType || 'application/octet-stream',
      ...(attachment.path !== undefined ? { path: attachment.path } : { body: attachment.body }),
    }));
  return { item, files };
}
