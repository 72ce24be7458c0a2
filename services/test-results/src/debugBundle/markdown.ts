import type { Pagination } from '@verdict/contracts';
import { cutAt, firstLine, flattenSteps, stripAnsi } from './failureWindow';
import type {
  BundleArtifact,
  BundleEnvironment,
  BundleErrorSummary,
  BundleStats,
  BundleView,
  DebugBundle,
  FailureWindow,
  RunBundle,
  RunBundleItem,
  SuiteBundle,
  SuiteBundleItem,
  TestBundle,
  WindowStep,
} from './types';

/**
 * The Markdown body of as=markdown (spec §4.2): a one-paragraph headline (what failed, where, how to
 * rerun), then the spec's sections in the spec's order:
 * - run: Failing suites, Failing tests, Actions;
 * - suite: Failing tests (each with Error and Failure window), Actions;
 * - test: Error, Failure window, Steps, stdout, stderr, Attempt history, Artifacts, Actions.
 * A section with nothing to show still appears, saying so (or naming the view that omitted it), so a
 * reader can tell "empty" from "cut".
 *
 * With `budgetChars` the document is at most that many characters (UTF-16 code units, JavaScript's
 * `length`). Sections are kept by priority — headline, then the most useful for debugging — and the
 * first one that does not fit whole is cut between lines (an open code block is closed, and a note says
 * the section was cut); every later one is dropped. The document then ends with
 * `… truncated: N more characters (raise budgetChars or use as=json)`, shortened for tiny budgets; when
 * not even the headline fits, the headline is cut mid-line, still followed by a marker.
 */

export interface RenderOptions {
  /** 1 to 128000 (spec §8); absent: no limit. */
  budgetChars?: number;
  /** The page shown at run and suite scope, for "page 2 of 3" and the next-page action. */
  pagination?: Pagination;
}

/**
 * The Markdown document of a bundle (already cut to its view).
 *
 * @example res.type('text/markdown').send(renderMarkdown(applyView(bundle, view), { budgetChars, pagination }));
 */
export function renderMarkdown(bundle: DebugBundle, options: RenderOptions = {}): string {
  const sections = sectionsOf(bundle, options.pagination);
  return options.budgetChars === undefined ? renderAll(sections) : fitToBudget(sections, options.budgetChars);
}

// ——— document model ———

/** A fenced code block; its fence is longer than any backtick run inside, so content cannot close it. */
interface CodeBlock {
  fence: string;
  info: string;
  lines: string[];
}

/** A line of Markdown, or a code block kept whole or cut between its lines. */
type Unit = string | CodeBlock;

interface Section {
  /** Null for the headline paragraph. */
  title: string | null;
  /** Lower is kept first under a budget. */
  priority: number;
  units: Unit[];
}

function sectionsOf(bundle: DebugBundle, pagination: Pagination | undefined): Section[] {
  switch (bundle.scope) {
    case 'run':
      return runSections(bundle, pagination);
    case 'suite':
      return suiteSections(bundle, pagination);
    case 'test':
      return testSections(bundle);
  }
}

function renderAll(sections: readonly Section[]): string {
  return sections.map(renderSection).join(SECTION_SEPARATOR);
}

const SECTION_SEPARATOR = '\n\n';

function renderSection(section: Section): string {
  return [...headingLines(section), ...section.units.flatMap(unitLines)].join('\n');
}

function headingLines(section: Section): string[] {
  return section.title === null ? [] : [`## ${section.title}`, ''];
}

function unitLines(unit: Unit): string[] {
  return typeof unit === 'string' ? [unit] : [`${unit.fence}${unit.info}`, ...unit.lines, unit.fence];
}

// ——— budget ———

const CUT_NOTE = '_[… section cut to fit budgetChars]_';
/** Below this much room a cut line is not worth showing. */
const MIN_LINE_PART = 24;

const longMarker = (omitted: number) =>
  `… truncated: ${omitted} more characters (raise budgetChars or use as=json)`;
const shortMarker = (omitted: number) => `… truncated: ${omitted} more characters`;

