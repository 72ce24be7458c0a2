/**
 * What the service's queries read: the schemas of its read models (one per slice, each written by its own
 * projection, all applied in each append's transaction and by the one projector of the service), and what
 * their answers are built with. A query joins another slice's table by that slice's schema, never writes
 * it; a projection reads and writes only its own tables.
 */
import {
  errorSignature,
  parseTestResultsEvent,
  testCaseIdOf,
  type ErrorSignature,
  type ResultItem,
  type TestResultsEvent,
} from '@verdict/contracts';
import { eventProjectId, type SqlExecutor, type StoredEvent } from '@verdict/platform';

/** The name of the single read model the slices replaced: their schemas' prefix and the projector's name. */
export const RUNS_READ_MODEL = 'test_results_read';

/** The schema of each read model. */
export interface TestResultsReadModels {
  /** Runs with their stats, and each test's outcome per run and platform (runs/runList). */
  runList: string;
  /** Every attempt (runs/runResults.ts). */
  runResults: string;
  /** The artifacts of each run (runs/runArtifacts.ts). */
  runArtifacts: string;
  /** The latest coverage report of each run (runs/runCoverage.ts). */
  runCoverage: string;
  /** The project's test cases (testCases/caseHistory.ts). */
  caseHistory: string;
  /** The project's spec files and the test cases in each (specs/specList.ts). */
  specList: string;
  /** Every failed attempt's error signature, and each signature's sample (errors/errorGroups.ts). */
  errors: string;
  /** The project's quarantines (quarantine/quarantineList.ts). */
  quarantines: string;
  /** The project's gate rules (gates/gateRules.ts). */
  gates: string;
  /** The organizations' members, from the identity topic (quarantine/members.ts). */
  members: string;
}

/** The read models' schemas: `<prefix>_<read model>`, the prefix being the single read model's schema. */
export function readModelSchemas(prefix: string = RUNS_READ_MODEL): TestResultsReadModels {
  return {
    runList: `${prefix}_run_list`,
    runResults: `${prefix}_results`,
    runArtifacts: `${prefix}_artifacts`,
    runCoverage: `${prefix}_coverage`,
    caseHistory: `${prefix}_test_cases`,
    specList: `${prefix}_spec_list`,
    errors: `${prefix}_errors`,
    quarantines: `${prefix}_quarantine`,
    gates: `${prefix}_gates`,
    members: `${prefix}_members`,
  };
}

/** The read models to query. */
export interface TestResultsReadStore {
  db: SqlExecutor;
  schemas: TestResultsReadModels;
}

export interface Page<T> {
  items: T[];
  total: number;
}

export type Timestamp = Date | string;

/** Platform of a result sent without `project`; stored as '' so it can take part in primary keys. */
export const NO_PLATFORM = '';

export const platformOrNull = (project: string): string | null => (project === NO_PLATFORM ? null : project);

const parsed = new WeakMap<StoredEvent, TestResultsEvent>();
const caseIds = new WeakMap<ResultItem, string>();
const signatures = new WeakMap<ResultItem, ErrorSignature | null>();

/**
 * The error signature of a failed attempt, computed once however many read models ask for it (each append
 * hands the same items to every one); null for an attempt without an error message.
 */
export function signatureOf(item: ResultItem): ErrorSignature | null {
  let signature = signatures.get(item);
  if (signature === undefined) {
    signature = item.error?.message
      ? errorSignature({
          message: item.error.message,
          stack: item.error.stack,
          location: item.error.location,
          testFile: item.file,
        })
      : null;
    signatures.set(item, signature);
  }
  return signature;
}

/**
 * A stored event as the test-results event it is, parsed once however many read models apply it (each
 * append hands the same stored events to every one). An event that is not a test-results event throws,
 * so the bus dead-letters it instead of a read model silently skipping it.
 */
export function testResultsEventOf(stored: StoredEvent): TestResultsEvent {
  let event = parsed.get(stored);
  if (event === undefined) {
    event = parseTestResultsEvent(stored);
    parsed.set(stored, event);
  }
  return event;
}

/** The result events of a batch with their project (from the envelope: results may precede run.created). */
export function resultsOf(events: readonly StoredEvent[]): RecordedResult[] {
  const results: RecordedResult[] = [];
  for (const stored of events) {
    const event = testResultsEventOf(stored);
    if (event.type !== 'test.result-recorded') continue;
    const { runId, item } = event.data;
    let testCaseId = caseIds.get(item);
    if (testCaseId === undefined) {
      testCaseId = testCaseIdOf(item);
      caseIds.set(item, testCaseId);
    }
    results.push({ projectId: eventProjectId(stored), runId, testCaseId, item });
  }
  return results;
}

/** A result of a batch with its test case id, computed once per read model (a SHA-256 of its key). */
export interface RecordedResult {
  projectId: string;
  runId: string;
  testCaseId: string;
  item: ResultItem;
}
