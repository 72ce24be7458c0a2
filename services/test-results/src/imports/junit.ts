import type { ResultItem, ResultStatus, TestError } from '@verdict/contracts';
import { resultKey } from '@verdict/contracts';
import { ValidationError } from '@verdict/platform';
import {
  checkResultItems,
  clip,
  clipOutput,
  LIMITS,
  limitList,
  stripAnsi,
  toIsoInstant,
} from './resultItems';
import {
  identify,
  type CollectedCase,
  type Identity,
  type JUnitDialect,
  type SuiteContext,
} from './junitIdentity';
import type { XmlElement } from './xml';
import { parseXml } from './xml';

/**
 * JUnit XML → result items. JUnit XML has no standard: each runner fills `classname`, `name` and the suite
 * names its own way, so the document's writer (its "dialect") is recognised first and read by its rules.
 * A testcase's own `file` attribute, where a rule uses it, wins over what is derived.
 *
 * - playwright — root `testsuites` with an `id` and a `hostname` on every suite. file: `classname` (the
 *   spec path from the rootDir); titlePath: `name` split on " › "; project: the suite's `hostname`.
 * - surefire — the Surefire schema on a suite, or a `java.version` suite property. file: the outer class,
 *   `com.example.CartTest` (no source path is in the report); titlePath: nested classes (after `$`), `name`.
 * - pytest — a suite named `pytest` or the root `pytest tests`. file: the `file` attribute, else the module
 *   part of `classname` (its lower-case segments) as `tests/test_cart.py`; titlePath: the class segments,
 *   `name`. The "Captured Out" rules pytest wraps output in are removed.
 * - gotestsum — a `go.version` suite property. file: `classname` (the package import path); titlePath:
 *   `name` split on "/" (subtests); message: the test's log lines rather than gotestsum's "Failed".
 * - jest (jest-junit's root `jest tests`) and generic — file: the `file` attribute of the case or a
 *   suite, else a path-like `classname` or suite name, else the suite name; titlePath: `classname` split on
 *   " › " (unless it is the file or the name itself), then `name` split on " › ".
 *
 * Attempts: a testcase with `flakyFailure`/`flakyError` children (Surefire, Playwright's `includeRetries`)
 * is that many failed attempts followed by its passing one; one with `failure`/`error` and
 * `rerunFailure`/`rerunError` children is its failed first attempt followed by the failed reruns. A testcase
 * that appears again for the same test (gotestsum `--rerun-fails`) is the next attempt. A testcase's `time`
 * belongs to the attempt the testcase itself describes; a rerun element's own `time` (or 0) to its attempt.
 *
 * JUnit `error` (an unexpected exception) and `failure` both become `failed`. Suite-level `system-out` and
 * `system-err` (jest-junit's console output) are added to the failed results of that suite, where someone
 * reads them; testcase `properties` become annotations; a skip message becomes a `skip` annotation.
 */

type Annotation = NonNullable<ResultItem['annotations']>[number];

export type { JUnitDialect } from './junitIdentity';

export interface JUnitImportOptions {
  /** Start of results whose suite has no `timestamp` (Surefire writes none): the import's receipt time. */
  startedAt?: string;
  /** Larger documents are refused with PayloadTooLargeError. Default 50 MiB. */
  maxBytes?: number;
  /** The writer of the document, when the caller knows better than detection. */
  dialect?: JUnitDialect;
}

export interface JUnitImport {
  run: { startedAt?: string; durationMs?: number; framework?: { name: string; version?: string } };
  results: ResultItem[];
  dialect: JUnitDialect;
}

export const DEFAULT_JUNIT_MAX_BYTES = 50 * 1024 * 1024;
const MAX_DEPTH = 64;

/**
 * Turns a JUnit XML report into result items, or throws ValidationError / PayloadTooLargeError.
 *
 * @example const { run, results } = parseJUnitXml(body, { startedAt: receivedAt });
 */
export function parseJUnitXml(xml: string, options: JUnitImportOptions = {}): JUnitImport {
  const root = parseXml(xml, { maxBytes: options.maxBytes ?? DEFAULT_JUNIT_MAX_BYTES, maxDepth: MAX_DEPTH });
  if (root.name !== 'testsuites' && root.name !== 'testsuite') {
    throw new ValidationError(
      `Not a JUnit report: the root element is <${root.name}>, not <testsuites> or <testsuite>`,
    );
  }
  const defaultStartedAt = options.startedAt === undefined ? undefined : instantOption(options.startedAt);
  const dialect = options.dialect ?? detectDialect(root);
  const cases = collectCases(root, { names: [], startedAt: defaultStartedAt });
  const results = checkResultItems(toResults(cases, dialect));
  return { run: runOf(root, cases, dialect, defaultStartedAt), results, dialect };
}