function fitToBudget(sections: readonly Section[], budget: number): string {
  const full = renderAll(sections);
  if (full.length <= budget) return full;
  const headline = sections.find((section) => section.title === null);
  // The marker's length is reserved with the largest count it can show; the real count is smaller.
  const marker = markerFor(budget, full.length);
  if (marker === undefined) return tinyCut(headline ? renderSection(headline) : full, budget);

  const room = budget - marker(full.length).length - SECTION_SEPARATOR.length;
  const body = keepByPriority(sections, room);
  return `${body}${SECTION_SEPARATOR}${marker(full.length - body.length)}`;
}

/**
 * The worded marker, when the budget leaves room for content beside it: the long one from three times
 * its length, the short one from twice its length; below that, none (a bare ellipsis).
 */
function markerFor(budget: number, fullLength: number): ((omitted: number) => string) | undefined {
  if (budget >= 3 * longMarker(fullLength).length) return longMarker;
  if (budget >= 2 * shortMarker(fullLength).length) return shortMarker;
  return undefined;
}

/** A budget too small for a worded marker: the start of the headline and a bare ellipsis. */
function tinyCut(text: string, budget: number): string {
  return `${cutAt(text, budget - 1)}…`;
}

/** Sections by priority into `room` characters, shown in document order. */
function keepByPriority(sections: readonly Section[], room: number): string {
  const kept = new Map<Section, string>();
  let used = 0;
  for (const section of [...sections].sort((a, b) => a.priority - b.priority)) {
    const separator = kept.size > 0 ? SECTION_SEPARATOR.length : 0;
    const fitted = fitSection(section, room - used - separator);
    if (fitted === undefined) break;
    kept.set(section, fitted.text);
    used += separator + fitted.text.length;
    if (!fitted.complete) break;
  }
  return sections.flatMap((section) => kept.get(section) ?? []).join(SECTION_SEPARATOR);
}

/** A section whole, or cut between lines with a note, or undefined when not even its heading fits. */
function fitSection(section: Section, room: number): { text: string; complete: boolean } | undefined {
  const whole = renderSection(section);
  if (whole.length <= room) return { text: whole, complete: true };
  if (section.title === null) return room > 0 ? { text: cutAt(whole, room), complete: false } : undefined;

  const lines = new LineBudget(room - 1 - CUT_NOTE.length);
  if (!headingLines(section).every((line) => lines.add(line))) return undefined;
  for (const unit of section.units) {
    if (!(typeof unit === 'string' ? addLine(lines, unit) : addCodeBlock(lines, unit))) break;
  }
  return { text: [...lines.taken, CUT_NOTE].join('\n'), complete: false };
}

/** Lines joined by newlines, up to a number of characters. */
class LineBudget {
  readonly taken: string[] = [];
  private used = -1;

  constructor(private readonly room: number) {}

  /** Room left for one more line. */
  get left(): number {
    return this.room - this.used - 1;
  }

  add(line: string): boolean {
    if (line.length > this.left) return false;
    this.taken.push(line);
    this.used += 1 + line.length;
    return true;
  }
}

/** A line whole, else its start with a note, when enough of it fits to be worth reading. Returns "go on". */
function addLine(lines: LineBudget, line: string): boolean {
  if (lines.add(line)) return true;
  addCutLine(lines, line, 0);
  return false;
}

/** A code block whole, else cut between lines and closed. Returns "go on". */
function addCodeBlock(lines: LineBudget, block: CodeBlock): boolean {
  const all = unitLines(block);
  if (all.join('\n').length <= lines.left) {
    all.forEach((line) => lines.add(line));
    return true;
  }
  const closing = 1 + block.fence.length;
  if (lines.left < `${block.fence}${block.info}`.length + 1 + closing + MIN_LINE_PART) return false;
  lines.add(`${block.fence}${block.info}`);
  for (const line of block.lines) {
    if (line.length + 1 + closing <= lines.left) {
      lines.add(line);
      continue;
    }
    addCutLine(lines, line, closing);
    break;
  }
  lines.add(block.fence);
  return false;
}

/** The start of a line that does not fit, marked as cut, keeping `reserve` characters free. */
function addCutLine(lines: LineBudget, line: string, reserve: number): void {
  const suffix = ' [… line cut]';
  const room = lines.left - reserve - suffix.length;
  if (room >= MIN_LINE_PART) lines.add(`${cutAt(line, room)}${suffix}`);
}

// ——— run scope ———

