/**
 * The release list: each release (milestone) as last set; its runs and their progress are summed from the
 * run progress read model when it is read. Applying an event again changes nothing (an insert once, then
 * updates to the event's values).
 */
import { keptDayOrInstant, keptInstant, type ManualTestingEvent } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import { keyOf } from '../shared/ids';
import { manualEvents } from '../shared/manualEvents';
import { pageOf, type ManualReadStore } from '../shared/readStore';
import { progressOf, type Counts } from '../runs/runProgress';

async function setup(tx: SqlExecutor, s: string) {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.releases (
    id text PRIMARY KEY, project_id text NOT NULL, number integer NOT NULL, name text NOT NULL,
    description text NOT NULL, start_date text, due_date text, status text NOT NULL,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL,
    CONSTRAINT releases_number_key UNIQUE (project_id, number))`);
}

type ReleaseEvent<T extends ManualTestingEvent['type']> = Extract<ManualTestingEvent, { type: T }>;

async function releaseCreated(
  tx: SqlExecutor,
  s: string,
  { data: d }: ReleaseEvent<'manual-release.created'>,
) {
  const f = d.fields;
  await tx.query(
    `INSERT INTO ${s}.releases (id, project_id, number, name, description, start_date, due_date, status,
         created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $9) ON CONFLICT (id) DO NOTHING`,
    [d.releaseId, d.projectId, d.number, f.name, f.description, f.startDate, f.dueDate, f.status, d.at],
  );
}

async function releaseUpdated(
  tx: SqlExecutor,
  s: string,
  { data: d }: ReleaseEvent<'manual-release.updated'>,
) {
  const has = (key: string) => key in d.set;
  await tx.query(
    `UPDATE ${s}.releases SET name = coalesce($2, name), description = coalesce($3, description),
         start_date = CASE WHEN $4::boolean THEN $5 ELSE start_date END,
         due_date = CASE WHEN $6::boolean THEN $7 ELSE due_date END,
         status = coalesce($8, status), updated_at = $9
       WHERE id = $1`,
    [
      d.releaseId,
      d.set.name ?? null,
      d.set.description ?? null,
      has('startDate'),
      d.set.startDate ?? null,
      has('dueDate'),
      d.set.dueDate ?? null,
      d.set.status ?? null,
      d.at,
    ],
  );
}

/** @example createProjector({ db, projections: [releaseListProjection('manual_testing_read_release_list'), …], … }); */
export function releaseListProjection(name: string): Projection {
  return {
    name,
    canHandle: ['manual-release.created', 'manual-release.updated'],
    setup,
    async apply(tx, events, s) {
      for (const { event } of manualEvents(events)) {
        if (event.type === 'manual-release.created') await releaseCreated(tx, s, event);
        else if (event.type === 'manual-release.updated') await releaseUpdated(tx, s, event);
      }
    },
  };
}

interface ReleaseRow extends Counts {
  id: string;
  number: number;
  name: string;
  description: string;
  start_date: string | null;
  due_date: string | null;
  status: 'planned' | 'active' | 'completed';
  created_at: Date;
  updated_at: Date;
  run_count: number;
}

const RELEASE_SELECT = (store: ManualReadStore) => `SELECT rel.*, coalesce(p.run_count, 0)::int AS run_count,
  coalesce(p.total, 0)::int AS total, coalesce(p.untested, 0)::int AS untested,
  coalesce(p.passed, 0)::int AS passed, coalesce(p.failed, 0)::int AS failed,
  coalesce(p.blocked, 0)::int AS blocked, coalesce(p.skipped, 0)::int AS skipped,
  coalesce(p.retest, 0)::int AS retest
  FROM ${store.schemas.releaseList}.releases rel LEFT JOIN LATERAL (
    SELECT count(*) AS run_count, sum(total) AS total, sum(untested) AS untested, sum(passed) AS passed,
      sum(failed) AS failed, sum(blocked) AS blocked, sum(skipped) AS skipped, sum(retest) AS retest
    FROM ${store.schemas.runProgress}.runs r WHERE r.project_id = rel.project_id AND r.release_id = rel.id) p ON true`;

function releaseOf(row: ReleaseRow) {
  return {
    _id: row.id,
    releaseId: keyOf('MS', row.number),
    name: row.name,
    description: row.description,
    startDate: keptDayOrInstant(row.start_date),
    dueDate: keptDayOrInstant(row.due_date),
    status: row.status,
    runCount: row.run_count,
    progress: progressOf(row),
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

export async function releaseDetail(store: ManualReadStore, projectId: string, releaseId: string) {
  const { rows } = await store.db.query<ReleaseRow>(
    `${RELEASE_SELECT(store)} WHERE rel.project_id = $1 AND rel.id = $2`,
    [projectId, releaseId],
  );
  return rows[0] ? releaseOf(rows[0]) : null;
}

export async function listReleases(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; status?: string | undefined },
) {
  const { rows, total } = await pageOf<ReleaseRow>(store, {
    select: RELEASE_SELECT(store),
    table: `${store.schemas.releaseList}.releases`,
    alias: 'rel',
    where: [
      ['rel.project_id = ?', projectId],
      ...(query.status === undefined ? [] : [['rel.status = ?', query.status] as const]),
    ],
    orderBy: 'rel.number DESC',
    page: query.page,
    limit: query.limit,
  });
  return { items: rows.map(releaseOf), total };
}
