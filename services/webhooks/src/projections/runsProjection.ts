/**
 * What the dispatcher knows of runs, from the test-results topic: each run's lifecycle and each test's
 * outcome so far (enough for `data.run.stats` and `outcome`), and, on `run.created` (spec's run.started)
 * and `run.finished`, one queued delivery per matching subscription. The queue insert shares the
 * projector's transaction and checkpoint, and is keyed by (subscription, source event), so an event seen
 * twice (a Kafka redelivery, the embedded relay republishing after a restart) queues nothing twice.
 */
import { createHash } from 'node:crypto';
import {
  parseTestResultsEvent,
  type ResultItem,
  type WebhookEventName,
  type WebhookRun,
  keptInstant,
  keptInstantOrNull,
} from '@verdict/contracts';
import type { Clock, Projection, SqlExecutor, StoredEvent } from '@verdict/platform';
import type { Claimed, Reservation } from '../delivery/dispatcher';

export const WEBHOOK_RUNS_PROJECTION = 'webhooks_runs';

export interface RunsProjectionOptions {
  name?: string;
  /** The schema of the subscriptions and the delivery queue. */
  queueSchema: string;
  clock: Clock;
  /** VERDICT_PUBLIC_URL: the base of `data.run.url`. */
  publicUrl: string;
  /** Hands deliveries to this replica's dispatcher as they are queued (see DeliveryHandoff). */
  handoff?: DeliveryHandoff;
}

/**
 * Deliveries queued already leased to this replica's dispatcher, so the first attempt needs no claim: the
 * projection reserves free request slots for the events it applies, queues up to that many deliveries
 * under the reservation's lease, and leaves them with it; whoever applied the events sends them once the
 * transaction committed (or frees the slots when it did not). A replica that dies in between loses
 * nothing: the lease runs out and any replica claims them.
 */
export interface DeliveryHandoff {
  /** A reservation kept under these event ids, or null when the dispatcher has no free slot. */
  reserve(eventIds: string[]): (Reservation & { claimed: Claimed[] }) | null;
}

/** A test within a run: (file, titlePath, platform), as the test-results read model counts them. */
function testKeyOf(item: ResultItem): string {
  return createHash('sha256')
    .update(JSON.stringify([item.file, item.titlePath, item.project ?? '']))
    .digest('hex')
    .slice(0, 32);
}

/** The link of a run in the Verdict UI (the same form as the debug bundle's `links.uiUrl`). */
export function runUrl(publicUrl: string, projectId: string, runId: string): string {
  return `${publicUrl.replace(/\/+$/, '')}/projects/${encodeURIComponent(projectId)}/runs/${encodeURIComponent(runId)}`;
}