function runSections(bundle: RunBundle, pagination: Pagination | undefined): Section[] {
  return [
    { title: null, priority: 0, units: [runHeadline(bundle, pagination)] },
    { title: 'Failing suites', priority: 3, units: failingSuites(bundle) },
    { title: 'Failing tests', priority: 1, units: runFailingTests(bundle, pagination) },
    { title: 'Actions', priority: 2, units: runActions(bundle, pagination) },
  ];
}

/** The headline speaks of the page when the failing tests do not all fit on it. */
function runHeadline(bundle: RunBundle, pagination: Pagination | undefined): string {
  const status = {
    running: 'is running',
    passed: 'passed',
    failed: 'failed',
    interrupted: 'was interrupted',
  };
  const first = bundle.items[0];
  const paged = pagination !== undefined && pagination.total > bundle.items.length;
  const onPage = paged ? ' on this page' : '';
  return sentences([
    `**Run ${code(bundle.runId)} ${status[bundle.runStatus]}**: ${failureCounts(bundle.meta.stats)}`,
    first
      ? `${pagination && pagination.page > 1 ? 'First failure on this page' : 'First failure'}: ${testWhere(first)}${errorText(first.error)}`
      : 'No failing tests',
    `${first ? `Rerun the failing tests${onPage}` : 'Rerun the run'}: ${code(bundle.links.retryCommand)}`,
    context(bundle.meta.stats, bundle.environment),
  ]);
}

function failingSuites(bundle: RunBundle): Unit[] {
  if (bundle.suites.length === 0) return ['_None._'];
  return bundle.suites.map(
    (suite) =>
      `- ${code(suite.file)} ${suite.status}: ${statsText(suite.stats)} (suiteId ${code(suite.suiteId)})`,
  );
}

function runFailingTests(bundle: RunBundle, pagination: Pagination | undefined): Unit[] {
  if (bundle.items.length === 0) return ['_None._'];
  const first = pagination ? (pagination.page - 1) * pagination.limit + 1 : 1;
  const page = pagination ? [pageText(pagination, bundle.items.length), ''] : [];
  return [
    ...page,
    ...bundle.items.flatMap((item, index) => [
      `${first + index}. ${testWhere(item)}${alsoFailedIn(item)}`,
      `   ${itemFacts(item)}`,
      ...(item.error ? [`   Error: ${errorLine(item.error)}`] : []),
      `   Rerun: ${code(item.retryCommand)}`,
    ]),
  ];
}

function alsoFailedIn(item: RunBundleItem): string {
  return item.alsoFailedIn.length > 0 ? `; also failed in ${item.alsoFailedIn.join(', ')}` : '';
}

function runActions(bundle: RunBundle, pagination: Pagination | undefined): Unit[] {
  const example = bundle.items[0];
  const suite = bundle.suites[0];
  return [
    // With nothing failing, the command reruns every test: say so rather than promise failing ones.
    example
      ? `- Rerun the failing tests of this page: ${code(bundle.links.retryCommand)}`
      : `- Rerun the run: ${code(bundle.links.retryCommand)}`,
    `- Open the run in Verdict: ${bundle.links.uiUrl}`,
    ...(example
      ? [`- Debug one test: ${code(`caseId=${example.caseId}&runId=${bundle.runId}&as=markdown`)}`]
      : []),
    ...(suite
      ? [`- Debug one suite: ${code(`suiteId=${suite.suiteId}&runId=${bundle.runId}&as=markdown`)}`]
      : []),
    ...nextPage(pagination),
  ];
}

// ——— suite scope ———

function suiteSections(bundle: SuiteBundle, pagination: Pagination | undefined): Section[] {
  return [
    { title: null, priority: 0, units: [suiteHeadline(bundle)] },
    { title: 'Failing tests', priority: 1, units: suiteFailingTests(bundle, pagination) },
    { title: 'Actions', priority: 2, units: suiteActions(bundle, pagination) },
  ];
}

function suiteHeadline(bundle: SuiteBundle): string {
  const first = bundle.items[0];
  return sentences([
    `**Suite ${code(bundle.spec.file)} ${bundle.suiteStatus}**: ${failureCounts(bundle.spec.stats)}`,
    first ? `First failure: ${testWhere(first)}${errorText(first.error)}` : 'No failing tests',
    `Rerun the file: ${code(bundle.links.retryCommand)}`,
    context(bundle.spec.stats, bundle.environment, `In run ${code(bundle.meta.runId)}: `),
  ]);
}

