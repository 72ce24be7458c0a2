import { choosesNothing, EMPTY_RUN_FORM, newRunOf, type RunForm } from './runForm';

const form = (patch: Partial<RunForm>): RunForm => ({ ...EMPTY_RUN_FORM, name: 'Smoke', ...patch });

describe('the new run form', () => {
  it('when cases come from suites or chosen cases, then the run takes those ids and only the chosen extras', () => {
    expect(newRunOf(form({ suiteIds: ['s1'] }))).toEqual({ name: 'Smoke', cases: { suiteIds: ['s1'] } });
    expect(newRunOf(form({ from: 'cases', caseIds: ['c1'], releaseId: 'r1', assigneeUserId: 'u1' }))).toEqual(
      {
        name: 'Smoke',
        cases: { caseIds: ['c1'] },
        releaseId: 'r1',
        assigneeUserId: 'u1',
      },
    );
  });

  it('when cases come from a filter, then it holds the field value and the trimmed tags that are set', () => {
    expect(newRunOf(form({ from: 'filter', field: 'type', value: 'smoke', tags: ' a, b ' })).cases).toEqual({
      filter: { type: 'smoke', tags: 'a, b' },
    });
    expect(newRunOf(form({ from: 'filter', tags: '  ' })).cases).toEqual({ filter: {} });
  });

  it('when the chosen way has nothing yet, then the form chooses nothing', () => {
    expect(choosesNothing(form({}))).toBe(true);
    expect(choosesNothing(form({ suiteIds: ['s1'] }))).toBe(false);
    expect(choosesNothing(form({ from: 'cases', suiteIds: ['s1'] }))).toBe(true);
    expect(choosesNothing(form({ from: 'filter', tags: ' ' }))).toBe(true);
    expect(choosesNothing(form({ from: 'filter', value: 'high' }))).toBe(false);
  });
});
