/**
 * The projection of the webhooks service: it keeps what it knows of runs (webhookRuns.ts) and of
 * quarantines (webhookQuarantines.ts) and, on `run.created` (spec's run.started), `run.finished`,
 * `test.quarantined`, `test.quarantine-lifted` and `test.quarantine-expired`, queues one delivery per
 * matching subscription; sending them is the dispatcher's. Its name and version stay those of the runs
 * projection it grew from: a rebuild would replay every event and queue deliveries of the past. The queue insert shares the projector's transaction and checkpoint,
 * and is keyed by (subscription, source event), so an event seen twice (a Kafka redelivery, the embedded
 * relay republishing after a restart) queues nothing twice.
 */
import {
  parseTestResultsEvent,
  type QuarantineEvent,
  type ResultItem,
  type WebhookEventName,
  type WebhookQuarantine,
  type WebhookRun,
} from '@verdict/contracts';
import type { Clock, Projection, SqlExecutor, StoredEvent } from '@verdict/platform';
import {
  applyCreated,
  applyFinished,
  applyResults,
  runsOf,
  setupRunTables,
  webhookRunOf,
} from './webhookRuns';
import {
  evolveQuarantine,
  quarantinesOf,
  saveQuarantines,
  setupQuarantineTables,
  webhookEventOfQuarantine,
  webhookQuarantineOf,
  type QuarantineRecord,
} from './webhookQuarantines';

export const WEBHOOK_RUNS_PROJECTION = 'webhooks_runs';

export interface RunsProjectionOptions {
  name?: string;
  /** The schema of the subscriptions and the delivery queue. */
  queueSchema: string;
  clock: Clock;
  /** VERDICT_PUBLIC_URL: the base of `data.run.url` and `data.quarantine.url`. */
  publicUrl: string;
}

interface Queued {
  sourceEventId: string;
  projectId: string;
  eventName: WebhookEventName;
  /** `data.run` or `data.quarantine`, as the event name says. */
  data: WebhookRun | WebhookQuarantine;
  /** A finished run's outcome, for the subscriptions' `outcome` filter; null for any other event. */
  outcome: 'passed' | 'failed' | null;
  occurredAt: string;
}

/**
 * Queues one delivery per active subscription of the project that wants the event (and outcome), for
 * every event of the batch in one statement, due now.
 */
async function enqueue(tx: SqlExecutor, options: RunsProjectionOptions, queued: Queued[]): Promise<void> {
  const q = options.queueSchema;
  await tx.query(
    `WITH e AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(source_event_id text, project_id text,
         event_name text, run_json text, occurred_at timestamptz, outcome text)
     )
     INSERT INTO ${q}.deliveries (id, subscription_id, project_id, source_event_id, event_name, run_json,
       occurred_at, status, attempts, next_attempt_at, created_at)
     SELECT 'dlv_' || md5(s.id || '/' || e.source_event_id), s.id, s.project_id, e.source_event_id,
       e.event_name, e.run_json, e.occurred_at, 'pending', 0, $2, $2
     FROM e JOIN ${q}.subscriptions s ON s.project_id = e.project_id
     WHERE s.active AND s.deleted_at IS NULL AND e.event_name = ANY(s.events)
       AND (e.event_name <> 'run.finished' OR s.outcome = 'any' OR s.outcome = e.outcome)
     ON CONFLICT (subscription_id, source_event_id) DO NOTHING`,
    [
      JSON.stringify(
        queued.map((item) => ({
          source_event_id: item.sourceEventId,
          project_id: item.projectId,
          event_name: item.eventName,
          run_json: JSON.stringify(item.data),
          occurred_at: item.occurredAt,
          outcome: item.outcome,
        })),
      ),
      options.clock.now(),
    ],
  );
}

/** The events a webhook is sent for: a run's start and its finish. */
type RunEdge = Extract<ReturnType<typeof parseTestResultsEvent>, { type: 'run.created' | 'run.finished' }>;

const QUARANTINE_TYPES: ReadonlySet<string> = new Set([
  'test.quarantined',
  'test.quarantine-extended',
  'test.quarantine-signatures-changed',
  'test.quarantine-lifted',
  'test.quarantine-expired',
]);

const isQuarantineEvent = (event: { type: string }): event is QuarantineEvent =>
  QUARANTINE_TYPES.has(event.type);

/**
 * The runs of the batch: their record updated and the deliveries of their starts and finishes, in the
 * batch's order.
 */