function suiteFailingTests(bundle: SuiteBundle, pagination: Pagination | undefined): Unit[] {
  if (bundle.items.length === 0) return ['_None._'];
  const first = pagination ? (pagination.page - 1) * pagination.limit + 1 : 1;
  const page = pagination ? [pageText(pagination, bundle.items.length), ''] : [];
  return [
    ...page,
    ...bundle.items.flatMap((item, index) => [
      ...(index > 0 ? [''] : []),
      ...suiteItem(item, first + index, bundle.meta.view),
    ]),
  ];
}

function suiteItem(item: SuiteBundleItem, number: number, view: BundleView): Unit[] {
  return [
    `### ${number}. ${testWhere(item)}`,
    '',
    `${itemFacts(item)}; rerun: ${code(item.retryCommand)}`,
    '',
    '#### Error',
    '',
    item.error ? errorLine(item.error) : '_No error recorded._',
    '',
    '#### Failure window',
    '',
    ...(item.failureWindow === null ? [omitted(view)] : windowUnits(item.failureWindow)),
  ];
}

function suiteActions(bundle: SuiteBundle, pagination: Pagination | undefined): Unit[] {
  const example = bundle.items[0];
  return [
    `- Rerun the file: ${code(bundle.links.retryCommand)}`,
    `- Open the suite in Verdict: ${bundle.links.uiUrl}`,
    ...(example
      ? [`- Debug one test: ${code(`caseId=${example.caseId}&runId=${bundle.meta.runId}&as=markdown`)}`]
      : []),
    ...(bundle.meta.view === 'full' ? [] : [`- Failure windows: ${code('view=full')}`]),
    ...nextPage(pagination),
  ];
}

// ——— test scope ———

function testSections(bundle: TestBundle): Section[] {
  const view = bundle.meta.view;
  return [
    { title: null, priority: 0, units: [testHeadline(bundle)] },
    { title: 'Error', priority: 1, units: errorUnits(bundle) },
    { title: 'Failure window', priority: 2, units: windowUnits(bundle.failureWindow) },
    { title: 'Steps', priority: 8, units: bundle.steps ? stepsUnits(bundle.steps) : [omitted(view)] },
    { title: 'stdout', priority: 7, units: bundle.stdout ? outputUnits(bundle.stdout) : [omitted(view)] },
    { title: 'stderr', priority: 6, units: bundle.stderr ? outputUnits(bundle.stderr) : [omitted(view)] },
    { title: 'Attempt history', priority: 4, units: attemptUnits(bundle) },
    { title: 'Artifacts', priority: 5, units: artifactUnits(bundle) },
    { title: 'Actions', priority: 3, units: testActions(bundle) },
  ];
}

function testHeadline(bundle: TestBundle): string {
  const { test, meta } = bundle;
  const status = test.status === 'timedOut' ? 'TIMED OUT' : test.status.toUpperCase();
  const failed = bundle.failureWindow.failed;
  const latest = meta.latestRun ? ' (the latest run of this test)' : '';
  return sentences([
    `**${status}** ${testWhere(test)}`,
    ...(bundle.error ? [`Error: ${code(firstLine(bundle.error.message))}`] : []),
    `Rerun: ${code(bundle.links.retryCommand)}`,
    ...(failed
      ? [
          `Failed step: ${code(oneLine(failed.title))}${failed.location ? ` at ${code(locationText(failed.location))}` : ''}`,
        ]
      : []),
    `Attempt ${meta.attempt} (0-based) of ${meta.attempts}, outcome ${test.outcome}, run ${code(meta.runId)}${latest}${onBranch(bundle.environment)}`,
  ]);
}

function errorUnits(bundle: TestBundle): Unit[] {
  const error = bundle.error;
  if (error === null) return ['_No error: the attempt shown did not fail._'];
  const stack =
    error.stack && stripAnsi(error.stack).trim() !== stripAnsi(error.message).trim() ? error.stack : null;
  return [
    ...(error.location ? [`At ${code(locationText(error.location))}:`, ''] : []),
    codeBlock(error.message),
    ...(error.snippet ? ['', 'Source:', '', codeBlock(error.snippet)] : []),
    ...(stack ? ['', 'Stack:', '', codeBlock(stack)] : []),
  ];
}

