/**
 * The value sets of a manual case (spec §2), as the API answers them, with the words a person reads. The
 * arrays are checked against the client's types: a value the API stops answering fails the build.
 */
import type { ManualCase } from '../api/queries';

type Classification = ManualCase['classification'];

export const CASE_STATUSES = ['active', 'draft', 'deprecated'] as const satisfies Classification['status'][];
export const SEVERITIES = [
  'blocker',
  'critical',
  'major',
  'normal',
  'minor',
  'trivial',
  'not_set',
] as const satisfies Classification['severity'][];
export const PRIORITIES = [
  'critical',
  'high',
  'medium',
  'low',
  'not_set',
] as const satisfies Classification['priority'][];
export const CASE_TYPES = [
  'smoke',
  'regression',
  'functional',
  'integration',
  'e2e',
  'api',
  'unit',
  'performance',
  'security',
  'accessibility',
  'usability',
  'compatibility',
  'acceptance',
  'exploratory',
  'other',
] as const satisfies Classification['type'][];
export const LAYERS = ['e2e', 'api', 'unit', 'not_set'] as const satisfies Classification['layer'][];
export const BEHAVIORS = [
  'positive',
  'negative',
  'destructive',
  'not_set',
] as const satisfies Classification['behavior'][];
export const AUTOMATION_STATUSES = [
  'manual',
  'automated',
  'to_be_automated',
] as const satisfies ManualCase['automation']['status'][];

const WORDS: Record<string, string> = { e2e: 'E2E', api: 'API', not_set: 'Not set' };

/** "to_be_automated" → "To be automated". */
export function labelOf(value: string): string {
  const word = WORDS[value];
  if (word) return word;
  const spaced = value.replace(/_/g, ' ');
  return spaced.charAt(0).toUpperCase() + spaced.slice(1);
}

/** A Select's data for a value set. */
export const optionsOf = (values: readonly string[]) =>
  values.map((value) => ({ value, label: labelOf(value) }));

/** The classification fields a bulk action or a filter sets, each with its value set. */
export const CASE_FIELDS = {
  status: CASE_STATUSES,
  severity: SEVERITIES,
  priority: PRIORITIES,
  type: CASE_TYPES,
  layer: LAYERS,
  behavior: BEHAVIORS,
  automationStatus: AUTOMATION_STATUSES,
} as const;
export type CaseField = keyof typeof CASE_FIELDS;

export const FIELD_LABELS: Record<CaseField, string> = {
  status: 'Status',
  severity: 'Severity',
  priority: 'Priority',
  type: 'Type',
  layer: 'Layer',
  behavior: 'Behavior',
  automationStatus: 'Automation',
};