async function runDeliveries(
  tx: SqlExecutor,
  schema: string,
  events: { stored: StoredEvent; event: ReturnType<typeof parseTestResultsEvent> }[],
  publicUrl: string,
): Promise<Queued[]> {
  const results: { runId: string; item: ResultItem }[] = [];
  const lifecycle: { stored: StoredEvent; event: RunEdge }[] = [];
  for (const { stored, event } of events) {
    if (event.type === 'test.result-recorded') results.push(event.data);
    else if (event.type === 'run.created' || event.type === 'run.finished') lifecycle.push({ stored, event });
  }
  // Results of a run are recorded before it finishes (later ones are refused), so counting them
  // first gives a finished run its final stats even when both arrive in one batch. Every step is one
  // statement for the whole batch: the cost of a batch does not grow with its events.
  await applyResults(tx, schema, results);
  await applyCreated(
    tx,
    schema,
    lifecycle.flatMap(({ event }) => (event.type === 'run.created' ? [event.data] : [])),
  );
  await applyFinished(
    tx,
    schema,
    lifecycle.flatMap(({ event }) => (event.type === 'run.finished' ? [event.data] : [])),
  );
  if (lifecycle.length === 0) return [];
  const runs = await runsOf(tx, schema, [...new Set(lifecycle.map(({ event }) => event.data.runId))]);
  const queued: Queued[] = [];
  for (const { stored, event } of lifecycle) {
    const row = runs.get(event.data.runId);
    // A finish without its creation cannot be described; the run stream always starts with run.created.
    if (!row) continue;
    const started = event.type === 'run.created';
    // run.started describes the run as it started, even when its finish came in the same batch.
    const run = webhookRunOf(started ? { ...row, status: 'running', finished_at: null } : row, publicUrl);
    // The verdicts test-results decided when the run finished travel with run.finished only.
    if (event.type === 'run.finished' && event.data.failures) {
      const { newFailures, ...failures } = event.data.failures;
      Object.assign(run, { failures, newFailures });
    }
    // So is its quality gate (issue 32), when the project had rules then.
    if (event.type === 'run.finished' && event.data.gate) Object.assign(run, { gate: event.data.gate });
    queued.push({
      sourceEventId: stored.eventId,
      projectId: row.project_id,
      eventName: started ? 'run.started' : 'run.finished',
      data: run,
      outcome: run.outcome,
      occurredAt: stored.occurredAt,
    });
  }
  return queued;
}

/**
 * The quarantines of the batch: folded event by event over their records (one read and one write for the
 * whole batch), each made, lifted or expired one queued as it stood right after its event.
 */
async function quarantineDeliveries(
  tx: SqlExecutor,
  schema: string,
  events: { stored: StoredEvent; event: ReturnType<typeof parseTestResultsEvent> }[],
  publicUrl: string,
): Promise<Queued[]> {
  const changes: { stored: StoredEvent; event: QuarantineEvent }[] = [];
  for (const { stored, event } of events) if (isQuarantineEvent(event)) changes.push({ stored, event });
  if (changes.length === 0) return [];
  const records = await quarantinesOf(tx, schema, [
    ...new Set(changes.map(({ event }) => event.data.quarantineId)),
  ]);
  const changed = new Map<string, QuarantineRecord>();
  const queued: Queued[] = [];
  for (const { stored, event } of changes) {
    const id = event.data.quarantineId;
    const { record, described } = evolveQuarantine(records.get(id), event);
    if (record) {
      records.set(id, record);
      changed.set(id, record);
    }
    const eventName = webhookEventOfQuarantine(event);
    if (eventName && described) {
      queued.push({
        sourceEventId: stored.eventId,
        projectId: described.projectId,
        eventName,
        data: webhookQuarantineOf(described, publicUrl),
        outcome: null,
        occurredAt: stored.occurredAt,
      });
    }
  }
  await saveQuarantines(tx, schema, [...changed.values()]);
  return queued;
}

/**
 * The projection, for createProjector.
 *
 * @example const projector = createProjector({ db, projection: webhookRunsProjection({ queueSchema, clock, publicUrl }), logger });
 */
export function webhookRunsProjection(options: RunsProjectionOptions): Projection {
  return {
    name: options.name ?? WEBHOOK_RUNS_PROJECTION,
    async setup(tx, schema) {
      await setupRunTables(tx, schema);
      // Created at the next start of a deployment that has the runs' tables already: no rebuild needed.
      await setupQuarantineTables(tx, schema);
    },
    async apply(tx, stored, schema) {
      const events = stored.map((one) => ({ stored: one, event: parseTestResultsEvent(one) }));
      const queued = [
        ...(await runDeliveries(tx, schema, events, options.publicUrl)),
        ...(await quarantineDeliveries(tx, schema, events, options.publicUrl)),
      ];
      if (queued.length > 0) await enqueue(tx, options, queued);
    },
  };
}