interface RunRow {
  id: string;
  project_id: string;
  counter: number;
  branch: string | null;
  environment: string | null;
  commit: WebhookRun['commit'];
  started_at: Date;
  finished_at: Date | null;
  reported_status: string | null;
  status: string;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

async function setup(tx: SqlExecutor, schema: string): Promise<void> {
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.runs (
       id text PRIMARY KEY,
       project_id text NOT NULL,
       counter integer NOT NULL,
       branch text,
       environment text,
       commit jsonb,
       started_at timestamptz NOT NULL,
       finished_at timestamptz,
       reported_status text,
       status text NOT NULL
     )`,
  );
  // One row per test: whether an attempt went as expected, and whether one did not. OR-ing keeps it
  // exact whatever order or repetition the attempts arrive in.
  await tx.query(
    `CREATE TABLE IF NOT EXISTS ${schema}.run_tests (
       run_id text NOT NULL,
       test_key text NOT NULL,
       went_right boolean NOT NULL,
       went_wrong boolean NOT NULL,
       PRIMARY KEY (run_id, test_key)
     )`,
  );
}

async function applyResults(tx: SqlExecutor, schema: string, results: { runId: string; item: ResultItem }[]) {
  if (results.length === 0) return;
  const rows = results.map(({ runId, item }) => {
    const counted = item.status !== 'skipped';
    const expected = item.status === (item.expectedStatus ?? 'passed');
    return {
      run_id: runId,
      test_key: testKeyOf(item),
      right: counted && expected,
      wrong: counted && !expected,
    };
  });
  await tx.query(
    `INSERT INTO ${schema}.run_tests (run_id, test_key, went_right, went_wrong)
     SELECT run_id, test_key, bool_or("right"), bool_or(wrong)
     FROM jsonb_to_recordset($1::jsonb) AS r(run_id text, test_key text, "right" boolean, wrong boolean)
     GROUP BY run_id, test_key
     ON CONFLICT (run_id, test_key) DO UPDATE SET
       went_right = run_tests.went_right OR EXCLUDED.went_right,
       went_wrong = run_tests.went_wrong OR EXCLUDED.went_wrong`,
    [JSON.stringify(rows)],
  );
}

/** The runs with their stats so far, by id: one statement for the whole batch. */
async function runsOf(tx: SqlExecutor, schema: string, runIds: string[]): Promise<Map<string, RunRow>> {
  const { rows } = await tx.query<RunRow>(
    `SELECT r.*,
       count(t.test_key)::int AS total,
       count(*) FILTER (WHERE t.went_right AND NOT t.went_wrong)::int AS passed,
       count(*) FILTER (WHERE t.went_wrong AND NOT t.went_right)::int AS failed,
       count(*) FILTER (WHERE t.went_right AND t.went_wrong)::int AS flaky,
       count(*) FILTER (WHERE NOT t.went_right AND NOT t.went_wrong)::int AS skipped
     FROM ${schema}.runs r LEFT JOIN ${schema}.run_tests t ON t.run_id = r.id
     WHERE r.id = ANY($1::text[])
     GROUP BY r.id`,
    [runIds],
  );
  return new Map(rows.map((row) => [row.id, row]));
}

function webhookRunOf(row: RunRow, publicUrl: string): WebhookRun {
  const finished = row.status === 'finished';
  const failed = Number(row.failed);
  return {
    id: row.id,
    counter: Number(row.counter),
    status: finished ? 'finished' : 'running',
    // As the runs read model judges it: failed when a test failed or the runner reported anything else.
    outcome: !finished
      ? null
      : failed > 0 || (row.reported_status ?? 'passed') !== 'passed'
        ? 'failed'
        : 'passed',
    branch: row.branch,
    environment: row.environment,
    commit: row.commit,
    stats: {
      total: Number(row.total),
      passed: Number(row.passed),
      failed,
      flaky: Number(row.flaky),
      skipped: Number(row.skipped),
    },
    startedAt: keptInstant(row.started_at),
    finishedAt: keptInstantOrNull(row.finished_at),
    url: runUrl(publicUrl, row.project_id, row.id),
  };
}

interface Queued {
  sourceEventId: string;
  projectId: string;
  eventName: WebhookEventName;
  run: WebhookRun;
  occurredAt: string;
}

/**
 * Queues one delivery per active subscription of the project that wants the event (and outcome), for
 * every event of the batch in one statement; the first `reservation.slots` of them leased to it.
 */
async function enqueue(
  tx: SqlExecutor,
  options: RunsProjectionOptions,
  queued: Queued[],
  reservation: Reservation | null,
): Promise<Claimed[]> {
  if (queued.length === 0) return [];
  const q = options.queueSchema;
  const { rows } = await tx.query<Claimed>(
    `WITH e AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(ord integer, source_event_id text, project_id text,
         event_name text, run_json text, occurred_at timestamptz, outcome text)
     ), candidates AS (
       SELECT 'dlv_' || md5(s.id || '/' || e.source_event_id) AS id, s.id AS subscription_id, s.project_id,
         e.source_event_id, e.event_name, e.run_json, e.occurred_at,
         row_number() OVER (ORDER BY e.ord, s.id) AS n
       FROM e JOIN ${q}.subscriptions s ON s.project_id = e.project_id
       WHERE s.active AND s.deleted_at IS NULL AND e.event_name = ANY(s.events)
         AND (e.event_name <> 'run.finished' OR s.outcome = 'any' OR s.outcome = e.outcome)
     ), queued AS (
       INSERT INTO ${q}.deliveries (id, subscription_id, project_id, source_event_id, event_name, run_json,
         occurred_at, status, attempts, next_attempt_at, lease, created_at)
       SELECT id, subscription_id, project_id, source_event_id, event_name, run_json, occurred_at, 'pending', 0,
         CASE WHEN n <= $3 THEN $4::timestamptz ELSE $2::timestamptz END,
         CASE WHEN n <= $3 THEN $5::text END, $2
       FROM candidates
       ON CONFLICT (subscription_id, source_event_id) DO NOTHING
       RETURNING id, subscription_id, project_id, event_name, run_json, occurred_at, attempts, lease
     )
     SELECT queued.*, s.url, s.sealed_secret
     FROM queued JOIN ${q}.subscriptions s ON s.id = queued.subscription_id
     WHERE queued.lease IS NOT NULL`,
    [
      JSON.stringify(
        queued.map((item, ord) => ({
          ord,
          source_event_id: item.sourceEventId,
          project_id: item.projectId,
          event_name: item.eventName,
          run_json: JSON.stringify(item.run),
          occurred_at: item.occurredAt,
          outcome: item.run.outcome,
        })),
      ),
      options.clock.now(),
      reservation?.slots ?? 0,
      reservation?.until ?? null,
      reservation?.lease ?? null,
    ],
  );
  return rows;
}

/**
 * The projection, for createProjector.
 *
 * @example const projector = createProjector({ db, projection: webhookRunsProjection({ queueSchema, clock, publicUrl }), logger });
 */
export function webhookRunsProjection(options: RunsProjectionOptions): Projection {
  return {
    name: options.name ?? WEBHOOK_RUNS_PROJECTION,
    setup,
    async apply(tx, events, schema) {
      const results: { runId: string; item: ResultItem }[] = [];
      const lifecycle: { stored: StoredEvent; event: ReturnType<typeof parseTestResultsEvent> }[] = [];
      for (const stored of events) {
        const event = parseTestResultsEvent(stored);
        if (event.type === 'test.result-recorded') results.push(event.data);
        else if (event.type === 'run.created' || event.type === 'run.finished')
          lifecycle.push({ stored, event });
      }
      // Results of a run are recorded before it finishes (later ones are refused), so counting them
      // first gives a finished run its final stats even when both arrive in one batch. Every step is one
      // statement for the whole batch: the cost of a batch does not grow with its events.
      await applyResults(tx, schema, results);
      const created = lifecycle.flatMap(({ event }) => (event.type === 'run.created' ? [event.data] : []));
      if (created.length > 0) {
        await tx.query(
          `INSERT INTO ${schema}.runs (id, project_id, counter, branch, environment, commit, started_at, status)
           SELECT id, project_id, counter, branch, environment, commit, started_at, 'running'
           FROM jsonb_to_recordset($1::jsonb) AS r(id text, project_id text, counter integer, branch text,
             environment text, commit jsonb, started_at timestamptz)
           ON CONFLICT (id) DO NOTHING`,
          [
            JSON.stringify(
              created.map((d) => ({
                id: d.runId,
                project_id: d.projectId,
                counter: d.counter,
                branch: d.branch,
                environment: d.environment,
                commit: d.commit,
                started_at: keptInstant(d.startedAt),
              })),
            ),
          ],
        );
      }
      // The last finish of a run wins, as it would applied one by one.
      const finished = new Map<string, { finished_at: string; reported_status: string | null }>();
      for (const { event } of lifecycle) {
        if (event.type === 'run.finished')
          finished.set(event.data.runId, {
            finished_at: keptInstant(event.data.finishedAt),
            reported_status: event.data.status,
          });
      }
      if (finished.size > 0) {
        await tx.query(
          `UPDATE ${schema}.runs r SET status = 'finished', finished_at = f.finished_at,
             reported_status = f.reported_status
           FROM jsonb_to_recordset($1::jsonb) AS f(id text, finished_at timestamptz, reported_status text)
           WHERE r.id = f.id`,
          [JSON.stringify([...finished].map(([id, f]) => ({ id, ...f })))],
        );
      }
      if (lifecycle.length === 0) return;
      const runs = await runsOf(tx, schema, [...new Set(lifecycle.map(({ event }) => event.data.runId))]);
      const queued: Queued[] = [];
      for (const { stored, event } of lifecycle) {
        const row = runs.get(event.data.runId);
        // A finish without its creation cannot be described; the run stream always starts with run.created.
        if (!row) continue;
        const started = event.type === 'run.created';
        // run.started describes the run as it started, even when its finish came in the same batch.
        const run = webhookRunOf(
          started ? { ...row, status: 'running', finished_at: null } : row,
          options.publicUrl,
        );
        queued.push({
          sourceEventId: stored.eventId,
          projectId: row.project_id,
          eventName: started ? 'run.started' : 'run.finished',
          run,
          occurredAt: stored.occurredAt,
        });
      }
      if (queued.length === 0) return;
      const reservation = options.handoff?.reserve(queued.map((item) => item.sourceEventId)) ?? null;
      const claimed = await enqueue(tx, options, queued, reservation);
      reservation?.claimed.push(...claimed);
    },
  };
}
