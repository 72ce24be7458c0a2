import { z } from 'zod';
import { STORED_INTEGER_MAX } from './http';
import { InstantInput } from './instant';

/**
 * The automated-results vocabulary of API.md ("Ingest — automated runs"): what test runners send, and
 * what imports of Playwright JSON and JUnit XML turn their reports into.
 */
export const ResultStatus = z.enum(['passed', 'failed', 'timedOut', 'skipped', 'interrupted']);
export type ResultStatus = z.infer<typeof ResultStatus>;

/** A test's outcome in one run, over all its attempts (API.md). */
export const Outcome = z.enum(['passed', 'failed', 'flaky', 'skipped']);
export type Outcome = z.infer<typeof Outcome>;

/**
 * Milliseconds, at most 30 days: a longer attempt is a unit mistake (seconds sent as microseconds), and a
 * value near the largest double would overflow every sum and mean built on it.
 */
export const MAX_DURATION_MS = 30 * 86_400_000;
const Duration = z.number().min(0).max(MAX_DURATION_MS);

export interface SourceLocation {
  file: string;
  line: number;
  column?: number;
}
export interface TestError {
  message: string;
  stack?: string;
  snippet?: string;
  location?: SourceLocation;
}
export interface TestStep {
  title: string;
  category?: string;
  durationMs: number;
  error?: TestError;
  location?: SourceLocation;
  steps?: TestStep[];
}

/**
 * Where a result points in its source, its error and its steps, built for one kind of line number: what a
 * request may send (at most what an integer column holds, since the error's line is kept in one) or what
 * events recorded before that bound (any integer: an event is read as it was written, and the schema
 * registry refuses a narrower contract for it).
 */
function sourceSchemas(position: z.ZodNumber) {
  const SourceLocation = z.object({
    file: z.string().min(1).max(1024),
    line: position,
    column: position.optional(),
  });
  const TestError = z.object({
    message: z.string().max(100_000),
    stack: z.string().max(200_000).optional(),
    snippet: z.string().max(50_000).optional(),
    location: SourceLocation.optional(),
  });
  const TestStep: z.ZodType<TestStep> = z.lazy(() =>
    z.object({
      title: z.string().max(2_000),
      category: z.string().max(100).optional(),
      durationMs: Duration,
      error: TestError.optional(),
      location: SourceLocation.optional(),
      steps: z.array(TestStep).max(1_000).optional(),
    }),
  );
  return { SourceLocation, TestError, TestStep };
}

const accepted = sourceSchemas(z.number().int().min(0).max(STORED_INTEGER_MAX));
const recorded = sourceSchemas(z.number().int().min(0));
export const SourceLocation = accepted.SourceLocation;
export const TestError = accepted.TestError;
export const TestStep = accepted.TestStep;
/** As events recorded them (and reads show them): line numbers of any size. */
export const RecordedSourceLocation = recorded.SourceLocation;
export const RecordedTestStep = recorded.TestStep;

export const ResultAttachment = z.object({
  name: z.string().min(1).max(500),
  contentType: z.string().min(1).max(200),
  artifactId: z.string().min(1).max(100),
});

export const Annotation = z.object({
  type: z.string().min(1).max(200),
  description: z.string().max(10_000).optional(),
});

/**
 * Where an attempt ran among its runner's workers, for order-dependent failures: the worker's `index`
 * (Playwright's workerIndex, new for each worker process), its `parallelIndex` (the slot it runs in,
 * 0 to workers - 1) and `ordinal`, the attempt's 0-based place among the tests that worker ran.
 */
export const ResultWorker = z.object({
  index: z.number().int().min(0).max(1_000_000).optional(),
  parallelIndex: z.number().int().min(0).max(100_000).optional(),
  ordinal: z.number().int().min(0).max(10_000_000).optional(),
});
export type ResultWorker = z.infer<typeof ResultWorker>;

function resultItemOf({ SourceLocation, TestError, TestStep }: ReturnType<typeof sourceSchemas>) {
  return z.object({
    file: z.string().min(1).max(1024),
    titlePath: z.array(z.string().max(2_000)).min(1).max(50),
    project: z.string().max(200).optional(),
    attempt: z.number().int().min(0).max(100),
    status: ResultStatus,
    expectedStatus: ResultStatus.optional(),
    durationMs: Duration,
    startedAt: InstantInput,
    error: TestError.optional(),
    steps: z.array(TestStep).max(1_000).optional(),
    stdout: z.array(z.string().max(100_000)).max(10_000).optional(),
    stderr: z.array(z.string().max(100_000)).max(10_000).optional(),
    attachments: z.array(ResultAttachment).max(100).optional(),
    annotations: z.array(Annotation).max(100).optional(),
    tags: z.array(z.string().min(1).max(200)).max(100).optional(),
    location: SourceLocation.optional(),
    worker: ResultWorker.optional(),
  });
}
/**
 * One attempt of one test in a run. A result is identified in its run by (file, titlePath, project,
 * attempt): sending it again is a duplicate, not a second result.
 */
export const ResultItem = resultItemOf(accepted);
export type ResultItem = z.infer<typeof ResultItem>;

/**
 * A result as its event recorded it: the same shape, with any instant its sender gave at the time and any
 * line number, since events recorded before the range of InstantInput and of line numbers was enforced
 * still have to read (keptInstant shows them).
 */
export const RecordedResultItem = resultItemOf(recorded).extend({
  startedAt: z.iso.datetime({ offset: true }),
});

/** The identity of a result in its run. */
export function resultKey(item: Pick<ResultItem, 'file' | 'titlePath' | 'project' | 'attempt'>): string {
  return JSON.stringify([item.file, item.titlePath, item.project ?? '', item.attempt]);
}

export { testCaseIdOf, testCaseKey } from './testCaseId';