function detectDialect(root: XmlElement): JUnitDialect {
  const suites = descendants(root, 'testsuite');
  const properties = new Set(suites.flatMap((suite) => suiteProperties(suite).map(([name]) => name)));
  if (isPlaywright(root, suites)) return 'playwright';
  const surefireSchema = suites.some((suite) =>
    (suite.attributes['xsi:noNamespaceSchemaLocation'] ?? '').includes('surefire'),
  );
  if (surefireSchema || properties.has('java.version')) return 'surefire';
  if (root.attributes.name === 'pytest tests' || suites.some((suite) => suite.attributes.name === 'pytest')) {
    return 'pytest';
  }
  if (properties.has('go.version')) return 'gotestsum';
  if (root.attributes.name === 'jest tests') return 'jest';
  return 'generic';
}

function isPlaywright(root: XmlElement, suites: XmlElement[]): boolean {
  return (
    root.name === 'testsuites' &&
    'id' in root.attributes &&
    suites.length > 0 &&
    suites.every((suite) => 'hostname' in suite.attributes)
  );
}

function suiteProperties(suite: XmlElement): [string, string][] {
  return childrenNamed(suite, 'properties')
    .flatMap((properties) => childrenNamed(properties, 'property'))
    .map((property) => [property.attributes.name ?? '', propertyValue(property)]);
}

function collectCases(suite: XmlElement, parent: SuiteContext): CollectedCase[] {
  const context = suiteContext(suite, parent);
  const suiteStdout = texts(suite, 'system-out');
  const suiteStderr = texts(suite, 'system-err');
  const cases: CollectedCase[] = [];
  for (const child of suite.children) {
    if (child.name === 'testcase') cases.push({ element: child, suite: context, suiteStdout, suiteStderr });
    if (child.name === 'testsuite') cases.push(...collectCases(child, context));
  }
  return cases;
}

function suiteContext(suite: XmlElement, parent: SuiteContext): SuiteContext {
  const { name, file, hostname, timestamp } = suite.attributes;
  return {
    names: name ? [...parent.names, name] : parent.names,
    file: file || parent.file,
    hostname: hostname ?? parent.hostname,
    startedAt: timestamp ? suiteInstant(timestamp, name) : parent.startedAt,
  };
}

function suiteInstant(timestamp: string, suiteName: string | undefined): string {
  const instant = toIsoInstant(timestamp);
  if (instant === undefined) {
    throw new ValidationError(`Suite "${suiteName ?? ''}" has an unreadable timestamp "${timestamp}"`);
  }
  return instant;
}

function instantOption(value: string): string {
  const instant = toIsoInstant(value);
  if (instant === undefined) throw new ValidationError(`startedAt "${value}" is not an ISO 8601 instant`);
  return instant;
}

interface Attempt {
  status: ResultStatus;
  durationMs: number;
  error?: TestError;
  stdout: string[];
  stderr: string[];
}

const FLAKY_ELEMENTS = new Set(['flakyFailure', 'flakyError']);
const RERUN_ELEMENTS = new Set(['rerunFailure', 'rerunError']);

function attemptsOf(collected: CollectedCase, dialect: JUnitDialect): Attempt[] {
  const { element } = collected;
  const earlier = element.children.filter((child) => FLAKY_ELEMENTS.has(child.name));
  const later = element.children.filter((child) => RERUN_ELEMENTS.has(child.name));
  return [
    ...earlier.map((child) => rerunAttempt(child, dialect)),
    ownAttempt(collected, dialect),
    ...later.map((child) => rerunAttempt(child, dialect)),
  ];
}

