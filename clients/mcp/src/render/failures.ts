import { clip, code, count, firstLine, oneLine } from './markdown';

/**
 * The failing tests of a run (or of one spec file in it) grouped by error, within a character budget that
 * still names every failing test. The detail of each line is given up step by step until the document
 * fits: first the ids and where else the test failed, then the location, then each test gets only its
 * title under its file. Only when not even the titles fit are tests left out, and the document says how
 * many and how much budget would name them all.
 */

export interface FailingTest {
  caseId: string;
  title: string;
  titlePath: readonly string[];
  file: string;
  line: number | null;
  project: string | null;
  /** failed: every attempt failed; flaky: passed on a retry. */
  outcome: string;
  attempts: number;
  error: { message: string } | null;
  /** Other recent runs where the same test failed (run scope only). */
  alsoFailedIn?: readonly string[];
  /** The failure's verdict against the run's base branch, and its error signature (failed tests only). */
  verdict?: string | null;
  signatureId?: string | null;
}

export interface FailureReport {
  /** The first paragraph: what failed, where. Always kept. */
  headline: string;
  tests: readonly FailingTest[];
  /** Failing tests that exist beyond those fetched (a bound on pages), said in the document. */
  notFetched: number;
  /** The closing lines: what to call next. Always kept. */
  next: readonly string[];
}

interface Group {
  /** The first message of the group, as written. */
  error: string;
  /** Whether other messages of the group differ from it (in their numbers only). */
  varies: boolean;
  tests: FailingTest[];
}

/**
 * What tells errors apart: the first line of the message with its numbers blanked out, so that `product 7
 * not found` and `product 9 not found` count as one failure (ids, ports, timings and line numbers vary
 * from test to test, the cause does not).
 */
function fingerprint(message: string): string {
  return message.replace(/\d+/g, '#');
}

/** Tests by error, most tests first, then in the order they came (failed, then flaky). */
function groupByError(tests: readonly FailingTest[]): Group[] {
  const groups = new Map<string, Group>();
  for (const test of tests) {
    const error = test.error
      ? firstLine(test.error.message) || '(empty error message)'
      : '(no error recorded)';
    const key = fingerprint(error);
    const group = groups.get(key) ?? { error, varies: false, tests: [] };
    if (error !== group.error) group.varies = true;
    group.tests.push(test);
    groups.set(key, group);
  }
  return [...groups.values()].sort((a, b) => b.tests.length - a.tests.length);
}

/** The group's message, cut, and said to vary when it does. */
const errorOf = (group: Group, max: number) =>
  `${code(clip(group.error, max))}${group.varies ? ' (numbers vary)' : ''}`;

const fullTitle = (test: FailingTest) =>
  oneLine(test.titlePath.length > 0 ? test.titlePath.join(' › ') : test.title);
const where = (test: FailingTest) => (test.line === null ? test.file : `${test.file}:${test.line}`);
const mark = (test: FailingTest) => (test.outcome === 'flaky' ? 'flaky' : 'failed');

