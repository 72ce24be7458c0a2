import type { TestError, TestStep } from '@verdict/contracts';
import type { BundleErrorSummary, FailureWindow, WindowStep } from './types';

/**
 * The pieces of a bundle that are computed from a result rather than read: the failure window, one-line
 * errors; the links are in retryCommand.ts and links.ts.
 */

// ——— failure window ———

/**
 * The steps around the failure (spec §2 `failureWindow`), over the step tree flattened depth-first
 * (a parent before its children, as the steps started). `failed` is the innermost failed step — a failed
 * step none of whose descendants failed; the first such one when soft assertions failed several times.
 * Its ancestors count as steps before it (they started before it), its descendants as steps after it.
 * With no failed step (a timeout, a crash outside any step) `failed` is null and `before` holds the
 * last steps that ran, which is where the test stopped.
 *
 * @example const window = failureWindow(result.steps ?? [], { before: 3, after: 2 });
 */
export function failureWindow(
  steps: readonly TestStep[],
  { before = 3, after = 2 }: { before?: number; after?: number } = {},
): FailureWindow {
  const flat = flattenSteps(steps);
  const failedIndex = flat.findIndex(({ innermostFailure }) => innermostFailure);
  if (failedIndex === -1) {
    return {
      before: flat.slice(Math.max(0, flat.length - before)).map(toWindowStep),
      failed: null,
      after: [],
    };
  }
  const failed = flat[failedIndex];
  return {
    before: flat.slice(Math.max(0, failedIndex - before), failedIndex).map(toWindowStep),
    failed: failed === undefined ? null : toWindowStep(failed),
    after: flat.slice(failedIndex + 1, failedIndex + 1 + after).map(toWindowStep),
  };
}

/** A step in the flattened tree, with what the window needs to know of its place in the tree. */
export interface FlatStep {
  step: TestStep;
  depth: number;
  /** The step failed and none of its descendants did. */
  innermostFailure: boolean;
}

/**
 * The step tree in depth-first order (parent first).
 *
 * @example flattenSteps(result.steps ?? []).map(({ step, depth }) => `${'  '.repeat(depth)}${step.title}`)
 */
export function flattenSteps(steps: readonly TestStep[]): FlatStep[] {
  const flat: FlatStep[] = [];
  const visit = (step: TestStep, depth: number): boolean => {
    const entry: FlatStep = { step, depth, innermostFailure: false };
    flat.push(entry);
    let descendantFailed = false;
    for (const child of step.steps ?? []) descendantFailed = visit(child, depth + 1) || descendantFailed;
    const failed = step.error !== undefined;
    entry.innermostFailure = failed && !descendantFailed;
    return failed || descendantFailed;
  };
  for (const step of steps) visit(step, 0);
  return flat;
}

function toWindowStep({ step, depth }: FlatStep): WindowStep {
  return {
    title: step.title,
    category: step.category ?? null,
    depth,
    durationMs: step.durationMs,
    location: step.location ?? null,
    error: step.error === undefined ? null : firstLine(step.error.message),
  };
}

// ——— text ———

// CSI sequences (colours, cursor moves) and OSC sequences (hyperlinks) that runners write into messages.
// eslint-disable-next-line no-control-regex
const ANSI_PATTERN = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)/g;

/**
 * Removes terminal colour codes, which Playwright and Jest put in error messages; an agent reading them
 * pays for escape codes that carry nothing.
 *
 * @example stripAnsi('\u001b[31mExpected\u001b[39m') // 'Expected'
 */
export function stripAnsi(text: string): string {
  return text.replace(ANSI_PATTERN, '');
}

/**
 * The first non-empty line, without colour codes, at most `max` characters.
 *
 * @example firstLine('\nError: expect(received).toBe(expected)\n\nExpected: 1') // 'Error: expect(received).toBe(expected)'
 */
export function firstLine(text: string, max = 300): string {
  const line =
    stripAnsi(text)
      .split(/\r?\n/)
      .map((candidate) => candidate.trim())
      .find((candidate) => candidate.length > 0) ?? '';
  return line.length > max ? `${cutAt(line, max - 1)}…` : line;
}

/**
 * The first `length` characters (UTF-16 code units), one fewer when the last would be the first half of a
 * surrogate pair: a cut emoji would reach the reader as U+FFFD.
 *
 * @example cutAt('ab😀', 3) // 'ab'
 */
export function cutAt(text: string, length: number): string {
  if (length <= 0) return '';
  const cut = text.slice(0, length);
  const last = cut.charCodeAt(cut.length - 1);
  return last >= 0xd800 && last <= 0xdbff ? cut.slice(0, -1) : cut;
}

/**
 * An error as a list entry shows it: its first line and where it was raised.
 *
 * @example const error = result.error ? summarizeError(result.error) : null;
 */
export function summarizeError(error: TestError): BundleErrorSummary {
  return { message: firstLine(error.message), location: error.location ?? null };
}
