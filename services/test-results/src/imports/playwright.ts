import type { ResultItem, ResultStatus, SourceLocation, TestError, TestStep } from '@verdict/contracts';
import { ValidationError, safeParseNested, storableText } from '@verdict/platform';
import { z } from 'zod';
import {
  checkResultItems,
  clip,
  clipOutput,
  LIMITS,
  limitList,
  stripAnsi,
  toIsoInstant,
} from './resultItems';

/**
 * Playwright's `json` reporter output → result items: one item per attempt (Playwright "result") of each
 * test in each project. `file` and `location.file` are relative to the config's rootDir, as Playwright
 * reports spec files; `titlePath` is the describe titles and the test title; tags get back the `@` that
 * the JSON reporter strips. ANSI colours are removed from errors.
 *
 * Attachments: a result item names an attachment only by the artifact id it got on upload, and a report
 * has none, so attachments come back beside the results (`attachments`, each with its result's index and
 * Playwright's `path` or base64 `body`); whoever uploads them adds `{name, contentType, artifactId}` to
 * that result's `attachments`. A test Playwright never ran (no results: interrupted run, maxFailures) is
 * one skipped attempt, as Playwright's own stats count it.
 */

const PlaywrightStatus = z.enum(['passed', 'failed', 'timedOut', 'skipped', 'interrupted']);

const Location = z.object({ file: z.string(), line: z.number(), column: z.number() });

const PwError = z.object({
  message: z.string().optional(),
  stack: z.string().optional(),
  snippet: z.string().optional(),
  value: z.string().optional(),
  location: Location.optional(),
});
type PwError = z.infer<typeof PwError>;

interface PwStep {
  title: string;
  duration: number;
  error?: PwError;
  steps?: PwStep[];
}
const PwStep: z.ZodType<PwStep> = z.lazy(() =>
  z.object({
    title: z.string(),
    duration: z.number(),
    error: PwError.optional(),
    steps: z.array(PwStep).optional(),
  }),
);

const StdioEntry = z.union([z.object({ text: z.string() }), z.object({ buffer: z.string() })]);
const PwAnnotation = z.object({ type: z.string(), description: z.string().optional() });

const PwResult = z.object({
  retry: z.number().int().min(0),
  status: PlaywrightStatus.optional(),
  duration: z.number(),
  startTime: z.iso.datetime({ offset: true }),
  error: PwError.optional(),
  errors: z.array(PwError).default([]),
  errorLocation: Location.optional(),
  stdout: z.array(StdioEntry).default([]),
  stderr: z.array(StdioEntry).default([]),
  steps: z.array(PwStep).optional(),
  annotations: z.array(PwAnnotation).optional(),
  attachments: z
    .array(
      z.object({
        name: z.string(),
        contentType: z.string(),
        path: z.string().optional(),
        body: z.string().optional(),
      }),
    )
    .default([]),
});
type PwResult = z.infer<typeof PwResult>;

const PwTest = z.object({
  projectName: z.string().default(''),
  expectedStatus: PlaywrightStatus,
  annotations: z.array(PwAnnotation).default([]),
  results: z.array(PwResult),
});
type PwTest = z.infer<typeof PwTest>;

const PwSpec = z.object({
  title: z.string(),
  file: z.string().min(1),
  line: z.number(),
  column: z.number(),
  tags: z.array(z.string()).default([]),
  tests: z.array(PwTest),
});
type PwSpec = z.infer<typeof PwSpec>;

interface PwSuite {
  title: string;
  specs: PwSpec[];
  suites?: PwSuite[];
}
const PwSuite: z.ZodType<PwSuite> = z.lazy(() =>
  z.object({ title: z.string(), specs: z.array(PwSpec), suites: z.array(PwSuite).optional() }),
);

const PlaywrightReport = z.object({
  config: z.object({
    version: z.string().optional(),
    rootDir: z.string().optional(),
    shard: z
      .object({ current: z.number().int().min(1), total: z.number().int().min(1) })
      .nullable()
      .optional(),
  }),
  suites: z.array(PwSuite),
  stats: z.object({ startTime: z.iso.datetime({ offset: true }), duration: z.number() }),
});
type PlaywrightReport = z.infer<typeof PlaywrightReport>;

export interface PendingAttachment {
  /** Index in `results` of the attempt that produced the attachment. */
  resultIndex: number;
  name: string;
  contentType: string;
  /** Where Playwright wrote the file, on the machine that ran the tests. */
  path?: string;
  /** The content itself, base64, for attachments made from a body. */
  body?: string;
}