function stepsUnits(steps: NonNullable<TestBundle['steps']>): Unit[] {
  if (steps.length === 0) return ['_No steps recorded._'];
  const lines = flattenSteps(steps).map(({ step, depth }) =>
    stepLine({
      title: step.title,
      depth,
      durationMs: step.durationMs,
      location: step.location ?? null,
      error: step.error ? firstLine(step.error.message) : null,
      category: step.category ?? null,
    }),
  );
  return ['✓ passed, ✗ failed; indentation is nesting.', '', codeBlockOfLines(lines)];
}

function outputUnits(chunks: readonly string[]): Unit[] {
  const text = chunks.join('');
  return text.trim().length === 0 ? ['_Empty._'] : [codeBlock(text.replace(/\n$/, ''))];
}

function attemptUnits(bundle: TestBundle): Unit[] {
  if (bundle.attemptHistory.length === 0) return ['_No other attempts._'];
  return bundle.attemptHistory.map(
    (entry) =>
      `- attempt ${entry.attempt}: ${entry.status}, ${duration(entry.durationMs)}${entry.error ? `; ${errorLine(entry.error)}` : ''}`,
  );
}

function artifactUnits(bundle: TestBundle): Unit[] {
  const { artifacts } = bundle;
  const kinds = [
    ['Screenshots', artifacts.screenshots, artifacts.totals?.screenshots],
    ['Videos', artifacts.videos, artifacts.totals?.videos],
    ['Traces', artifacts.traces, artifacts.totals?.traces],
    ['Other', artifacts.other, artifacts.totals?.other],
  ] as const;
  const units = kinds.flatMap(([label, list, total]) => artifactGroup(label, list, total));
  return units.length > 0 ? units : ['_None._'];
}

function artifactGroup(label: string, list: readonly BundleArtifact[], total: number | undefined): Unit[] {
  if (list.length === 0) return [];
  const count = total !== undefined && total > list.length ? `${list.length} of ${total}` : `${list.length}`;
  return [
    `- ${label} (${count}):`,
    ...list.map(
      (artifact) =>
        `  - ${code(oneLine(artifact.name))} (${artifact.contentType}): ${artifact.url ?? 'not uploaded'}`,
    ),
  ];
}

function testActions(bundle: TestBundle): Unit[] {
  const { meta, links } = bundle;
  const others = bundle.attemptHistory.map((entry) => code(`attempt=${entry.attempt}`));
  return [
    `- Rerun locally: ${code(links.retryCommand)}`,
    `- Open the test in Verdict: ${links.uiUrl}`,
    ...(links.traceViewerUrl ? [`- Open the trace: ${links.traceViewerUrl}`] : []),
    ...(others.length > 0 ? [`- Other attempts: ${others.join(', ')}`] : []),
    ...(meta.view === 'full' ? [] : [`- Steps and output: ${code('view=full')}`]),
    `- The whole suite: ${code(`suiteId=${bundle.spec.suiteId}&runId=${meta.runId}&as=markdown`)}`,
  ];
}

// ——— shared pieces ———

/** A failure window as a code block: one line per step, the failed one marked. */
function windowUnits(window: FailureWindow): Unit[] {
  const steps = [...window.before, ...(window.failed ? [window.failed] : []), ...window.after];
  if (steps.length === 0) return ['_No steps recorded._'];
  const minDepth = Math.min(...steps.map((step) => step.depth));
  const line = (step: WindowStep, marker: string) =>
    `${marker}${stepLine({ ...step, depth: step.depth - minDepth })}`;
  const lines = [
    ...window.before.map((step) => line(step, '  ')),
    ...(window.failed
      ? [line(window.failed, '> ')]
      : ['> (no step failed: the test stopped after the steps above)']),
    ...window.after.map((step) => line(step, '  ')),
  ];
  return [codeBlockOfLines(lines)];
}

function stepLine(step: WindowStep): string {
  const mark = step.error === null ? '✓' : '✗';
  const where = step.location ? `  ${locationText(step.location)}` : '';
  const error = step.error === null ? '' : `  — ${step.error}`;
  return `${'  '.repeat(step.depth)}${mark} ${oneLine(step.title)} (${duration(step.durationMs)})${where}${error}`;
}

