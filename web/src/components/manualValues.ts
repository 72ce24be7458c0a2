/**
 * The value sets of a manual case (spec §2), as the API declares them: taken from @verdict/client, which
 * generates them from the OpenAPI document, so the app offers exactly what the API accepts and answers.
 * Here, the words a person reads.
 */
import { MANUAL_CASE_VALUES } from '@verdict/client';

export const CASE_STATUSES = MANUAL_CASE_VALUES.status;
export const SEVERITIES = MANUAL_CASE_VALUES.severity;
export const PRIORITIES = MANUAL_CASE_VALUES.priority;
export const CASE_TYPES = MANUAL_CASE_VALUES.type;
export const LAYERS = MANUAL_CASE_VALUES.layer;
export const BEHAVIORS = MANUAL_CASE_VALUES.behavior;
export const AUTOMATION_STATUSES = MANUAL_CASE_VALUES.automationStatus;

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
