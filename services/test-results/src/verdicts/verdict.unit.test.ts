import { countVerdicts, verdictOf, type VerdictFacts } from './verdict';

const none: VerdictFacts = {
  quarantined: false,
  failsInBaseRun: false,
  flakyInWindow: false,
  failedOnBaseWithSignature: false,
};

describe('the verdict of a failure', () => {
  it.each<[string, Partial<VerdictFacts>, ReturnType<typeof verdictOf>]>([
    [
      'quarantined, whatever else is true',
      { quarantined: true, failsInBaseRun: true, flakyInWindow: true },
      'quarantined',
    ],
    [
      'failing-on-base, even when also flaky in the window',
      { failsInBaseRun: true, flakyInWindow: true },
      'failing-on-base',
    ],
    [
      'failing-on-base, with the same signature on the base',
      { failsInBaseRun: true, failedOnBaseWithSignature: true },
      'failing-on-base',
    ],
    ['known-flaky, when it was flaky in the window', { flakyInWindow: true }, 'known-flaky'],
    [
      'known-flaky, when it failed on the base with this signature but the base run did not fail it',
      { failedOnBaseWithSignature: true },
      'known-flaky',
    ],
    ['new, when nothing in the window says otherwise', {}, 'new'],
  ])('when the facts say %s, then that is the verdict', (_name, facts, verdict) => {
    expect(verdictOf({ ...none, ...facts })).toBe(verdict);
  });

  it('when verdicts are counted, then every verdict has its count, 0 for the absent ones', () => {
    expect(countVerdicts(['new', 'known-flaky', 'new', 'failing-on-base'])).toEqual({
      new: 2,
      failingOnBase: 1,
      knownFlaky: 1,
      quarantined: 0,
    });
  });
});
