/**
 * The suite tree: each suite with its parent, so a suite answers with its path (root first) and a run can
 * take every case under a suite. A deleted suite stays as a row marked deleted (its cases keep its id).
 * Statements are upserts or updates to the event's values: applying an event again changes nothing.
 */
import { keptInstant } from '@verdict/contracts';
import type { Projection, SqlExecutor } from '@verdict/platform';
import { manualEvents } from '../shared/manualEvents';
import { pageOf, type Clause, type ManualReadStore } from '../shared/readStore';

async function setup(tx: SqlExecutor, s: string) {
  await tx.query(`CREATE TABLE IF NOT EXISTS ${s}.suites (
    id text PRIMARY KEY, project_id text NOT NULL, name text NOT NULL, description text NOT NULL,
    parent_id text, deleted boolean NOT NULL DEFAULT false,
    created_at timestamptz NOT NULL, updated_at timestamptz NOT NULL)`);
  await tx.query(`CREATE INDEX IF NOT EXISTS suites_by_parent ON ${s}.suites (project_id, parent_id, name)`);
}

/** @example createProjector({ db, projections: [suiteTreeProjection('manual_testing_read_suite_tree'), …], … }); */
export function suiteTreeProjection(name: string): Projection {
  return {
    name,
    canHandle: ['manual-suite.created', 'manual-suite.updated', 'manual-suite.deleted'],
    setup,
    async apply(tx, events, s) {
      for (const { event } of manualEvents(events)) {
        if (event.type === 'manual-suite.created') {
          const d = event.data;
          await tx.query(
            `INSERT INTO ${s}.suites (id, project_id, name, description, parent_id, created_at, updated_at)
             VALUES ($1, $2, $3, $4, $5, $6, $6) ON CONFLICT (id) DO NOTHING`,
            [d.suiteId, d.projectId, d.fields.name, d.fields.description, d.fields.parentId, d.at],
          );
        } else if (event.type === 'manual-suite.updated') {
          const d = event.data;
          await tx.query(
            `UPDATE ${s}.suites SET name = coalesce($2, name), description = coalesce($3, description),
               parent_id = CASE WHEN $4::boolean THEN $5 ELSE parent_id END, updated_at = $6 WHERE id = $1`,
            [
              d.suiteId,
              d.set.name ?? null,
              d.set.description ?? null,
              d.set.parentId !== undefined,
              d.set.parentId ?? null,
              d.at,
            ],
          );
        } else if (event.type === 'manual-suite.deleted') {
          await tx.query(`UPDATE ${s}.suites SET deleted = true, updated_at = $2 WHERE id = $1`, [
            event.data.suiteId,
            event.data.at,
          ]);
        }
      }
    },
  };
}

interface SuiteRow {
  id: string;
  name: string;
  description: string;
  parent_id: string | null;
  created_at: Date;
  updated_at: Date;
  case_count: number;
}

const SUITE_SELECT = (store: ManualReadStore) => `SELECT t.id, t.name, t.description, t.parent_id,
  t.created_at, t.updated_at, (SELECT count(*)::int FROM ${store.schemas.caseList}.cases c
    WHERE c.project_id = t.project_id AND c.suite_id = t.id) AS case_count
  FROM ${store.schemas.suiteTree}.suites t`;

/** The suite and its ancestors, root first; empty when the suite is missing or deleted. */
export async function suitePath(store: ManualReadStore, projectId: string, suiteId: string) {
  const s = store.schemas.suiteTree;
  const { rows } = await store.db.query<{ id: string; name: string; depth: number }>(
    `WITH RECURSIVE up AS (
       SELECT id, name, parent_id, 0 AS depth FROM ${s}.suites
       WHERE project_id = $1 AND id = $2 AND NOT deleted
       UNION ALL SELECT s.id, s.name, s.parent_id, up.depth + 1 FROM ${s}.suites s
       JOIN up ON s.id = up.parent_id WHERE up.depth < 100
     ) SELECT id, name, depth FROM up ORDER BY depth DESC`,
    [projectId, suiteId],
  );
  return rows.map((r) => ({ _id: r.id, name: r.name }));
}

async function suiteOf(store: ManualReadStore, projectId: string, row: SuiteRow) {
  return {
    _id: row.id,
    name: row.name,
    description: row.description,
    parentId: row.parent_id,
    path: await suitePath(store, projectId, row.id),
    caseCount: row.case_count,
    createdAt: keptInstant(row.created_at),
    updatedAt: keptInstant(row.updated_at),
  };
}

export async function findSuite(store: ManualReadStore, projectId: string, suiteId: string) {
  const { rows } = await store.db.query<SuiteRow>(
    `${SUITE_SELECT(store)} WHERE t.project_id = $1 AND t.id = $2 AND NOT t.deleted`,
    [projectId, suiteId],
  );
  return rows[0] ? suiteOf(store, projectId, rows[0]) : null;
}

/** Whether the project has this suite (not deleted). */
export async function suiteExists(store: ManualReadStore, projectId: string, suiteId: string) {
  const { rowCount } = await store.db.query(
    `SELECT 1 FROM ${store.schemas.suiteTree}.suites WHERE project_id = $1 AND id = $2 AND NOT deleted`,
    [projectId, suiteId],
  );
  return rowCount > 0;
}

export async function suiteChildren(
  store: ManualReadStore,
  projectId: string,
  suiteId: string,
): Promise<number> {
  const { rows } = await store.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${store.schemas.suiteTree}.suites
     WHERE project_id = $1 AND parent_id = $2 AND NOT deleted`,
    [projectId, suiteId],
  );
  return rows[0]?.n ?? 0;
}

export async function listSuites(
  store: ManualReadStore,
  projectId: string,
  query: { page: number; limit: number; parentId?: string | undefined },
) {
  const parent: Clause[] =
    query.parentId === undefined
      ? []
      : query.parentId === 'null'
        ? [['t.parent_id IS NULL']]
        : [['t.parent_id = ?', query.parentId]];
  const { rows, total } = await pageOf<SuiteRow>(store, {
    select: SUITE_SELECT(store),
    table: `${store.schemas.suiteTree}.suites`,
    alias: 't',
    where: [['t.project_id = ?', projectId], ['NOT t.deleted'], ...parent],
    orderBy: 't.name, t.id',
    page: query.page,
    limit: query.limit,
  });
  const items = [];
  for (const row of rows) items.push(await suiteOf(store, projectId, row));
  return { items, total };
}
