/**
 * The session list: each exploratory session as last set, with when it started (left planned) and was
 * completed. Applying an event again changes nothing (an insert once; an update keeps the first start and
 * completion times and sets the rest to the event's values).
 */
import { keptInstant, keptInstantOrNull, type ManualTestingEvent, type ManualUser } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import { keyOf } from '../shared/ids';
import { manualEvents } from '../shared/manualEvents';
import { byStatusAndRelease, pageOf, type ManualReadStore } from '../shared/readStore';
import { userOf, usersByIds } from '../users/userDirectory';

async function setup(tx: SqlExecutor, s: string) {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.sessions (
    id text PRIMARY KEY, project_id text NOT NULL, charter text NOT NULL, status text NOT NULL,
    notes text NOT NULL, findings jsonb NOT NULL, release_id text, assignee_user_id text,
    created_by text NOT NULL, started_at timestamptz, completed_at timestamptz,
    time_box_minutes integer, created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
  await tx.query(`CREATE INDEX IF NOT EXISTS sessions_by_project ON ${s}.sessions (project_id, created_at)`);
}

type SessionEvent<T extends ManualTestingEvent['type']> = Extract<ManualTestingEvent, { type: T }>;

async function sessionCreated(
  tx: SqlExecutor,
  s: string,
  { data: d }: SessionEvent<'manual-session.created'>,
) {
  const f = d.fields;
  await tx.query(
    `INSERT INTO ${s}.sessions (id, project_id, charter, status, notes, findings, release_id,
         assignee_user_id, created_by, started_at, completed_at, time_box_minutes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::text::jsonb, $7, $8, $9,
         CASE WHEN $4 <> 'planned' THEN $10::timestamptz END,
         CASE WHEN $4 = 'completed' THEN $10::timestamptz END, $11, $10, $10)
       ON CONFLICT (id) DO NOTHING`,
    [
      d.sessionId,
      d.projectId,
      f.charter,
      f.status,
      f.notes,
      JSON.stringify(f.findings),
      f.releaseId,
      f.assigneeUserId,
      d.by,
      d.at,
      f.timeBoxMinutes ?? null,
    ],
  );
}

async function sessionUpdated(
  tx: SqlExecutor,
  s: string,
  { data: d }: SessionEvent<'manual-session.updated'>,
) {
  const has = (key: string) => key in d.set;
  await tx.query(
    `UPDATE ${s}.sessions SET charter = coalesce($2, charter), status = coalesce($3, status),
         notes = coalesce($4, notes), findings = coalesce($5::text::jsonb, findings),
         release_id = CASE WHEN $6::boolean THEN $7 ELSE release_id END,
         assignee_user_id = CASE WHEN $8::boolean THEN $9 ELSE assignee_user_id END,
         started_at = CASE WHEN $3 IN ('in_progress', 'completed') THEN coalesce(started_at, $10::timestamptz)
           ELSE started_at END,
         completed_at = CASE WHEN $3 = 'completed' THEN coalesce(completed_at, $10::timestamptz)
           ELSE completed_at END,
         time_box_minutes = CASE WHEN $11::boolean THEN $12::integer ELSE time_box_minutes END,
         updated_at = $10
       WHERE id = $1`,
    [
      d.sessionId,
      d.set.charter ?? null,
      d.set.status ?? null,
      d.set.notes ?? null,
      d.set.findings === undefined ? null : JSON.stringify(d.set.findings),
      has('releaseId'),
      d.set.releaseId ?? null,
      has('assigneeUserId'),
      d.set.assigneeUserId ?? null,
      d.at,
      has('timeBoxMinutes'),
      d.set.timeBoxMinutes ?? null,
    ],
  );
}

/** @example createProjector({ db, projections: [sessionListProjection('manual_testing_read_session_list'), …], … }); */
export function sessionListProjection(name: string): Projection {
  return {
    name,
    // 2: the time box (time_box_minutes).
    version: 2,
    canHandle: ['manual-session.created', 'manual-session.updated'],
    setup,
    async apply(tx, events, s) {
      for (const { event } of manualEvents(events)) {
        if (event.type === 'manual-session.created') await sessionCreated(tx, s, event);
        else if (event.type === 'manual-session.updated') await sessionUpdated(tx, s, event);
      }
    },
  };
}

interface SessionRow {
  id: string;
  charter: string;
  status: 'planned' | 'in_progress' | 'completed';
  notes: string;
  findings: { title: string; description: string; severity: string; issueKey: string | null }[];
  release_id: string | null;
  release_number: number | null;
  release_name: string | null;
  assignee_user_id: string | null;
  created_by: string;
  started_at: Date | null;
  completed_at: Date | null;
  time_box_minutes: number | null;
  created_at: Date;
  updated_at: Date;
}

const SESSION_SELECT = (store: ManualReadStore) => `SELECT t.*, rel.number AS release_number,
  rel.name AS release_name FROM ${store.schemas.sessionList}.sessions t
  LEFT JOIN ${store.schemas.releaseList}.releases rel ON rel.id = t.release_id`;

function sessionOf(row: SessionRow, users: Map<string, ManualUser>) {
  return {
    _id: row.id,
    charter: row.charter,
    status: row.status,
    notes: row.notes,
    findings: row.findings,
    release:
      row.release_id !== null && row.release_number !== null
        ? { _id: row.release_id, releaseId: keyOf('MS', row.release_number), name: row.release_name ?? '' }
        : null,
    assignee: userOf(users, row.assignee_user_id),
    createdBy: userOf(users, row.created_by),
    startedAt: keptInstantOrNull(row.started_at),
    completedAt: keptInstantOrNull(row.completed_at),
    timeBoxMinutes: row.time_box_minutes,
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

export async function sessionDetail(store: ManualReadStore, projectId: string, sessionId: string) {
  const { rows } = await store.db.query<SessionRow>(
    `${SESSION_SELECT(store)} WHERE t.project_id = $1 AND t.id = $2`,
    [projectId, sessionId],
  );
  const row = rows[0];
  if (!row) return null;
  return sessionOf(row, await usersByIds(store, [row.assignee_user_id, row.created_by]));
}

export async function listSessions(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; status?: string | undefined; releaseId?: string | undefined },
) {
  const { rows, total } = await pageOf<SessionRow>(store, {
    select: SESSION_SELECT(store),
    table: `${store.schemas.sessionList}.sessions`,
    alias: 't',
    where: await byStatusAndRelease(store, 't', projectId, query),
    orderBy: 't.created_at DESC, t.id DESC',
    page: query.page,
    limit: query.limit,
  });
  const users = await usersByIds(
    store,
    rows.flatMap((r) => [r.assignee_user_id, r.created_by]),
  );
  return { items: rows.map((row) => sessionOf(row, users)), total };
}
