/**
 * The gate of a finished run (issue 32): each rule of the project judged against the run, quarantined
 * failures left out. Pure; the caller reads the run's stats and verdicts once, after its last shard.
 */
import type { GateFailure, GateResult, GateRuleResult, GateRules } from '@verdict/contracts';

/** The most failures a rule lists. */
export const MAX_GATE_FAILURES = 20;

export interface GatedRun {
  /** Tests (per platform) by outcome, as the run's stats count them. */
  stats: { total: number; passed: number; failed: number; flaky: number; skipped: number };
  /** Each failed test with its verdict (`new`, `failing-on-base`, `known-flaky`, `quarantined`). */
  failures: GateFailure[];
  /** The platforms (Playwright projects) that ran at least one test. */
  platforms: string[];
  durationMs: number;
}

const share = (part: number, whole: number) => (whole === 0 ? 0 : part / whole);

/**
 * The gate's result: passed when every rule passed (no rules: passed).
 *
 * @example const gate = evaluateGate({ maxFailedTests: 0 }, run); // { status: 'failed', rules: [...] }
 */
export function evaluateGate(rules: GateRules, run: GatedRun): GateResult {
  const counted = run.failures.filter((failure) => failure.verdict !== 'quarantined');
  const quarantined = run.failures.length - counted.length;
  const ran = run.stats.total - run.stats.skipped;
  const results: GateRuleResult[] = [];
  const judge = (
    rule: GateRuleResult['rule'],
    threshold: GateRuleResult['threshold'],
    observed: GateRuleResult['observed'],
    passed: boolean,
    failures: GateFailure[] = [],
  ) =>
    results.push({
      rule,
      threshold,
      observed,
      passed,
      failures: passed ? [] : failures.slice(0, MAX_GATE_FAILURES),
    });

  if (rules.maxFailedTests !== undefined) {
    judge(
      'maxFailedTests',
      rules.maxFailedTests,
      counted.length,
      counted.length <= rules.maxFailedTests,
      counted,
    );
  }
  if (rules.minPassRate !== undefined) {
    const rate = share(run.stats.passed + run.stats.flaky + quarantined, ran);
    judge('minPassRate', rules.minPassRate, rate, ran > 0 && rate >= rules.minPassRate);
  }
  if (rules.noNewFailures === true) {
    const fresh = counted.filter((failure) => failure.verdict === 'new');
    judge('noNewFailures', true, fresh.length === 0, fresh.length === 0, fresh);
  }
  if (rules.maxFlakyRate !== undefined) {
    const rate = share(run.stats.flaky, ran);
    judge('maxFlakyRate', rules.maxFlakyRate, rate, rate <= rules.maxFlakyRate);
  }
  if (rules.minTestCount !== undefined) {
    judge('minTestCount', rules.minTestCount, ran, ran >= rules.minTestCount);
  }
  if (rules.requiredProjects !== undefined) {
    const missing = rules.requiredProjects.filter((project) => !run.platforms.includes(project));
    judge('requiredProjects', rules.requiredProjects, run.platforms, missing.length === 0);
  }
  if (rules.maxDurationMs !== undefined) {
    judge('maxDurationMs', rules.maxDurationMs, run.durationMs, run.durationMs <= rules.maxDurationMs);
  }
  return { status: results.every((result) => result.passed) ? 'passed' : 'failed', rules: results };
}
