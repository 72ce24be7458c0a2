/**
 * The case editor's draft: the case's editable content as the form holds it (steps with keys that stay put
 * while they are dragged), and the PATCH that saves only what changed. No I/O: the page reads and sends.
 */

interface SavedClassicStep {
  action: string;
  data: string;
  expectedResult: string;
  subSteps: SavedClassicStep[];
}
interface SavedGherkinStep {
  text: string;
  subSteps: SavedGherkinStep[];
}

/** What the draft reads of a case as the API answers it (the client's ManualCaseDetail fits). */
export interface SavedCase {
  title: string;
  description: string;
  preconditions: string;
  postconditions: string;
  classification: Record<'status' | 'severity' | 'priority' | 'type' | 'layer' | 'behavior', string>;
  automation: { status: string; toBeAutomated: boolean; isFlaky: boolean; isMuted: boolean };
  tags: string[];
  customFields: Record<string, unknown>;
  stepFormat: StepFormat;
  steps: { classic: SavedClassicStep[]; gherkin: SavedGherkinStep[] };
}

export interface DraftSubStep {
  key: string;
  action: string;
  data: string;
  expectedResult: string;
  text: string;
}
export interface DraftStep extends DraftSubStep {
  subSteps: DraftSubStep[];
}
export type StepFormat = 'Classic' | 'Gherkin';
export const FLAGS = ['To be Automated', 'Is flaky', 'Muted'] as const;
export type Flag = (typeof FLAGS)[number];

export interface CaseDraft {
  title: string;
  description: string;
  preconditions: string;
  postconditions: string;
  status: string;
  severity: string;
  priority: string;
  type: string;
  layer: string;
  behavior: string;
  automationStatus: string;
  flags: Flag[];
  tags: string[];
  /** As the person types it: JSON of an object. */
  customFields: string;
  stepFormat: StepFormat;
  classic: DraftStep[];
  gherkin: DraftStep[];
}

let keys = 0;
/** A key for a new step: stable across renders and drags, never sent. */
export const newKey = () => `step-${(keys += 1)}`;

export const emptyStep = (): DraftStep => ({
  key: newKey(),
  action: '',
  data: '',
  expectedResult: '',
  text: '',
  subSteps: [],
});

type Step = SavedClassicStep | SavedGherkinStep;

function draftStep(step: Step): DraftStep {
  const classic = 'action' in step;
  return {
    key: newKey(),
    action: classic ? step.action : '',
    data: classic ? step.data : '',
    expectedResult: classic ? step.expectedResult : '',
    text: classic ? '' : step.text,
    subSteps: (step.subSteps as Step[]).map(
      (sub) => ({ ...draftStep(sub), subSteps: undefined }) as DraftSubStep,
    ),
  };
}

export function draftOf(testCase: SavedCase): CaseDraft {
  const { classification, automation } = testCase;
  return {
    title: testCase.title,
    description: testCase.description,
    preconditions: testCase.preconditions,
    postconditions: testCase.postconditions,
    status: classification.status,
    severity: classification.severity,
    priority: classification.priority,
    type: classification.type,
    layer: classification.layer,
    behavior: classification.behavior,
    automationStatus: automation.status,
    flags: FLAGS.filter(
      (flag) =>
        (flag === 'To be Automated' && automation.toBeAutomated) ||
        (flag === 'Is flaky' && automation.isFlaky) ||
        (flag === 'Muted' && automation.isMuted),
    ),
    tags: [...testCase.tags],
    customFields:
      Object.keys(testCase.customFields).length === 0 ? '' : JSON.stringify(testCase.customFields, null, 2),
    stepFormat: testCase.stepFormat,
    classic: testCase.steps.classic.map(draftStep),
    gherkin: testCase.steps.gherkin.map(draftStep),
  };
}

/** Steps as the API takes them: numbered by position, without the editor's keys. */
function stepsBody(draft: CaseDraft) {
  if (draft.stepFormat === 'Gherkin') {
    return draft.gherkin.map((step) => ({
      text: step.text,
      subSteps: step.subSteps.map((sub) => ({ text: sub.text })),
    }));
  }
  return draft.classic.map((step) => ({
    action: step.action,
    data: step.data,
    expectedResult: step.expectedResult,
    subSteps: step.subSteps.map(({ action, data, expectedResult }) => ({ action, data, expectedResult })),
  }));
}

/** Custom fields typed as JSON: an object, or an error to show beside the field. */
export function parseCustomFields(text: string): { value: Record<string, unknown> } | { error: string } {
  if (text.trim() === '') return { value: {} };
  try {
    const value: unknown = JSON.parse(text);
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      return { error: 'Custom fields are a JSON object: {"name": value, …}' };
    }
    return { value: value as Record<string, unknown> };
  } catch (error) {
    return { error: `Not JSON: ${(error as Error).message}` };
  }
}

const SIMPLE = [
  'title',
  'description',
  'preconditions',
  'postconditions',
  'status',
  'severity',
  'priority',
  'type',
  'layer',
  'behavior',
  'automationStatus',
] as const;

/** The fields of `draft` that differ from `saved`, as a PATCH body; empty when nothing changed. */
export function changesOf(saved: CaseDraft, draft: CaseDraft): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const field of SIMPLE) if (saved[field] !== draft[field]) body[field] = draft[field];
  if (saved.flags.join() !== draft.flags.join()) body.flags = draft.flags;
  if (saved.tags.join('\n') !== draft.tags.join('\n')) body.tags = draft.tags;
  if (saved.customFields.trim() !== draft.customFields.trim()) {
    const parsed = parseCustomFields(draft.customFields);
    if ('value' in parsed) body.customFields = parsed.value;
  }
  const steps = JSON.stringify(stepsBody(draft));
  if (saved.stepFormat !== draft.stepFormat || JSON.stringify(stepsBody(saved)) !== steps) {
    body.stepFormat = draft.stepFormat;
    body.steps = stepsBody(draft);
  }
  return body;
}

/** `items` with the one at `from` moved to `to`. */
export function moved<T>(items: readonly T[], from: number, to: number): T[] {
  const next = [...items];
  const [item] = next.splice(from, 1);
  if (item !== undefined) next.splice(to, 0, item);
  return next;
}
