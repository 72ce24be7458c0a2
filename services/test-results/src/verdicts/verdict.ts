/**
 * A verdict per failure (issue 31): is a failed test of a run R new, already failing on R's base branch B,
 * or a known flake? Decided from facts gathered over the runs of the project that started before R, in the
 * VERDICT_WINDOW_DAYS days before R started; the same test is the same test case id on the same platform.
 *
 * - quarantined: the test is quarantined (not recorded yet: never produced, its count stays 0);
 * - failing-on-base: B's latest finished run that started before R fails this test (outcome failed);
 * - known-flaky: the test was flaky (outcome flaky) in any run of the project in the window, or it failed on
 *   B in the window with the same signature while B's latest finished run did not fail it;
 * - new: otherwise (not failing with this signature on B in the window).
 *
 * Precedence: quarantined > failing-on-base > known-flaky > new. A run on B itself compares with B's
 * earlier runs; with no finished run on B before R, failing-on-base cannot apply.
 */
import type { FailureVerdict, VerdictCounts } from '@verdict/contracts';

export interface VerdictFacts {
  /** The test is quarantined (issue 32; false until quarantine exists). */
  quarantined: boolean;
  /** B's latest finished run that started before R failed the test. */
  failsInBaseRun: boolean;
  /** The test was flaky in a run of the project in the window. */
  flakyInWindow: boolean;
  /** The test failed on B in the window with the signature it fails with in R. */
  failedOnBaseWithSignature: boolean;
}

/** The verdict of one failure, from its facts. */
export function verdictOf(facts: VerdictFacts): FailureVerdict {
  if (facts.quarantined) return 'quarantined';
  if (facts.failsInBaseRun) return 'failing-on-base';
  if (facts.flakyInWindow || facts.failedOnBaseWithSignature) return 'known-flaky';
  return 'new';
}

const COUNT_OF: Record<FailureVerdict, keyof VerdictCounts> = {
  new: 'new',
  'failing-on-base': 'failingOnBase',
  'known-flaky': 'knownFlaky',
  quarantined: 'quarantined',
};

/** How many failures got each verdict (every verdict present, 0 when none). */
export function countVerdicts(verdicts: readonly FailureVerdict[]): VerdictCounts {
  const counts: VerdictCounts = { new: 0, failingOnBase: 0, knownFlaky: 0, quarantined: 0 };
  for (const verdict of verdicts) counts[COUNT_OF[verdict]] += 1;
  return counts;
}
