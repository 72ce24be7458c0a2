/**
 * The gate rules form's draft: each rule on or off with the value a person types (rates in percent,
 * durations in minutes), and back to the API's rules (rates as shares, durations in milliseconds).
 */
import type { GateRuleName } from '../../components/gateRules';

export interface GateRules {
  maxFailedTests?: number;
  minPassRate?: number;
  noNewFailures?: boolean;
  maxFlakyRate?: number;
  minTestCount?: number;
  requiredProjects?: string[];
  maxDurationMs?: number;
}

type NumberRule = Exclude<GateRuleName, 'noNewFailures' | 'requiredProjects'>;

export interface GateDraft {
  on: Record<GateRuleName, boolean>;
  numbers: Record<NumberRule, number | ''>;
  projects: string[];
}

/** How a number rule reads in the form: its unit, and its scale from the API's value. */
export const NUMBER_RULES: Record<
  NumberRule,
  { unit: string; scale: number; max?: number; integer: boolean }
> = {
  maxFailedTests: { unit: 'tests', scale: 1, integer: true },
  minPassRate: { unit: '%', scale: 100, max: 100, integer: false },
  maxFlakyRate: { unit: '%', scale: 100, max: 100, integer: false },
  minTestCount: { unit: 'tests', scale: 1, integer: true },
  maxDurationMs: { unit: 'min', scale: 1 / 60_000, integer: false },
};

const DEFAULTS: Record<NumberRule, number> = {
  maxFailedTests: 0,
  minPassRate: 95,
  maxFlakyRate: 5,
  minTestCount: 1,
  maxDurationMs: 30,
};

const rounded = (value: number) => Math.round(value * 1000) / 1000;

export function toDraft(rules: GateRules): GateDraft {
  const numbers = {} as GateDraft['numbers'];
  const on = {} as GateDraft['on'];
  for (const [rule, { scale }] of Object.entries(NUMBER_RULES) as [NumberRule, { scale: number }][]) {
    const value = rules[rule];
    on[rule] = value !== undefined;
    numbers[rule] = value === undefined ? DEFAULTS[rule] : rounded(value * scale);
  }
  on.noNewFailures = rules.noNewFailures === true;
  on.requiredProjects = rules.requiredProjects !== undefined;
  return { on, numbers, projects: rules.requiredProjects ?? [] };
}

/** The rules to save, or why a rule that is on cannot be: by rule. */
export function fromDraft(
  draft: GateDraft,
): { rules: GateRules; problems: null } | { rules: null; problems: Partial<Record<GateRuleName, string>> } {
  const rules: GateRules = {};
  const problems: Partial<Record<GateRuleName, string>> = {};
  for (const [rule, spec] of Object.entries(NUMBER_RULES) as [
    NumberRule,
    (typeof NUMBER_RULES)[NumberRule],
  ][]) {
    if (!draft.on[rule]) continue;
    const value = draft.numbers[rule];
    if (value === '' || !Number.isFinite(value) || value < 0) problems[rule] = 'Enter a number, 0 or more';
    else if (spec.max !== undefined && value > spec.max) problems[rule] = `At most ${spec.max}`;
    else if (spec.integer && !Number.isInteger(value)) problems[rule] = 'Enter a whole number';
    else rules[rule] = rule === 'maxDurationMs' ? Math.round(value * 60_000) : rounded(value / spec.scale);
  }
  if (draft.on.noNewFailures) rules.noNewFailures = true;
  if (draft.on.requiredProjects) {
    if (draft.projects.length === 0) problems.requiredProjects = 'Name at least one platform';
    else rules.requiredProjects = draft.projects;
  }
  return Object.keys(problems).length > 0 ? { rules: null, problems } : { rules, problems: null };
}