function ownAttempt(collected: CollectedCase, dialect: JUnitDialect): Attempt {
  const { element } = collected;
  const problem = element.children.find((child) => child.name === 'failure' || child.name === 'error');
  const skipped = element.children.some((child) => child.name === 'skipped');
  const status: ResultStatus = problem ? 'failed' : skipped ? 'skipped' : 'passed';
  const failed = status === 'failed';
  return {
    status,
    durationMs: secondsToMs(element.attributes.time),
    error: problem ? errorOf(problem, problem.text, dialect) : undefined,
    stdout: output(dialect, [...texts(element, 'system-out'), ...(failed ? collected.suiteStdout : [])]),
    stderr: output(dialect, [...texts(element, 'system-err'), ...(failed ? collected.suiteStderr : [])]),
  };
}

/**
 * pytest heads each captured stream with a "---- Captured Out ----" rule, even an empty one, and ends it
 * with a newline of its own; both go, so that the chunk is what the test printed.
 */
function output(dialect: JUnitDialect, chunks: string[]): string[] {
  if (dialect !== 'pytest') return chunks;
  return chunks.map(withoutPytestFraming).filter((chunk) => chunk.trim() !== '');
}

function withoutPytestFraming(chunk: string): string {
  const printed = chunk
    .split('\n')
    .filter((line) => !/^-+ Captured (?:Out|Err|Log) -+$/.test(line))
    .join('\n');
  return printed.endsWith('\n\n') ? printed.slice(0, -1) : printed;
}

/** A flaky or rerun element: one earlier or later failed attempt, its stack in a `stackTrace` child. */
function rerunAttempt(element: XmlElement, dialect: JUnitDialect): Attempt {
  const stackTrace = childrenNamed(element, 'stackTrace')
    .map((child) => child.text)
    .join('\n');
  return {
    status: 'failed',
    durationMs: secondsToMs(element.attributes.time),
    error: errorOf(element, stackTrace || element.text, dialect),
    stdout: output(dialect, texts(element, 'system-out')),
    stderr: output(dialect, texts(element, 'system-err')),
  };
}

function errorOf(element: XmlElement, body: string, dialect: JUnitDialect): TestError {
  const stack = trimBlankLines(stripAnsi(body));
  const attribute = stripAnsi(element.attributes.message ?? '').trim();
  // gotestsum's message is always "Failed"; the test's own log lines say what went wrong.
  const fromBody = dialect === 'gotestsum' ? goFailureLines(stack) : messageBeforeStackFrames(stack);
  const preferBody = dialect === 'gotestsum' || attribute === '';
  const message = (preferBody ? fromBody || attribute : attribute) || element.attributes.type || element.name;
  return {
    message: clip(message, LIMITS.message),
    stack: stack === '' ? undefined : clip(stack, LIMITS.stack),
  };
}

/** The lines of a JavaScript or Java stack trace before its first frame. */
function messageBeforeStackFrames(stack: string): string {
  const lines = stack.split('\n');
  const firstFrame = lines.findIndex((line) => /^\s+at\s/.test(line));
  return (firstFrame === -1 ? lines.slice(0, 1) : lines.slice(0, firstFrame)).join('\n').trim();
}

/** Go test output without the runner's own `=== RUN` / `--- FAIL` bookkeeping lines. */
function goFailureLines(output: string): string {
  return output
    .split('\n')
    .filter((line) => !/^(===|---) [A-Z]+:?\s/.test(line))
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n');
}

function trimBlankLines(text: string): string {
  return text.replace(/^\s*\n/, '').trimEnd();
}

function secondsToMs(time: string | undefined): number {
  // Surefire writes thousands separators ("1,234.5") in some locales.
  const seconds = Number((time ?? '').replaceAll(',', ''));
  return Number.isFinite(seconds) && seconds > 0 ? Math.round(seconds * 1_000 * 1_000) / 1_000 : 0;
}

function toResults(cases: CollectedCase[], dialect: JUnitDialect): ResultItem[] {
  const nextAttempt = new Map<string, number>();
  const results: ResultItem[] = [];
  for (const collected of cases) {
    const identity = identify(collected, dialect);
    const key = resultKey({ ...identity, attempt: 0 });
    const first = nextAttempt.get(key) ?? 0;
    const attempts = attemptsOf(collected, dialect);
    nextAttempt.set(key, first + attempts.length);
    const startedAt = startOf(collected);
    const annotations = annotationsOf(collected.element, dialect);
    attempts.forEach((attempt, index) => {
      results.push(resultItem(identity, first + index, attempt, startedAt, annotations));
    });
  }
  return results;
}

