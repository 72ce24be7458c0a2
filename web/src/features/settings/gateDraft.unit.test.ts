import { fromDraft, toDraft } from './gateDraft';

describe('the gate rules form', () => {
  test('when rules are read, then rates show in percent and durations in minutes; the rules off keep a default', () => {
    const draft = toDraft({ minPassRate: 0.9, maxDurationMs: 1_800_000, noNewFailures: true });
    expect(draft.on).toMatchObject({ minPassRate: true, maxDurationMs: true, noNewFailures: true });
    expect(draft.on.maxFailedTests).toBe(false);
    expect(draft.numbers.minPassRate).toBe(90);
    expect(draft.numbers.maxDurationMs).toBe(30);
  });

  test('when the draft is saved, then it becomes the same rules again', () => {
    const rules = {
      maxFailedTests: 2,
      minPassRate: 0.955,
      noNewFailures: true,
      maxFlakyRate: 0.05,
      minTestCount: 10,
      requiredProjects: ['chromium'],
      maxDurationMs: 90_000,
    };
    expect(fromDraft(toDraft(rules))).toEqual({ rules, problems: null });
    expect(fromDraft(toDraft({}))).toEqual({ rules: {}, problems: null });
  });

  test('when a rule that is on has no usable value, then it says why', () => {
    const draft = toDraft({ maxFailedTests: 1, minPassRate: 0.5, requiredProjects: [] });
    draft.numbers.maxFailedTests = 1.5;
    draft.numbers.minPassRate = 120;
    expect(fromDraft(draft).problems).toEqual({
      maxFailedTests: 'Enter a whole number',
      minPassRate: 'At most 100',
      requiredProjects: 'Name at least one platform',
    });
  });
});
