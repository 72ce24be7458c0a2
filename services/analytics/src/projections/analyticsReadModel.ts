/**
 * The analytics read model, fed only by the test-results events: one projection, one schema, made of
 * slices that each own their tables and their step of a batch: the executions (`executions.ts`, the base
 * rows every other slice is counted from), their days and weeks (`caseDays.ts`), new failures
 * (`newFailures.ts`), commit conflicts (`commitConflicts.ts`) and usage per hour (`usageHours.ts`).
 * The derived slices read the executions inside the batch's transaction, so they are versioned and rebuilt
 * together with them: one rebuilt alone would read executions already at the head of the stream.
 *
 * Invariants: base rows are upserts by natural key, an attempt counted once per execution. Derived counts
 * move by the difference between an execution's row before and after the batch (so an event applied twice
 * moves nothing); an execution that moved (run.created after its results, an earlier attempt arriving late)
 * has its derived rows recounted from the base rows instead. New failures and commit conflicts are
 * re-decided only where a failure is involved. So an event applied twice, results before their run.created,
 * or attempts out of order all end in the same tables.
 */
import { parseTestResultsEvent } from '@verdict/contracts';
import { eventProjectId, type Projection, type SqlExecutor } from '@verdict/platform';
import { attemptErrorTables, recordErrors } from './attemptErrors';
import { applyDeltas, caseDayTables, recomputeCaseDays } from './caseDays';
import { commitConflictTables, recomputeCommitConflicts } from './commitConflicts';
import {
  applyResults,
  applyRunCreated,
  applyRunFinished,
  executionTables,
  moveRunCounts,
  recomputeRunStats,
  resultRow,
  type Change,
  type ExecutionKey,
  type ResultRow,
} from './executions';
import { newFailureTables, recomputeNewFailures } from './newFailures';
import { testCaseTables, upsertTestCases } from './testCases';
import { countUsage, usageHourTables } from './usageHours';

/** Each slice's tables: the executions first, as every other slice is counted from them. */
const READ_MODEL_TABLES = [
  executionTables,
  testCaseTables,
  attemptErrorTables,
  caseDayTables,
  newFailureTables,
  commitConflictTables,
  usageHourTables,
];

/** The default name of the projection, hence of the schema that holds its tables. */
export const ANALYTICS_READ_MODEL = 'analytics';

/**
 * The version of the read model's tables: raising it rebuilds them from position 0 at start, rather than
 * altering them in place. 2: the weekly totals, and both sides of a commit conflict (its `failed` column).
 */
export const ANALYTICS_READ_MODEL_VERSION = 2;

/**
 * What a batch leaves to recount from the base rows at its end: executions whose day rows are recounted
 * (moved to another day or group), whose group's new failures and whose commit's conflicts are re-decided,
 * and runs whose stats are recounted.
 */
interface Recounts {
  days: ExecutionKey[];
  newFailures: ExecutionKey[];
  conflicts: ExecutionKey[];
  runIds: Set<string>;
}

const newRecounts = (): Recounts => ({ days: [], newFailures: [], conflicts: [], runIds: new Set() });

/** An execution as it was before the batch: its start and day, for the rows it left. */
const before = (c: Change) => ({
  ...c,
  started_at: c.old_started_at ?? c.started_at,
  day: c.old_day ?? c.day,
});

/**
 * Files results into the executions and every slice that moves by their difference; leaves in `recounts`
 * what must be recounted from the base rows instead.
 */
async function fileResults(
  tx: SqlExecutor,
  schema: string,
  results: ResultRow[],
  recounts: Recounts,
): Promise<void> {
  if (results.length === 0) return;
  await upsertTestCases(tx, schema, results);
  await recordErrors(tx, schema, results);
  const changes = await applyResults(tx, schema, results);
  const fast: Change[] = [];
  for (const change of changes) {
    // Kept its start (hence its day), or is new: its derived rows move by the difference. Written by
    // another transaction meanwhile (not inserted here, yet not seen before): recounted.
    const kept = change.existed ? change.old_started_at === change.started_at : change.inserted;
    const failing = change.outcome === 'failed' || change.old_outcome === 'failed';
    if (kept) fast.push(change);
    else {
      recounts.days.push(change, before(change));
      recounts.runIds.add(change.run_id);
    }
    // Only failures are new failures, and only a failure's neighbours decide it.
    if (!kept || failing || change.later_failed) recounts.newFailures.push(change, before(change));
    if (!kept || failing || change.failed_on_commit) recounts.conflicts.push(change);
  }
  await applyDeltas(tx, schema, fast);
  const counted = changes.filter((c) => c.existed || c.inserted);
  await countUsage(tx, schema, counted);
  await moveRunCounts(tx, schema, counted);
}

/**
 * The projection, for createProjector. An event that is not a test-results event fails the batch, so the
 * bus dead-letters it instead of the model silently skipping it.
 *
 * @example const projector = createProjector({ db, projection: analyticsProjection(), logger });
 */
export function analyticsProjection(name: string = ANALYTICS_READ_MODEL): Projection {
  return {
    name,
    version: ANALYTICS_READ_MODEL_VERSION,
    async setup(tx, schema) {
      for (const statement of READ_MODEL_TABLES.flatMap((tables) => tables(schema))) {
        await tx.query(statement);
      }
    },
    async apply(tx, events, schema) {
      const recounts = newRecounts();
      let results: ResultRow[] = [];
      // Lifecycle events apply in order, after the results before them, so a run.created later in the
      // batch finds those results' executions.
      const flush = async () => {
        await fileResults(tx, schema, results, recounts);
        results = [];
      };
      for (const stored of events) {
        const event = parseTestResultsEvent(stored);
        switch (event.type) {
          case 'test.result-recorded':
            results.push(resultRow(eventProjectId(stored), event.data));
            break;
          case 'run.created': {
            await flush();
            const keys = await applyRunCreated(tx, schema, event.data);
            recounts.days.push(...keys);
            recounts.newFailures.push(...keys);
            recounts.conflicts.push(...keys);
            recounts.runIds.add(event.data.runId);
            break;
          }
          case 'run.finished':
            await flush();
            await applyRunFinished(tx, schema, eventProjectId(stored), event.data);
            break;
          default:
            break;
        }
      }
      await flush();
      await recomputeCaseDays(tx, schema, recounts.days);
      await recomputeNewFailures(tx, schema, recounts.newFailures);
      await recomputeCommitConflicts(tx, schema, recounts.conflicts);
      await recomputeRunStats(tx, schema, [...recounts.runIds].sort());
    },
  };
}
