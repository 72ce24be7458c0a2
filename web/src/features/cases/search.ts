import {
  AUTOMATION_STATUSES,
  BEHAVIORS,
  CASE_STATUSES,
  CASE_TYPES,
  LAYERS,
  PRIORITIES,
  SEVERITIES,
} from '../../components/manualValues';
import { integer, oneOf, text, type Raw } from '../../search';

export const CASE_SORTS = [
  'caseId',
  'title',
  'updatedAt',
  'status',
  'severity',
  'priority',
  'type',
  'automationStatus',
] as const;
const YES_NO = ['true', 'false'] as const;
/** The `suite` search value of the cases in no suite. */
export const UNASSIGNED = 'unassigned';

export interface CasesSearch {
  page?: number;
  /** A suite's id, or "unassigned" for the cases in no suite. */
  suite?: string;
  search?: string;
  status?: (typeof CASE_STATUSES)[number];
  severity?: (typeof SEVERITIES)[number];
  priority?: (typeof PRIORITIES)[number];
  type?: (typeof CASE_TYPES)[number];
  layer?: (typeof LAYERS)[number];
  behavior?: (typeof BEHAVIORS)[number];
  automationStatus?: (typeof AUTOMATION_STATUSES)[number];
  flaky?: (typeof YES_NO)[number];
  muted?: (typeof YES_NO)[number];
  tags?: string;
  sortBy?: (typeof CASE_SORTS)[number];
  order?: 'asc' | 'desc';
}

export const validateCasesSearch = (raw: Raw): CasesSearch => ({
  page: integer(raw, 'page', 1),
  suite: text(raw, 'suite'),
  search: text(raw, 'search'),
  status: oneOf(raw, 'status', CASE_STATUSES),
  severity: oneOf(raw, 'severity', SEVERITIES),
  priority: oneOf(raw, 'priority', PRIORITIES),
  type: oneOf(raw, 'type', CASE_TYPES),
  layer: oneOf(raw, 'layer', LAYERS),
  behavior: oneOf(raw, 'behavior', BEHAVIORS),
  automationStatus: oneOf(raw, 'automationStatus', AUTOMATION_STATUSES),
  flaky: oneOf(raw, 'flaky', YES_NO),
  muted: oneOf(raw, 'muted', YES_NO),
  tags: text(raw, 'tags'),
  sortBy: oneOf(raw, 'sortBy', CASE_SORTS),
  order: oneOf(raw, 'order', ['asc', 'desc'] as const),
});
