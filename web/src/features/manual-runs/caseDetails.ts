/**
 * A run case's detailed result as the run page edits it: the case's steps in one shape whatever their
 * format, the per-step results a tester sets, and the body that saves them. No I/O.
 */
import type { ManualCaseDetail, ManualRunCase } from '../../api/queries';
import type { LinkedIssue, RunCasePatch } from './api';
import type { RunCaseResult } from './verdicts';

/** A step as the run page shows it: Gherkin steps have no expected result and no data. */
export type RunStep = { text: string; expected: string; data: string };
export type StepResult = { status: RunCaseResult; comment: string };
/** Step results by the step's order (1-based). */
export type StepResults = Record<number, StepResult>;

export function stepsOf(testCase: ManualCaseDetail | undefined): RunStep[] {
  return testCase?.stepFormat === 'Gherkin'
    ? testCase.steps.gherkin.map((s) => ({ text: s.text, expected: '', data: '' }))
    : (testCase?.steps.classic ?? []).map((s) => ({
        text: s.action,
        expected: s.expectedResult,
        data: s.data,
      }));
}

/** The step results the run case was saved with. */
export function savedStepResults(runCase: Pick<ManualRunCase, 'stepResults'>): StepResults {
  return Object.fromEntries(
    runCase.stepResults.map((s) => [s.order, { status: s.status, comment: s.comment }]),
  );
}

/** `previous` with one step's status or comment changed (an unset step starts untested, without comment). */
export function withStepResult(
  previous: StepResults,
  order: number,
  change: Partial<StepResult>,
): StepResults {
  return {
    ...previous,
    [order]: {
      status: previous[order]?.status ?? 'untested',
      comment: previous[order]?.comment ?? '',
      ...change,
    },
  };
}

/**
 * What saving the details sends: the comment, the steps given a result or a comment, and the case's issues
 * plus the one typed (if any).
 */
export function detailsPatch(
  comment: string,
  stepResults: StepResults,
  linkedIssues: ManualRunCase['linkedIssues'],
  issue: string,
): RunCasePatch {
  const key = issue.trim();
  return {
    comment,
    stepResults: Object.entries(stepResults)
      .filter(([, s]) => s.status !== 'untested' || s.comment.trim() !== '')
      .map(([order, s]) => ({ order: Number(order), status: s.status, comment: s.comment })),
    ...(key ? { linkedIssues: [...linkedIssues.map((i) => ({ ...i }) as LinkedIssue), { key }] } : {}),
  };
}
