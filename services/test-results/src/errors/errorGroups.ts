/**
 * The error groups: every failed attempt (an attempt with an error message) with its error signature, and
 * each signature of a project with its normalised message, frame and latest raw message. Serves the errors
 * explorer (errors/queries.ts). One row per attempt, keyed as the attempt is, so applying it again adds
 * nothing; the runs' branch and environment are copied onto their attempts whichever comes first (results
 * can be applied before their run.created, from another stream).
 *
 * A daily rollup per (signature, UTC day, branch, environment) keeps the occurrences and first and last
 * seen, so the explorer sorts and pages a range's groups without reading every attempt in it.
 */
import { ERROR_SIGNATURE_VERSION, keptInstant, type ErrorSignature } from '@verdict/contracts';
import { byCodePoint, type Projection, type SqlExecutor } from '@verdict/platform';
import { NO_PLATFORM, resultsOf, signatureOf, testResultsEventOf, type RecordedResult } from '../readStore';

/** The first characters of the latest raw message a group keeps as its sample. */
export const SAMPLE_CHARS = 2_000;

async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.error_runs (
    run_id text PRIMARY KEY, project_id text NOT NULL, branch text, environment text)`);
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.error_hits (
    run_id text NOT NULL, test_case_id text NOT NULL, project text NOT NULL, attempt integer NOT NULL,
    project_id text NOT NULL, signature_id text NOT NULL, occurred_at timestamptz NOT NULL,
    branch text, environment text,
    PRIMARY KEY (run_id, test_case_id, project, attempt))`);
  // The explorer aggregates a project's range; a group's detail reads one signature's range.
  await tx.query(
    `CREATE INDEX IF NOT EXISTS error_hits_range ON ${s}.error_hits (project_id, occurred_at)
     INCLUDE (signature_id, run_id, test_case_id, branch, environment)`,
  );
  await tx.query(
    `CREATE INDEX IF NOT EXISTS error_hits_signature ON ${s}.error_hits (project_id, signature_id, occurred_at)
     INCLUDE (test_case_id, run_id, branch, environment)`,
  );
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.error_days (
    project_id text NOT NULL, signature_id text NOT NULL, day date NOT NULL, branch text, environment text,
    occurrences integer NOT NULL, first_seen timestamptz NOT NULL, last_seen timestamptz NOT NULL)`);
  // A run without a branch or environment is a group of its own, as NULL is in a GROUP BY.
  await tx.query(
    `CREATE UNIQUE INDEX IF NOT EXISTS error_days_key ON ${s}.error_days
     (project_id, day, signature_id, branch, environment) NULLS NOT DISTINCT`,
  );
  // The days on which each signature hit each test, and each run: a range's distinct tests and runs are
  // counted from these (a row per test or run, not per attempt).
  for (const [table, key] of SPANS) {
    await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.${table} (
      project_id text NOT NULL, signature_id text NOT NULL, ${key} text NOT NULL, branch text, environment text,
      days datemultirange NOT NULL)`);
    await tx.query(
      `CREATE UNIQUE INDEX IF NOT EXISTS ${table}_key ON ${s}.${table}
       (project_id, signature_id, ${key}, branch, environment) NULLS NOT DISTINCT`,
    );
  }
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.error_signatures (
    project_id text NOT NULL, signature_id text NOT NULL, message text NOT NULL, frame_file text,
    frame_function text, text text NOT NULL, sample_message text NOT NULL, sample_at timestamptz NOT NULL,
    PRIMARY KEY (project_id, signature_id))`);
}

/** The rollups of the days a signature hit a test (`error_test_days`) and a run (`error_run_days`). */
const SPANS = [
  ['error_test_days', 'test_case_id'],
  ['error_run_days', 'run_id'],
] as const;

/** The statement adding a set of attempts (as ADD_TO_DAYS) to one of the SPANS, in key order. */
const ADD_TO_SPANS = (s: string, from: string, [table, key]: (typeof SPANS)[number]) =>
  `INSERT INTO ${s}.${table} AS t (project_id, signature_id, ${key}, branch, environment, days)
   SELECT project_id, signature_id, ${key}, branch, environment,
     range_agg(daterange((occurred_at AT TIME ZONE 'UTC')::date, (occurred_at AT TIME ZONE 'UTC')::date + 1))
   FROM ${from} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
   ON CONFLICT (project_id, signature_id, ${key}, branch, environment) DO UPDATE SET days = t.days + EXCLUDED.days`;

/**
 * The statement adding a set of attempts (`project_id, signature_id, occurred_at, branch, environment`) to
 * the days; in key order, so concurrent batches lock the days' rows in one order.
 */
const ADD_TO_DAYS = (
  s: string,
  from: string,
) => `INSERT INTO ${s}.error_days AS d (project_id, day, signature_id,
         branch, environment, occurrences, first_seen, last_seen)
       SELECT project_id, (occurred_at AT TIME ZONE 'UTC')::date, signature_id, branch, environment,
         count(*), min(occurred_at), max(occurred_at)
       FROM ${from} GROUP BY 1, 2, 3, 4, 5 ORDER BY 1, 2, 3, 4, 5
       ON CONFLICT (project_id, day, signature_id, branch, environment) DO UPDATE SET
         occurrences = d.occurrences + EXCLUDED.occurrences,
         first_seen = least(d.first_seen, EXCLUDED.first_seen),
         last_seen = greatest(d.last_seen, EXCLUDED.last_seen)`;

interface Hit {
  result: RecordedResult;
  signature: ErrorSignature;
  occurredAt: string;
}

async function addHits(tx: SqlExecutor, s: string, results: readonly RecordedResult[]): Promise<void> {
  const hits: Hit[] = [];
  for (const result of results) {
    const signature = signatureOf(result.item);
    if (signature) hits.push({ result, signature, occurredAt: keptInstant(result.item.startedAt) });
  }
  if (hits.length === 0) return;
  // One statement (one round trip) for every table: a data-modifying WITH runs whether or not it is
  // read. Only the attempts new to the table (RETURNING) are added to the rollups, so a redelivery adds nothing.
  await tx.query(
    `WITH hits AS (
       INSERT INTO ${s}.error_hits (run_id, test_case_id, project, attempt, project_id, signature_id,
         occurred_at, branch, environment)
       SELECT h.run_id, h.test_case_id, h.project, h.attempt, h.project_id, h.signature_id, h.occurred_at,
         r.branch, r.environment
       FROM json_to_recordset($1::json) AS h(run_id text, test_case_id text, project text, attempt integer,
         project_id text, signature_id text, occurred_at timestamptz)
       LEFT JOIN ${s}.error_runs r ON r.run_id = h.run_id
       ON CONFLICT DO NOTHING
       RETURNING project_id, signature_id, test_case_id, run_id, occurred_at, branch, environment
     ), days AS (
       ${ADD_TO_DAYS(s, 'hits')}
     ), tests AS (
       ${ADD_TO_SPANS(s, 'hits', SPANS[0])}
     ), runs AS (
       ${ADD_TO_SPANS(s, 'hits', SPANS[1])}
     )
     INSERT INTO ${s}.error_signatures AS sig (project_id, signature_id, message, frame_file, frame_function,
       text, sample_message, sample_at)
     SELECT * FROM json_to_recordset($2::json) AS r(project_id text, signature_id text, message text,
       frame_file text, frame_function text, text text, sample_message text, sample_at timestamptz)
     ON CONFLICT (project_id, signature_id) DO UPDATE SET
       sample_message = EXCLUDED.sample_message, sample_at = EXCLUDED.sample_at
     WHERE (EXCLUDED.sample_at, EXCLUDED.sample_message) > (sig.sample_at, sig.sample_message)`,
    [
      JSON.stringify(
        hits.map(({ result, signature, occurredAt }) => ({
          run_id: result.runId,
          test_case_id: result.testCaseId,
          project: result.item.project ?? NO_PLATFORM,
          attempt: result.item.attempt,
          project_id: result.projectId,
          signature_id: signature.id,
          occurred_at: occurredAt,
        })),
      ),
      JSON.stringify(signatureRows(hits)),
    ],
  );
}

/**
 * The batch's signatures, each with its latest sample (the latest attempt, the greater message on a tie, so
 * any order of the same attempts keeps the same sample); in key order, so concurrent batches lock in one order.
 */
function signatureRows(hits: readonly Hit[]) {
  const latest = new Map<string, Hit & { sample: string }>();
  for (const hit of hits) {
    const key = `${hit.result.projectId}\u0000${hit.signature.id}`;
    const sample = (hit.result.item.error?.message ?? '').slice(0, SAMPLE_CHARS);
    const kept = latest.get(key);
    if (
      !kept ||
      byCodePoint(`${hit.occurredAt}\u0000${sample}`, `${kept.occurredAt}\u0000${kept.sample}`) > 0
    ) {
      latest.set(key, { ...hit, sample });
    }
  }
  return [...latest.entries()]
    .sort(([a], [b]) => byCodePoint(a, b))
    .map(([, { result, signature, occurredAt, sample }]) => ({
      project_id: result.projectId,
      signature_id: signature.id,
      message: signature.message,
      frame_file: signature.frame?.file ?? null,
      frame_function: signature.frame?.function ?? null,
      text: signature.text,
      sample_message: sample,
      sample_at: occurredAt,
    }));
}

/** A run's branch and environment, kept for its attempts to come and copied onto those already here. */
async function addRun(
  tx: SqlExecutor,
  s: string,
  run: { runId: string; projectId: string; branch: string | null; environment: string | null },
): Promise<void> {
  // The hits keep what the run says; a shard's second run.created (if any) says the same.
  const { rows: moved } = await tx.query<{
    project_id: string;
    signature_id: string;
    test_case_id: string;
    day: string;
  }>(
    `WITH run AS (
       INSERT INTO ${s}.error_runs (run_id, project_id, branch, environment) VALUES ($1, $2, $3, $4)
       ON CONFLICT (run_id) DO NOTHING
     ), moved AS (
       UPDATE ${s}.error_hits SET branch = $3, environment = $4
       WHERE run_id = $1 AND (branch IS DISTINCT FROM $3 OR environment IS DISTINCT FROM $4)
       RETURNING project_id, signature_id, test_case_id, (occurred_at AT TIME ZONE 'UTC')::date AS day
     )
     SELECT DISTINCT project_id, signature_id, test_case_id, to_char(day, 'YYYY-MM-DD') AS day FROM moved
     ORDER BY 1, 2, 3, 4`,
    [run.runId, run.projectId, run.branch, run.environment],
  );
  if (moved.length === 0) return;
  // The attempts moved to another branch or environment: their rollup rows are counted again from the
  // attempts (rare: only results that came before their run.created move).
  const keys = JSON.stringify(moved.map((row) => ({ ...row, run_id: run.runId })));
  const recount = async (table: string, match: string, from: string, add: (from: string) => string) => {
    const key = `json_to_recordset($1::json) AS k(project_id text, signature_id text, test_case_id text,
      run_id text, day date)`;
    await tx.query(
      `DELETE FROM ${s}.${table} d USING ${key}
       WHERE d.project_id = k.project_id AND d.signature_id = k.signature_id AND ${match}`,
      [keys],
    );
    await tx.query(
      `WITH recounted AS (
         SELECT DISTINCT h.run_id, h.test_case_id, h.project, h.attempt, h.project_id, h.signature_id,
           h.occurred_at, h.branch, h.environment
         FROM ${key} JOIN ${s}.error_hits h ON h.project_id = k.project_id AND h.signature_id = k.signature_id
           AND ${from}
       )
       ${add('recounted')}`,
      [keys],
    );
  };
  await recount(
    'error_days',
    'd.day = k.day',
    `h.occurred_at >= k.day::timestamp AT TIME ZONE 'UTC'
     AND h.occurred_at < (k.day + 1)::timestamp AT TIME ZONE 'UTC'`,
    (from) => ADD_TO_DAYS(s, from),
  );
  await recount(
    'error_test_days',
    'd.test_case_id = k.test_case_id',
    'h.test_case_id = k.test_case_id',
    (from) => ADD_TO_SPANS(s, from, SPANS[0]),
  );
  await recount('error_run_days', 'd.run_id = k.run_id', 'h.run_id = k.run_id', (from) =>
    ADD_TO_SPANS(s, from, SPANS[1]),
  );
}

/** @example createProjector({ db, projections: [errorGroupsProjection('test_results_read_errors'), …], … }); */
export function errorGroupsProjection(name: string): Projection {
  return {
    name,
    // A new normalisation (ERROR_SIGNATURE_VERSION) rebuilds the groups as a change of these tables does.
    version: ERROR_SIGNATURE_VERSION * 100 + 3,
    canHandle: ['run.created', 'test.result-recorded'],
    setup,
    async apply(tx, events, s) {
      for (const stored of events) {
        const event = testResultsEventOf(stored);
        if (event.type === 'run.created') await addRun(tx, s, event.data);
      }
      await addHits(tx, s, resultsOf(events));
    },
  };
}