function resultItem(
  identity: Identity,
  attempt: number,
  outcome: Attempt,
  startedAt: string,
  annotations: Annotation[],
): ResultItem {
  return {
    file: identity.file,
    titlePath: identity.titlePath,
    project: identity.project,
    attempt,
    status: outcome.status,
    durationMs: outcome.durationMs,
    startedAt,
    error: outcome.error,
    stdout: clipOutput(outcome.stdout),
    stderr: clipOutput(outcome.stderr),
    annotations: annotations.length > 0 ? annotations : undefined,
    location: identity.location,
  };
}

function startOf({ suite, element }: CollectedCase): string {
  if (suite.startedAt !== undefined) return suite.startedAt;
  throw new ValidationError(
    `Testcase "${element.attributes.name ?? ''}" has no start: its suite has no timestamp and no startedAt was given`,
  );
}

function annotationsOf(element: XmlElement, dialect: JUnitDialect): Annotation[] {
  const annotations = childrenNamed(element, 'properties')
    .flatMap((properties) => childrenNamed(properties, 'property'))
    .filter((property) => (property.attributes.name ?? '') !== '')
    .map((property) => annotation(property.attributes.name ?? '', propertyValue(property)));
  for (const skipped of childrenNamed(element, 'skipped')) {
    const message = skipped.attributes.message ?? '';
    // gotestsum puts the whole test output in the message; its t.Skip line is the reason.
    const reason = (dialect === 'gotestsum' ? goFailureLines(message) : message).trim();
    const known = annotations.some((entry) => entry.type === 'skip' && entry.description === reason);
    if (reason !== '' && !known) annotations.push(annotation('skip', reason));
  }
  return limitList(annotations, LIMITS.annotations);
}

function annotation(type: string, description: string): Annotation {
  return {
    type: clip(type, LIMITS.annotationType),
    description: description === '' ? undefined : clip(description, LIMITS.annotationDescription),
  };
}

function propertyValue(property: XmlElement): string {
  return property.attributes.value ?? property.text.trim();
}

function runOf(
  root: XmlElement,
  cases: CollectedCase[],
  dialect: JUnitDialect,
  defaultStartedAt: string | undefined,
): JUnitImport['run'] {
  const starts = cases
    .map(({ suite }) => suite.startedAt)
    .filter((start): start is string => start !== undefined);
  const startedAt = starts.length > 0 ? starts.reduce((a, b) => (a < b ? a : b)) : defaultStartedAt;
  return { startedAt, durationMs: runDuration(root), framework: frameworkOf(root, dialect) };
}

/** The root's `time` (wall clock for jest-junit and Playwright); else the sum of the top-level suites. */
function runDuration(root: XmlElement): number | undefined {
  if (root.attributes.time !== undefined) return secondsToMs(root.attributes.time);
  const suites = childrenNamed(root, 'testsuite').filter((suite) => suite.attributes.time !== undefined);
  if (suites.length === 0) return undefined;
  return suites.reduce((sum, suite) => sum + secondsToMs(suite.attributes.time), 0);
}

function frameworkOf(root: XmlElement, dialect: JUnitDialect): JUnitImport['run']['framework'] {
  switch (dialect) {
    case 'playwright':
      return { name: 'playwright' };
    case 'surefire':
      return { name: 'maven-surefire' };
    case 'pytest':
      return { name: 'pytest' };
    case 'jest':
      return { name: 'jest' };
    case 'gotestsum': {
      const goVersion = descendants(root, 'testsuite')
        .flatMap(suiteProperties)
        .find(([name]) => name === 'go.version')?.[1];
      return { name: 'go', version: goVersion?.split(' ')[0] };
    }
    case 'generic':
      // The runner is not named, but the format is: a retry command can still tell from the files
      // whether JUnit XML came from pytest, go, a JavaScript runner or (most often) Maven.
      return { name: 'junit' };
  }
}

function childrenNamed(element: XmlElement, name: string): XmlElement[] {
  return element.children.filter((child) => child.name === name);
}

function descendants(element: XmlElement, name: string): XmlElement[] {
  const self = element.name === name ? [element] : [];
  return [...self, ...element.children.flatMap((child) => descendants(child, name))];
}

/** Non-blank text of the named children (system-out, system-err). */
function texts(element: XmlElement, name: string): string[] {
  return childrenNamed(element, name)
    .map((child) => child.text)
    .filter((text) => text.trim() !== '');
}
