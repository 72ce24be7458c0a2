/**
 * The quality gate's rules in words (issue 32): what each is called, and its threshold and the value a
 * run showed as a person reads them. Rates are shares (0 to 1) in the API and percentages on the page.
 */

export const GATE_RULE_NAMES = [
  'maxFailedTests',
  'minPassRate',
  'noNewFailures',
  'maxFlakyRate',
  'minTestCount',
  'requiredProjects',
  'maxDurationMs',
] as const;
export type GateRuleName = (typeof GATE_RULE_NAMES)[number];
export type GateValue = number | boolean | string[];

export const GATE_RULE_LABELS: Record<GateRuleName, string> = {
  maxFailedTests: 'Failed tests',
  minPassRate: 'Pass rate',
  noNewFailures: 'New failures',
  maxFlakyRate: 'Flaky rate',
  minTestCount: 'Tests run',
  requiredProjects: 'Platforms',
  maxDurationMs: 'Duration',
};

/** A share as a percentage with at most one decimal: 0.9 → "90%", 0.8333 → "83.3%". */
export function percent(share: number): string {
  const value = Math.round(share * 1000) / 10;
  return `${value}%`;
}

/** A duration in whole minutes and seconds: 90000 → "1 min 30 s". */
export function minutes(ms: number): string {
  const seconds = Math.round(ms / 1000);
  const whole = Math.floor(seconds / 60);
  const rest = seconds % 60;
  if (whole === 0) return `${rest} s`;
  return rest === 0 ? `${whole} min` : `${whole} min ${rest} s`;
}

const list = (value: GateValue) => (Array.isArray(value) && value.length > 0 ? value.join(', ') : 'none');
const num = (value: GateValue) => (typeof value === 'number' ? value : 0);

/** The rule's threshold as the gate asks it: "at most 0", "at least 90%", "none", "chromium, firefox". */
export function thresholdText(rule: GateRuleName, threshold: GateValue): string {
  switch (rule) {
    case 'maxFailedTests':
      return `at most ${num(threshold).toLocaleString()}`;
    case 'minPassRate':
      return `at least ${percent(num(threshold))}`;
    case 'noNewFailures':
      return 'none';
    case 'maxFlakyRate':
      return `at most ${percent(num(threshold))}`;
    case 'minTestCount':
      return `at least ${num(threshold).toLocaleString()}`;
    case 'requiredProjects':
      return `all of ${list(threshold)}`;
    case 'maxDurationMs':
      return `at most ${minutes(num(threshold))}`;
  }
}

/**
 * What the run showed for the rule. `noNewFailures` observes only whether there were none: its count is
 * the failures it lists (`listed`, at most 20).
 */
export function observedText(rule: GateRuleName, observed: GateValue, listed = 0): string {
  switch (rule) {
    case 'minPassRate':
    case 'maxFlakyRate':
      return percent(num(observed));
    case 'noNewFailures':
      return observed === true ? 'none' : `${listed >= 20 ? '20 or more' : listed} new`;
    case 'requiredProjects':
      return list(observed);
    case 'maxDurationMs':
      return minutes(num(observed));
    case 'maxFailedTests':
    case 'minTestCount':
      return num(observed).toLocaleString();
  }
}
