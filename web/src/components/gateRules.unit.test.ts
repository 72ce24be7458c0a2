import { minutes, observedText, percent, thresholdText } from './gateRules';

describe('gate rules in words', () => {
  test('when a share is shown, then it reads as a percentage with at most one decimal', () => {
    expect(percent(0.9)).toBe('90%');
    expect(percent(0.8333)).toBe('83.3%');
    expect(percent(1)).toBe('100%');
  });

  test('when a duration is shown, then it reads in minutes and seconds', () => {
    expect(minutes(90_000)).toBe('1 min 30 s');
    expect(minutes(600_000)).toBe('10 min');
    expect(minutes(4_000)).toBe('4 s');
  });

  test('when each rule is judged, then its threshold and what the run showed read as a person says them', () => {
    expect(thresholdText('maxFailedTests', 0)).toBe('at most 0');
    expect(observedText('maxFailedTests', 3)).toBe('3');
    expect(thresholdText('minPassRate', 0.95)).toBe('at least 95%');
    expect(observedText('minPassRate', 0.5)).toBe('50%');
    expect(thresholdText('noNewFailures', true)).toBe('none');
    expect(observedText('noNewFailures', true)).toBe('none');
    expect(observedText('noNewFailures', false, 2)).toBe('2 new');
    expect(observedText('noNewFailures', false, 20)).toBe('20 or more new');
    expect(thresholdText('requiredProjects', ['chromium', 'webkit'])).toBe('all of chromium, webkit');
    expect(observedText('requiredProjects', [])).toBe('none');
    expect(thresholdText('maxDurationMs', 1_200_000)).toBe('at most 20 min');
    expect(thresholdText('minTestCount', 1000)).toBe(`at least ${(1000).toLocaleString()}`);
  });
});