export interface PlaywrightImport {
  run: {
    startedAt?: string;
    durationMs?: number;
    framework: { name: 'playwright'; version?: string };
    shard?: { current: number; total: number };
  };
  results: ResultItem[];
  attachments: PendingAttachment[];
}

/**
 * Turns the JSON written by Playwright's `json` reporter into result items, or throws a ValidationError
 * that names what is wrong with the document.
 *
 * @example const { run, results, attachments } = parsePlaywrightReport(JSON.parse(body));
 */
export function parsePlaywrightReport(json: unknown): PlaywrightImport {
  const parsed = safeParseNested(PlaywrightReport, json);
  if (!parsed.success) throw notAReport(parsed.error);
  const report = parsed.data;
  const runStartedAt = instant(report.stats.startTime);
  const results: ResultItem[] = [];
  const attachments: PendingAttachment[] = [];
  for (const { spec, describes } of specsOf(report.suites)) {
    for (const test of spec.tests) {
      for (const attempt of attemptsOf(test)) {
        const resultIndex = results.length;
        results.push(
          resultItem({ spec, describes, test, runStartedAt, rootDir: report.config.rootDir }, attempt),
        );
        attachments.push(...(attempt?.attachments ?? []).map((entry) => ({ resultIndex, ...entry })));
      }
    }
  }
  return { run: runOf(report, runStartedAt), results: checkResultItems(results), attachments };
}

function notAReport(error: z.ZodError): ValidationError {
  const issues = error.issues.map(({ path, message }) => ({ path: formatPath(path), message }));
  const shown = issues.slice(0, 3).map(({ path, message }) => `${path}: ${message}`);
  const more = issues.length > 3 ? ` (and ${issues.length - 3} more)` : '';
  return new ValidationError(`Not a Playwright JSON report: ${shown.join('; ')}${more}`, { issues });
}

function formatPath(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(document)';
  return path
    .map((key, index) => (typeof key === 'number' ? `[${key}]` : `${index === 0 ? '' : '.'}${String(key)}`))
    .join('');
}

/** Every spec with the describe titles above it; the top-level suites are files, not describes. */
function specsOf(fileSuites: PwSuite[]): { spec: PwSpec; describes: string[] }[] {
  const found: { spec: PwSpec; describes: string[] }[] = [];
  const visit = (suite: PwSuite, describes: string[]): void => {
    for (const spec of suite.specs) found.push({ spec, describes });
    for (const child of suite.suites ?? []) visit(child, [...describes, child.title]);
  };
  for (const fileSuite of fileSuites) visit(fileSuite, []);
  return found;
}

/** The test's results; `undefined` stands for the single skipped attempt of a test that never ran. */
function attemptsOf(test: PwTest): (PwResult | undefined)[] {
  return test.results.length > 0 ? test.results : [undefined];
}

interface TestContext {
  spec: PwSpec;
  describes: string[];
  test: PwTest;
  runStartedAt: string;
  rootDir: string | undefined;
}

function resultItem(context: TestContext, result: PwResult | undefined): ResultItem {
  const { spec, describes, test, runStartedAt, rootDir } = context;
  const file = clip(spec.file, LIMITS.file);
  return {
    file,
    titlePath: [...describes, spec.title].map((title) => clip(title, LIMITS.title)),
    project: test.projectName === '' ? undefined : clip(test.projectName, LIMITS.project),
    attempt: result?.retry ?? 0,
    status: statusOf(result),
    expectedStatus: test.expectedStatus,
    durationMs: Math.max(0, result?.duration ?? 0),
    startedAt: result ? instant(result.startTime) : runStartedAt,
    error: result ? errorOfResult(result, rootDir) : undefined,
    steps: result?.steps
      ? limitList(result.steps, LIMITS.steps).map((step) => stepOf(step, rootDir))
      : undefined,
    stdout: clipOutput((result?.stdout ?? []).map(stdioText)),
    stderr: clipOutput((result?.stderr ?? []).map(stdioText)),
    // The test's annotations (set in its body, or by skipping it with a reason) and those its attempt
    // added: Playwright writes them in two lists, and an attempt's list may be empty or a subset.
    annotations: annotationsOf([...test.annotations, ...(result?.annotations ?? [])]),
    tags: tagsOf(spec.tags),
    location: { file, line: Math.max(0, spec.line), column: Math.max(0, spec.column) },
  };
}

