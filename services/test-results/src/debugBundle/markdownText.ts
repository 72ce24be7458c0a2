/** The pieces of Markdown every scope's document is written with: where a test is, its facts, code. */
import type { FailureQuarantine, FailureVerdict, Pagination, SignatureRef } from '@verdict/contracts';
import { stripAnsi } from './failureWindow';
import type { CodeBlock, Unit } from './markdownDocument';
import type {
  BundleEnvironment,
  BundleErrorSummary,
  BundleStats,
  BundleView,
  FailureWindow,
  RunBundleItem,
  SuiteBundleItem,
  WindowStep,
} from './types';

/** A failure window as a code block: one line per step, the failed one marked. */
export function windowUnits(window: FailureWindow): Unit[] {
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

export function stepLine(step: WindowStep): string {
  const mark = step.error === null ? '✓' : '✗';
  const where = step.location ? `  ${locationText(step.location)}` : '';
  const error = step.error === null ? '' : `  — ${step.error}`;
  return `${'  '.repeat(step.depth)}${mark} ${oneLine(step.title)} (${duration(step.durationMs)})${where}${error}`;
}

/** `title path` in `file:line` [project]. */
export function testWhere(test: {
  titlePath: readonly string[];
  file: string;
  line: number | null;
  project: string | null;
}): string {
  const project = test.project ? ` [${oneLine(test.project)}]` : '';
  return `${code(oneLine(test.titlePath.join(' › ')))} in ${code(test.line === null ? test.file : `${test.file}:${test.line}`)}${project}`;
}

export function itemFacts(item: RunBundleItem | SuiteBundleItem): string {
  const attempts = `${item.attempts} attempt${item.attempts === 1 ? '' : 's'}`;
  return `${item.outcome}, ${attempts}, last ${item.status} in ${duration(item.durationMs)}; caseId ${code(item.caseId)}`;
}

/** The failure's verdict and signature (a verdict per failure); empty for a test that did not fail. */
export function verdictText(item: {
  verdict?: FailureVerdict | null;
  signature?: SignatureRef | null;
  quarantine?: FailureQuarantine | null;
}): string {
  if (!item.verdict) return '';
  const signature = item.signature
    ? `; signature ${code(item.signature.id)} ${code(oneLine(item.signature.text))}`
    : '';
  const { quarantine } = item;
  const quarantined = !quarantine
    ? ''
    : quarantine.forgives
      ? ` (quarantine ${code(quarantine.id)}, owner ${code(quarantine.ownerId)}, until ${quarantine.expiresAt.slice(0, 10)})`
      : `; the test is quarantined (${code(quarantine.id)}) for other signatures: a quarantine would mask this`;
  return `Verdict: ${item.verdict}${signature}${quarantined}`;
}

export function errorText(error: BundleErrorSummary | null): string {
  return error ? `: ${code(oneLine(error.message))}` : '';
}

export function errorLine(error: BundleErrorSummary): string {
  return `${code(oneLine(error.message))}${error.location ? ` at ${code(locationText(error.location))}` : ''}`;
}

export function failureCounts(stats: BundleStats): string {
  return `${stats.failed} failed, ${stats.flaky} flaky of ${stats.total} tests`;
}

/** The least urgent facts of a headline: the rest of the counts, branch and commit. */
export function context(stats: BundleStats, environment: BundleEnvironment, prefix = ''): string {
  return `${prefix}${stats.passed} passed, ${stats.skipped} skipped${onBranch(environment)}`;
}

export function statsText(stats: BundleStats): string {
  return `${stats.failed} failed, ${stats.flaky} flaky, ${stats.passed} passed, ${stats.skipped} skipped of ${stats.total} tests`;
}

export function onBranch(environment: BundleEnvironment): string {
  const branch = environment.branch ? ` on branch ${code(environment.branch)}` : '';
  const commit = environment.commit ? ` at ${code(environment.commit.sha.slice(0, 12))}` : '';
  return `${branch}${commit}`;
}

export function pageText(pagination: Pagination, shown: number): string {
  const first = (pagination.page - 1) * pagination.limit + 1;
  const pages = Math.max(1, Math.ceil(pagination.total / pagination.limit));
  return `Page ${pagination.page} of ${pages}: tests ${first} to ${first + shown - 1} of ${pagination.total}.`;
}

export function nextPage(pagination: Pagination | undefined): string[] {
  return pagination?.hasNext ? [`- Next page: ${code(`page=${pagination.page + 1}`)}`] : [];
}

/** What stands for a field the bundle does not carry: left out by the view, or never recorded. */
export function omitted(view: BundleView): string {
  return view === 'full' ? '_None recorded._' : `_Omitted under view=${view}; ask with view=full._`;
}

export function locationText(location: { file: string; line: number; column?: number | undefined }): string {
  return `${location.file}:${location.line}${location.column === undefined ? '' : `:${location.column}`}`;
}

/** Sentences of one paragraph; each ends with a full stop. */
export function sentences(parts: readonly string[]): string {
  return parts.map((part) => (/[.!?]$/.test(part) ? part : `${part}.`)).join(' ');
}

/** Text for one line: colours removed, line breaks and tabs folded into spaces. */
export function oneLine(text: string): string {
  return stripAnsi(text)
    .replace(/[\r\n\t\u2028\u2029]+/g, ' ')
    .trim();
}

/**
 * Inline code that its content cannot end early: the delimiter is longer than any backtick run inside,
 * and padded with spaces when the content touches a backtick.
 */
export function code(text: string): string {
  const content = oneLine(text);
  if (content.length === 0) return '""';
  const fence = '`'.repeat(longestBacktickRun(content) + 1);
  const pad = content.startsWith('`') || content.endsWith('`') ? ' ' : '';
  return `${fence}${pad}${content}${pad}${fence}`;
}

export function codeBlock(text: string): CodeBlock {
  return codeBlockOfLines(stripAnsi(text).split(/\r?\n/));
}

export function codeBlockOfLines(lines: readonly string[]): CodeBlock {
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

export function duration(ms: number): string {
  if (ms < 1_000) return `${Math.round(ms)} ms`;
  if (ms < 60_000) return `${(ms / 1_000).toFixed(1)} s`;
  const minutes = Math.floor(ms / 60_000);
  return `${minutes} min ${Math.round((ms % 60_000) / 1_000)} s`;
}
