import { minutesSpent, notesAndFindings, timeBoxOf } from './sessionTime';

describe('an exploratory session', () => {
  const start = '2026-01-01T10:00:00.000Z';

  it('when it has not started, runs or is completed, then its minutes are none, so far or spent', () => {
    expect(minutesSpent({ startedAt: null, completedAt: null })).toBeNull();
    expect(
      minutesSpent({ startedAt: start, completedAt: null }, Date.parse('2026-01-01T10:29:40.000Z')),
    ).toBe(30);
    expect(minutesSpent({ startedAt: start, completedAt: '2026-01-01T11:00:00.000Z' }, 0)).toBe(60);
  });

  it('when it has a time box, then the box is named, with how far over once the minutes pass it', () => {
    expect(timeBoxOf(10, null)).toBe('');
    expect(timeBoxOf(null, 45)).toBe(' · time box 45 min');
    expect(timeBoxOf(45, 45)).toBe(' · time box 45 min');
    expect(timeBoxOf(50, 45)).toBe(' · time box 45 min (5 min over)');
  });

  it('when notes are saved, then a non-blank finding is added after the others (kept as they were), a blank one is not', () => {
    const findings = [{ title: 'Crash', description: '', severity: 'major' as const, issueKey: null }];
    expect(notesAndFindings('n', '  ', findings)).toEqual({ notes: 'n' });
    expect(notesAndFindings('n', ' Slow ', findings)).toEqual({
      notes: 'n',
      findings: [
        { title: 'Crash', description: '', severity: 'major', issueKey: undefined },
        { title: 'Slow' },
      ],
    });
  });
});
