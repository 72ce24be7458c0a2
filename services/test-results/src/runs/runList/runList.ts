/**
 * The run list: each run with its stats and outcome, and each test's outcome per run and platform
 * (run_tests) that the stats count, fed by the run lifecycle and the results. Serves the runs list and
 * detail; the run's spec files and a test case's history read its run_tests.
 *
 * Invariants: every write is an upsert by natural key, and whatever is derived (a run_tests row, a run's
 * stats and outcome) is recomputed from what it derives from, so applying an event twice, results of a
 * run in many batches, or attempts out of order all end in the same tables. Results carry no project in
 * their data: it comes from the envelope, so they may be applied before run.created (another stream) and
 * still land in their project.
 */
import { keptInstant, type TestResultsEvent } from '@verdict/contracts';
import type { Projection, SqlExecutor, StoredEvent } from '@verdict/platform';
import { resultsOf, testResultsEventOf } from '../../readStore';
import { recordAttempts, RUN_OUTCOME } from './testOutcomes';

async function setup(tx: SqlExecutor, s: string): Promise<void> {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.runs (
    id text PRIMARY KEY, project_id text NOT NULL, counter integer NOT NULL, status text NOT NULL,
    reported_status text, outcome text, ci_run_id text, title text, branch text, environment text,
    commit jsonb, ci jsonb, framework jsonb, tags text[] NOT NULL, started_at timestamptz NOT NULL,
    finished_at timestamptz, duration_ms bigint,
    total integer NOT NULL DEFAULT 0, passed integer NOT NULL DEFAULT 0, failed integer NOT NULL DEFAULT 0,
    flaky integer NOT NULL DEFAULT 0, skipped integer NOT NULL DEFAULT 0,
    -- A sharded run's shards (run.created's total, run.shard-started and -finished); NULL without shards.
    shard_total integer, shards_started integer[], shards_finished integer[],
    -- The branch its failures are judged against (run.created's baseBranch); NULL: DEFAULT_BASE_BRANCH.
    base_branch text,
    -- The machine and the runner's settings of the start that created the run; NULL: not sent.
    host jsonb, settings jsonb)`);
  // The quality gate judged when the run finished (issue 32): run.finished's gate; NULL without rules.
  await tx.query(`ALTER TABLE ${s}.runs ADD COLUMN IF NOT EXISTS gate jsonb`);
  await tx.query(
    `CREATE INDEX IF NOT EXISTS runs_project_started ON ${s}.runs (project_id, started_at DESC, id DESC)`,
  );
  // A branch's runs, newest first: a verdict's base run and its window of base runs (verdicts/).
  await tx.query(
    `CREATE INDEX IF NOT EXISTS runs_project_branch ON ${s}.runs (project_id, branch, started_at DESC)`,
  );
  // What a test's attempts in a run add up to: any as expected, any not (skips aside), their count and
  // durations, and the error of the latest failed attempt (error_attempt -1 when none failed).
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.run_tests (
    run_id text NOT NULL, test_case_id text NOT NULL, project text NOT NULL, project_id text NOT NULL,
    file text NOT NULL, outcome text NOT NULL, as_expected boolean, unexpected boolean,
    attempts integer NOT NULL, duration_ms double precision NOT NULL, started_at timestamptz NOT NULL,
    error_attempt integer, error_message text, error_file text, error_line integer,
    error_signature text, error_signature_text text,
    PRIMARY KEY (run_id, test_case_id, project))`);
  await tx.query(
    `CREATE INDEX IF NOT EXISTS run_tests_history ON ${s}.run_tests (project_id, test_case_id, started_at DESC)`,
  );
  await tx.query(`CREATE INDEX IF NOT EXISTS run_tests_file ON ${s}.run_tests (project_id, file)`);
  // The attempts already added up into run_tests: one that comes again (past the checkpoints) adds nothing.
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.run_attempts (
    run_id text NOT NULL, test_case_id text NOT NULL, project text NOT NULL, attempt integer NOT NULL,
    PRIMARY KEY (run_id, test_case_id, project, attempt))`);
}

type Lifecycle = Extract<
  TestResultsEvent,
  { type: 'run.created' | 'run.finished' | 'run.shard-started' | 'run.shard-finished' }
>;

const jsonOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : JSON.stringify(value);

/** Adds a shard to a run's list of started or finished shards, once, keeping the list sorted. */
const addShard = (column: 'shards_started' | 'shards_finished') =>
  `${column} = ARRAY(SELECT DISTINCT s FROM unnest(coalesce(${column}, '{}'::int[]) || $2::int) AS s ORDER BY s)`;

async function runCreated(
  tx: SqlExecutor,
  s: string,
  { data: d }: Extract<Lifecycle, { type: 'run.created' }>,
) {
  await tx.query(
    `INSERT INTO ${s}.runs (id, project_id, counter, status, ci_run_id, title, branch, environment,
       commit, ci, framework, tags, started_at, shard_total, base_branch, host, settings)
     VALUES ($1, $2, $3, 'running', $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11::text[], $12, $13,
       $14, $15::jsonb, $16::jsonb)
     ON CONFLICT (id) DO NOTHING`,
    [
      d.runId,
      d.projectId,
      d.counter,
      d.ciRunId,
      d.title,
      d.branch,
      d.environment,
      jsonOrNull(d.commit),
      jsonOrNull(d.ci),
      jsonOrNull(d.framework),
      d.tags,
      keptInstant(d.startedAt),
      d.shardTotal,
      d.baseBranch ?? null,
      jsonOrNull(d.host),
      jsonOrNull(d.settings),
    ],
  );
}

async function applyLifecycle(tx: SqlExecutor, s: string, event: Lifecycle): Promise<void> {
  switch (event.type) {
    case 'run.created':
      return runCreated(tx, s, event);
    case 'run.finished':
      await tx.query(
        `UPDATE ${s}.runs SET status = 'finished', finished_at = $2, reported_status = $3,
           duration_ms = GREATEST(0, (EXTRACT(EPOCH FROM ($2::timestamptz - started_at)) * 1000)::bigint),
           gate = $4::jsonb
         WHERE id = $1`,
        [
          event.data.runId,
          keptInstant(event.data.finishedAt),
          event.data.status,
          event.data.gate ? JSON.stringify(event.data.gate) : null,
        ],
      );
      return;
    case 'run.shard-started':
    case 'run.shard-finished': {
      const { runId, shard } = event.data;
      const column = event.type === 'run.shard-started' ? 'shards_started' : 'shards_finished';
      await tx.query(
        `UPDATE ${s}.runs SET shard_total = greatest(coalesce(shard_total, 0), $3), ${addShard(column)}
         WHERE id = $1`,
        [runId, shard.current, shard.total],
      );
    }
  }
}

/**
 * Locks the rows of the runs a batch touches, in id order so two batches never wait on each other: a
 * concurrent batch of the same run commits first, and every statement after this one sees its rows.
 */
async function lockRuns(tx: SqlExecutor, s: string, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.query(`SELECT id FROM ${s}.runs WHERE id = ANY($1::text[]) ORDER BY id FOR UPDATE`, [
    [...runIds].sort(),
  ]);
}

/**
 * Recounts the stats of runs that started or finished in the batch from their run_tests rows, and judges
 * finished runs. Once per run start and finish, whatever order or repetition the events came in; results
 * in between move the stats by deltas.
 */
async function recomputeRunStats(tx: SqlExecutor, s: string, runIds: readonly string[]): Promise<void> {
  if (runIds.length === 0) return;
  await tx.query(
    `UPDATE ${s}.runs AS run SET
       total = s.total, passed = s.passed, failed = s.failed, flaky = s.flaky, skipped = s.skipped,
       outcome = ${RUN_OUTCOME('s.failed')}
     FROM (
       -- Counted per run through the primary key: as a join, the planner took each run for a large share of
       -- the table and scanned all of run_tests (1.2 s at 1.3 million rows, in every batch that started or
       -- finished a run).
       SELECT ids.id, c.*
       FROM unnest($1::text[]) AS ids(id)
       CROSS JOIN LATERAL (
         SELECT count(t.outcome)::int AS total,
           count(*) FILTER (WHERE t.outcome = 'passed')::int AS passed,
           count(*) FILTER (WHERE t.outcome = 'failed')::int AS failed,
           count(*) FILTER (WHERE t.outcome = 'flaky')::int AS flaky,
           count(*) FILTER (WHERE t.outcome = 'skipped')::int AS skipped
         FROM ${s}.run_tests t WHERE t.run_id = ids.id
       ) c
     ) AS s
     WHERE run.id = s.id`,
    [runIds],
  );
}

const LIFECYCLE = ['run.created', 'run.finished', 'run.shard-started', 'run.shard-finished'] as const;

const isLifecycle = (event: TestResultsEvent): event is Lifecycle =>
  (LIFECYCLE as readonly string[]).includes(event.type);

function lifecycleOf(events: readonly StoredEvent[]): Lifecycle[] {
  return events.map(testResultsEventOf).filter(isLifecycle);
}

/** @example createProjector({ db, projections: [runListProjection('test_results_read_run_list'), …], … }); */
export function runListProjection(name: string): Projection {
  return {
    name,
    // 2: run_tests keeps the error signature of the test's latest failed attempt.
    // 3: runs keep their base branch, and a branch's runs are indexed (verdicts/).
    // 4: runs keep the host and the runner's settings their start sent.
    version: 4,
    canHandle: [...LIFECYCLE, 'test.result-recorded'],
    setup,
    async apply(tx, events, s) {
      const lifecycle = lifecycleOf(events);
      const results = resultsOf(events);
      // Runs that start or finish in the batch are recounted whole; results move the others by deltas.
      const recounted = lifecycle
        .filter((event) => event.type === 'run.created' || event.type === 'run.finished')
        .map((event) => event.data.runId);
      await lockRuns(tx, s, [...new Set([...recounted, ...results.map((result) => result.runId)])]);
      for (const event of lifecycle) await applyLifecycle(tx, s, event);
      await recordAttempts(tx, s, results);
      await recomputeRunStats(tx, s, [...new Set(recounted)]);
    },
  };
}
