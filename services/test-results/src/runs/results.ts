/**
 * A batch of results as ingest receives it: validated whole (one bad item refuses the batch, and the
 * refusal names every problem by index), reduced to distinct results, and turned into one event per result
 * whose id is derived from the result's identity in its run, so that a result sent again is recognised by
 * its event id alone. Pure.
 */
import { MAX_RESULTS_PER_BATCH, ResultItem, TestResultRecorded, resultKey } from '@verdict/contracts';
import { ValidationError, derivedId, describeIssues, safeParseNested } from '@verdict/platform';
import type { RunEvent } from './run';

/** A refusal lists this many problems and counts the rest, so a batch of garbage gets a readable answer. */
export const MAX_LISTED_PROBLEMS = 100;

type Issue = Parameters<typeof describeIssues>[0][number];

function problemsOf(items: readonly unknown[]): Issue[] {
  const problems: Issue[] = [];
  items.forEach((item, index) => {
    const parsed = safeParseNested(ResultItem, item);
    if (parsed.success) return;
    for (const issue of parsed.error.issues)
      problems.push({ ...issue, path: ['results', index, ...issue.path] });
  });
  return problems;
}

function refusal(problems: Issue[]): ValidationError {
  const listed = describeIssues(problems.slice(0, MAX_LISTED_PROBLEMS));
  const more = problems.length - MAX_LISTED_PROBLEMS;
  const message = more > 0 ? `${listed}; and ${more} more problem(s)` : listed;
  return new ValidationError(message, { problems: problems.length });
}

/**
 * Parses a batch: at most 1,000 items, each a ResultItem. Throws a ValidationError whose message lists
 * each problem as `results[<index>].<field path>: <reason>`; nothing of a refused batch is recorded.
 *
 * @example const items = parseResults(body.results);
 */
export function parseResults(input: unknown): ResultItem[] {
  if (!Array.isArray(input)) throw new ValidationError('results: must be an array of results');
  if (input.length > MAX_RESULTS_PER_BATCH) {
    throw new ValidationError(
      `results: must hold at most ${MAX_RESULTS_PER_BATCH} items, got ${input.length}: send them in batches`,
    );
  }
  const parsed: ResultItem[] = [];
  for (const item of input) {
    const result = safeParseNested(ResultItem, item);
    // The first failure stops the fast path; the slow one then collects every problem of the batch.
    if (!result.success) throw refusal(problemsOf(input));
    parsed.push(result.data);
  }
  return parsed;
}

/**
 * The batch without results it repeats: the first of each (file, titlePath, project, attempt) is kept.
 *
 * @example const { distinct, repeated } = distinctResults(items);
 */
export function distinctResults(items: readonly ResultItem[]): { distinct: ResultItem[]; repeated: number } {
  const byKey = new Map<string, ResultItem>();
  for (const item of items) {
    const key = resultKey(item);
    if (!byKey.has(key)) byKey.set(key, item);
  }
  return { distinct: [...byKey.values()], repeated: items.length - byKey.size };
}

/**
 * The event id of a result in its run: the same result sent again gets the same id.
 *
 * @example const eventId = resultEventId(runId, item);
 */
export function resultEventId(runId: string, item: ResultItem): string {
  return derivedId(runId, resultKey(item));
}

/**
 * One test.result-recorded per item, each with its derived id. Items are already parsed, so the event is
 * built as is rather than parsed a second time.
 *
 * @example const events = resultEvents(runId, distinct);
 */
export function resultEvents(runId: string, items: readonly ResultItem[]): RunEvent[] {
  return items.map((item) => ({
    type: TestResultRecorded.type,
    version: TestResultRecorded.version,
    data: { runId, item },
    eventId: resultEventId(runId, item),
  }));
}