/** One rendering per level of detail, most detailed first. */
const LEVELS: readonly ((groups: readonly Group[], tests: readonly FailingTest[]) => string[])[] = [
  // Everything an agent needs to drill down: ids, platform, attempts, recurrence.
  (groups) =>
    groups.flatMap((group, index) => [
      '',
      `### ${index + 1}. ${errorOf(group, 300)} (${count(group.tests.length, 'test')})`,
      ...group.tests.map((test) => {
        const platform = test.project ? ` [${oneLine(test.project)}]` : '';
        const also =
          test.alsoFailedIn && test.alsoFailedIn.length > 0
            ? `; also failed in ${count(test.alsoFailedIn.length, 'recent run')}`
            : '';
        const verdict = test.verdict ? `; verdict ${test.verdict}` : '';
        const signature = test.signatureId ? `; signatureId ${code(test.signatureId)}` : '';
        return `- ${mark(test)}: ${code(fullTitle(test))} in ${code(where(test))}${platform}, ${count(test.attempts, 'attempt')}; caseId ${code(test.caseId)}${verdict}${signature}${also}`;
      }),
    ]),
  // Ids kept, the rest of the facts dropped.
  (groups) =>
    groups.flatMap((group, index) => [
      '',
      `### ${index + 1}. ${errorOf(group, 160)} (${group.tests.length})`,
      ...group.tests.map(
        (test) =>
          `- ${code(fullTitle(test))} ${code(where(test))} caseId ${code(test.caseId)}${test.outcome === 'flaky' ? ' (flaky)' : ''}${test.verdict ? ` ${test.verdict}` : ''}`,
      ),
    ]),
  // Full titles and files, no ids.
  (groups) =>
    groups.flatMap((group, index) => [
      '',
      `### ${index + 1}. ${errorOf(group, 100)} (${group.tests.length})`,
      ...group.tests.map(
        (test) => `- ${fullTitle(test)} (${test.file})${test.outcome === 'flaky' ? ' ~flaky' : ''}`,
      ),
    ]),
  // Titles only, one line per file within each error.
  (groups) =>
    groups.flatMap((group, index) => [
      `${index + 1}. ${clip(oneLine(group.error), 80)} (${group.tests.length}):`,
      ...byFile(group.tests).map(
        ([file, tests]) => `- ${file}: ${tests.map((test) => oneLine(test.title)).join('; ')}`,
      ),
    ]),
  // Titles only, one line per file, errors left out: the most compact list that still names every test.
  (_groups, tests) => [
    '',
    '_Errors left out to fit budgetChars: raise it, or ask for one spec file (suiteId) or one test (caseId)._',
    ...byFile(tests).map(
      ([file, tests]) => `- ${file}: ${tests.map((test) => oneLine(test.title)).join('; ')}`,
    ),
  ],
];

function byFile(tests: readonly FailingTest[]): [string, FailingTest[]][] {
  const files = new Map<string, FailingTest[]>();
  for (const test of tests) files.set(test.file, [...(files.get(test.file) ?? []), test]);
  return [...files.entries()];
}

/**
 * The report as Markdown of at most `budget` characters.
 *
 * @example renderFailures({ headline, tests, notFetched: 0, next: ['Next: …'] }, 8000)
 */
export function renderFailures(report: FailureReport, budget: number): string {
  const groups = groupByError(report.tests);
  const unfetched =
    report.notFetched > 0
      ? [`Only the first ${report.tests.length} failing tests were read; ${report.notFetched} more exist.`]
      : [];
  const heading = `## Failing tests by error (${count(groups.length, 'distinct error')}, ${count(report.tests.length, 'test')})`;
  const compose = (body: readonly string[]) =>
    [report.headline, ...unfetched, '', heading, ...body, '', ...report.next].join('\n');
  if (report.tests.length === 0)
    return clip([report.headline, '', 'No failing tests.', '', ...report.next].join('\n'), budget);
  for (const level of LEVELS) {
    const text = compose(level(groups, report.tests));
    if (text.length <= budget) return text;
  }
  return cutToBudget(report, groups, budget, compose);
}

/** Not even the titles fit: as many titles as fit, in error order, then how many were left out. */
function cutToBudget(
  report: FailureReport,
  groups: readonly Group[],
  budget: number,
  compose: (body: readonly string[]) => string,
): string {
  const names = groups.flatMap((group) => group.tests.map((test) => `- ${clip(oneLine(test.title), 120)}`));
  const needed = compose(LEVELS[LEVELS.length - 1]!(groups, report.tests)).length;
  const note = (left: number) =>
    `… ${count(left, 'more failing test')} not named: budgetChars=${needed} names them all.`;
  let kept = names.length;
  while (kept > 0 && compose([...names.slice(0, kept), note(names.length - kept)]).length > budget) {
    // Drop about as many names as the excess holds (names run about 40 characters), at least one.
    kept -= Math.max(1, Math.floor((compose(names.slice(0, kept)).length - budget) / 40));
  }
  kept = Math.max(0, kept);
  return clip(compose([...names.slice(0, kept), note(names.length - kept)]), budget);
}