/** `title path` in `file:line` [project]. */
function testWhere(test: {
  titlePath: readonly string[];
  file: string;
  line: number | null;
  project: string | null;
}): string {
  const project = test.project ? ` [${oneLine(test.project)}]` : '';
  return `${code(oneLine(test.titlePath.join(' › ')))} in ${code(test.line === null ? test.file : `${test.file}:${test.line}`)}${project}`;
}

function itemFacts(item: RunBundleItem | SuiteBundleItem): string {
  const attempts = `${item.attempts} attempt${item.attempts === 1 ? '' : 's'}`;
  return `${item.outcome}, ${attempts}, last ${item.status} in ${duration(item.durationMs)}; caseId ${code(item.caseId)}`;
}

function errorText(error: BundleErrorSummary | null): string {
  return error ? `: ${code(oneLine(error.message))}` : '';
}

function errorLine(error: BundleErrorSummary): string {
  return `${code(oneLine(error.message))}${error.location ? ` at ${code(locationText(error.location))}` : ''}`;
}

function failureCounts(stats: BundleStats): string {
  return `${stats.failed} failed, ${stats.flaky} flaky of ${stats.total} tests`;
}

/** The least urgent facts of a headline: the rest of the counts, branch and commit. */
function context(stats: BundleStats, environment: BundleEnvironment, prefix = ''): string {
  return `${prefix}${stats.passed} passed, ${stats.skipped} skipped${onBranch(environment)}`;
}

function statsText(stats: BundleStats): string {
  return `${stats.failed} failed, ${stats.flaky} flaky, ${stats.passed} passed, ${stats.skipped} skipped of ${stats.total} tests`;
}

function onBranch(environment: BundleEnvironment): string {
  const branch = environment.branch ? ` on branch ${code(environment.branch)}` : '';
  const commit = environment.commit ? ` at ${code(environment.commit.sha.slice(0, 12))}` : '';
  return `${branch}${commit}`;
}

function pageText(pagination: Pagination, shown: number): string {
  const first = (pagination.page - 1) * pagination.limit + 1;
  const pages = Math.max(1, Math.ceil(pagination.total / pagination.limit));
  return `Page ${pagination.page} of ${pages}: tests ${first} to ${first + shown - 1} of ${pagination.total}.`;
}

function nextPage(pagination: Pagination | undefined): string[] {
  return pagination?.hasNext ? [`- Next page: ${code(`page=${pagination.page + 1}`)}`] : [];
}

/** What stands for a field the bundle does not carry: left out by the view, or never recorded. */
function omitted(view: BundleView): string {
  return view === 'full' ? '_None recorded._' : `_Omitted under view=${view}; ask with view=full._`;
}

function locationText(location: { file: string; line: number; column?: number | undefined }): string {
  return `${location.file}:${location.line}${location.column === undefined ? '' : `:${location.column}`}`;
}

/** Sentences of one paragraph; each ends with a full stop. */
function sentences(parts: readonly string[]): string {
  return parts.map((part) => (/[.!?]$/.test(part) ? part : `${part}.`)).join(' ');
}

/** Text for one line: colours removed, line breaks and tabs folded into spaces. */
function oneLine(text: string): string {
  return stripAnsi(text)
    .replace(/[\r\n\t\u2028\u2029]+/g, ' ')
    .trim();
}

/**
 * Inline code that its content cannot end early: the delimiter is longer than any backtick run inside,
 * and padded with spaces when the content touches a backtick.
 */
function code(text: string): string {
  const content = oneLine(text);
  if (content.length === 0) return '""';
  const fence = '`'.repeat(longestBacktickRun(content) + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

function codeBlock(text: string): CodeBlock {
  return codeBlockOfLines(stripAnsi(text).split(/\r?\n/));
}

function codeBlockOfLines(lines: readonly string[]): CodeBlock {
  // reduce, not Math.max(...lines): output can have more lines than a call may take arguments.
  const longest = lines.reduce((max, line) => Math.max(max, longestBacktickRun(line)), 0);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return { fence, info: 'text', lines: [...lines] };
}

function longestBacktickRun(text: string): number {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return longest;
}

function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
}