/** Playwright leaves `status` out only of a result it could not finish: the run was interrupted. */
function statusOf(result: PwResult | undefined): ResultStatus {
  if (result === undefined) return 'skipped';
  return result.status ?? 'interrupted';
}

/**
 * The first error, with the messages of further errors (soft assertions) appended. `error` is the first
 * of `errors` unformatted, so it is preferred for its separate stack and snippet.
 */
function errorOfResult(result: PwResult, rootDir: string | undefined): TestError | undefined {
  const primary = result.error ?? result.errors[0];
  if (primary === undefined) return undefined;
  const error = errorOf(primary, rootDir);
  const further = result.errors
    .slice(1)
    .map((other) => stripAnsi(other.message ?? other.value ?? ''))
    .filter((message) => message !== '');
  const location = error.location ?? locationOf(result.errorLocation, rootDir);
  return {
    ...error,
    message: clip([error.message, ...further].join('\n\n'), LIMITS.message),
    location,
  };
}

function errorOf(error: PwError, rootDir: string | undefined): TestError {
  return {
    message: clip(stripAnsi(error.message ?? error.value ?? 'Unknown error'), LIMITS.message),
    stack: error.stack === undefined ? undefined : clip(stripAnsi(error.stack), LIMITS.stack),
    snippet: error.snippet === undefined ? undefined : clip(stripAnsi(error.snippet), LIMITS.snippet),
    location: locationOf(error.location, rootDir),
  };
}

function stepOf(step: PwStep, rootDir: string | undefined): TestStep {
  return {
    title: clip(step.title, LIMITS.title),
    // The JSON reporter keeps only steps of this category: test.step() calls.
    category: 'test.step',
    durationMs: Math.max(0, step.duration),
    error: step.error ? errorOf(step.error, rootDir) : undefined,
    steps: step.steps
      ? limitList(step.steps, LIMITS.steps).map((child) => stepOf(child, rootDir))
      : undefined,
  };
}

/** Error locations are absolute paths on the machine that ran the tests; spec files are rootDir-relative. */
function locationOf(
  location: z.infer<typeof Location> | undefined,
  rootDir: string | undefined,
): SourceLocation | undefined {
  if (location === undefined || location.file === '') return undefined;
  return {
    file: clip(relativeTo(location.file, rootDir), LIMITS.file),
    line: Math.max(0, location.line),
    column: Math.max(0, location.column),
  };
}

function relativeTo(file: string, rootDir: string | undefined): string {
  if (!rootDir) return file;
  const root = rootDir.replace(/[\\/]+$/, '');
  const isInside = file.startsWith(root) && (file[root.length] === '/' || file[root.length] === '\\');
  return isInside ? file.slice(root.length + 1).replaceAll('\\', '/') : file;
}

/**
 * A `buffer` entry is binary output, base64: decoded as UTF-8, with NULs and what is not UTF-8 as U+FFFD
 * (PostgreSQL stores no NUL in text; the JSON body's own text had that done when it was read).
 */
function stdioText(entry: z.infer<typeof StdioEntry>): string {
  return 'text' in entry ? entry.text : storableText(Buffer.from(entry.buffer, 'base64').toString('utf8'));
}

function annotationsOf(annotations: z.infer<typeof PwAnnotation>[]): ResultItem['annotations'] {
  const distinct = [
    ...new Map(annotations.map((a) => [JSON.stringify([a.type, a.description ?? null]), a])).values(),
  ];
  const mapped = limitList(distinct, LIMITS.annotations)
    .filter((annotation) => annotation.type !== '')
    .map(({ type, description }) => ({
      type: clip(type, LIMITS.annotationType),
      description: description === undefined ? undefined : clip(description, LIMITS.annotationDescription),
    }));
  return mapped.length > 0 ? mapped : undefined;
}

function tagsOf(tags: string[]): string[] | undefined {
  const restored = limitList(tags, LIMITS.tags)
    .filter((tag) => tag !== '')
    .map((tag) => clip(tag.startsWith('@') ? tag : `@${tag}`, LIMITS.tag));
  return restored.length > 0 ? restored : undefined;
}

function runOf(report: PlaywrightReport, startedAt: string): PlaywrightImport['run'] {
  const { version, shard } = report.config;
  return {
    startedAt,
    durationMs: Math.max(0, report.stats.duration),
    framework: { name: 'playwright', version },
    shard: shard ?? undefined,
  };
}

function instant(value: string): string {
  return toIsoInstant(value) ?? value;
}
