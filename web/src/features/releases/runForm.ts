/** The new-run dialog's values and what they make: the run to create, or nothing chosen yet. */
import type { ManualCaseQuery } from '../../api/queries';
import type { CaseField } from '../../components/manualValues';
import type { NewRun, RunCases } from './api';

export type CasesFrom = 'suites' | 'cases' | 'filter';

export interface RunForm {
  name: string;
  from: CasesFrom;
  suiteIds: string[];
  caseIds: string[];
  /** The library filter: one field's value and tags (any of). */
  field: CaseField;
  value: string | null;
  tags: string;
  releaseId: string | null;
  assigneeUserId: string | null;
}

export const EMPTY_RUN_FORM: RunForm = {
  name: '',
  from: 'suites',
  suiteIds: [],
  caseIds: [],
  field: 'priority',
  value: null,
  tags: '',
  releaseId: null,
  assigneeUserId: null,
};

function casesOf(form: RunForm): RunCases {
  if (form.from === 'suites') return { suiteIds: form.suiteIds };
  if (form.from === 'cases') return { caseIds: form.caseIds };
  const filter: ManualCaseQuery = {};
  if (form.value) Object.assign(filter, { [form.field]: form.value });
  if (form.tags.trim()) filter.tags = form.tags.trim();
  return { filter };
}

/** The run the form describes; release and assignee only when chosen. */
export function newRunOf(form: RunForm): NewRun {
  return {
    name: form.name,
    cases: casesOf(form),
    ...(form.releaseId ? { releaseId: form.releaseId } : {}),
    ...(form.assigneeUserId ? { assigneeUserId: form.assigneeUserId } : {}),
  };
}

/** Whether the way of choosing cases has nothing chosen yet (no suite, no case, an empty filter). */
export function choosesNothing(form: RunForm): boolean {
  if (form.from === 'suites') return form.suiteIds.length === 0;
  if (form.from === 'cases') return form.caseIds.length === 0;
  return form.value === null && form.tags.trim() === '';
}
