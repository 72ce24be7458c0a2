import type { ManualCaseDetail, ManualRunCase } from '../../api/queries';
import { detailsPatch, savedStepResults, stepsOf, withStepResult } from './caseDetails';

describe("a run case's detailed result", () => {
  it('when the case is classic, then each step shows its action, expected result and data', () => {
    const testCase = {
      stepFormat: 'Classic',
      steps: { classic: [{ action: 'Open', expectedResult: 'Opened', data: 'x=1' }], gherkin: [] },
    } as unknown as ManualCaseDetail;
    expect(stepsOf(testCase)).toEqual([{ text: 'Open', expected: 'Opened', data: 'x=1' }]);
  });

  it('when the case is Gherkin, then each step shows its text alone', () => {
    const testCase = {
      stepFormat: 'Gherkin',
      steps: { classic: [], gherkin: [{ keyword: 'Given', text: 'Given a cart' }] },
    } as unknown as ManualCaseDetail;
    expect(stepsOf(testCase)).toEqual([{ text: 'Given a cart', expected: '', data: '' }]);
    expect(stepsOf(undefined)).toEqual([]);
  });

  it('when a step is changed for the first time, then it starts untested without comment', () => {
    const saved = savedStepResults({ stepResults: [{ order: 1, status: 'passed', comment: 'ok' }] } as never);
    expect(withStepResult(saved, 2, { comment: 'slow' })).toEqual({
      1: { status: 'passed', comment: 'ok' },
      2: { status: 'untested', comment: 'slow' },
    });
    expect(withStepResult(saved, 1, { status: 'failed' })[1]).toEqual({ status: 'failed', comment: 'ok' });
  });

  it('when saved, then untouched steps are left out and a typed issue joins the linked ones', () => {
    const linked = [{ key: 'PAY-1' }] as ManualRunCase['linkedIssues'];
    const results = {
      1: { status: 'untested', comment: ' ' },
      2: { status: 'failed', comment: '' },
    } as const;
    expect(detailsPatch('c', results, linked, ' PAY-2 ')).toEqual({
      comment: 'c',
      stepResults: [{ order: 2, status: 'failed', comment: '' }],
      linkedIssues: [{ key: 'PAY-1' }, { key: 'PAY-2' }],
    });
    expect(detailsPatch('c', {}, linked, '  ')).toEqual({ comment: 'c', stepResults: [] });
  });
});
