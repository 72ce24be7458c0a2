/**
 * What the service's queries read: the schemas of its read models (one per slice, each written by its own
 * projection in the one projector of the service), and what their answers are built with. A query joins
 * another slice's table by that slice's schema, never writes it; a projection reads only its own tables.
 */
import type { Projection, SqlExecutor } from '@verdict/platform';
import { numberOfKey, type KeyPrefix } from './ids';

/** The schema of each read model. */
export interface ManualReadModels {
  users: string;
  suiteTree: string;
  caseList: string;
  caseHistory: string;
  runProgress: string;
  releaseList: string;
  sessionList: string;
  /** The linked-tests model (fed by test-results, in a projector of its own). */
  links: string;
}

/**
 * The read models' schemas: `<prefix>_<read model>`. The prefix is the schema of the single read model
 * the service had before its slices (main's `manual_testing_read`), which they replace.
 */
export function readModelSchemas(prefix: string, links: string): ManualReadModels {
  return {
    users: `${prefix}_users`,
    suiteTree: `${prefix}_suite_tree`,
    caseList: `${prefix}_case_list`,
    caseHistory: `${prefix}_case_history`,
    runProgress: `${prefix}_run_progress`,
    releaseList: `${prefix}_release_list`,
    sessionList: `${prefix}_session_list`,
    links,
  };
}

export interface ManualReadStore {
  db: SqlExecutor;
  schemas: ManualReadModels;
  /** A signed, time-limited download URL for an attachment's blob. */
  signBlobUrl(key: string): string;
  /** List totals by filter, valid while the project's case version is the one they were counted at. */
  counts?: Map<string, { version: string; total: number }>;
}

/** A slice's projection, given the schema it is named after. */
export type ReadModelOf = (name: string) => Projection;

/**
 * The internal id of the row of `table` (schema-qualified) that `ref` names in the project (its `_id` or
 * <prefix>-<n>), or null.
 */
export async function idOfRef(
  db: SqlExecutor,
  table: string,
  prefix: KeyPrefix,
  projectId: string,
  ref: string,
): Promise<string | null> {
  const number = numberOfKey(prefix, ref);
  const { rows } = await db.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE project_id = $1 AND ${number === null ? 'id' : 'number'} = $2`,
    [projectId, number ?? ref],
  );
  return rows[0]?.id ?? null;
}

/** A condition with a `?` for each of its parameters. */
export type Clause = readonly [clause: string, ...params: unknown[]];

/** A list's rows: `alias` names the table in `select` and `table`; `where` holds `?` for each of `params`. */
export interface PageQuery {
  select: string;
  table: string;
  alias: string;
  where: readonly Clause[];
  orderBy: string;
  page: number;
  limit: number;
}

/**
 * One page of a project's list and the total its filter matches. Each `where` entry is a clause with a `?`
 * per parameter (numbered here) or none: `['t.status = ?', 'open']`, `['t.parent_id IS NULL']`.
 *
 * @example await pageOf<RunRow>(store, { select: RUN_SELECT(store), table: `${s}.runs`, alias: 'r', where: [['r.project_id = ?', projectId]], orderBy: 'r.number DESC', page: 1, limit: 25 });
 */
export async function pageOf<Row>(
  store: ManualReadStore,
  query: PageQuery,
): Promise<{ rows: Row[]; total: number }> {
  const params: unknown[] = [];
  const filter = query.where
    .map(([clause, ...values]) => {
      let next = 0;
      return clause.replace(/\?/g, () => {
        params.push(values[next++]);
        return `$${params.length}`;
      });
    })
    .join(' AND ');
  const offset = (query.page - 1) * query.limit;
  const { rows } = await store.db.query<Row>(
    `${query.select} WHERE ${filter} ORDER BY ${query.orderBy} LIMIT ${query.limit} OFFSET ${offset}`,
    params,
  );
  const counted = await store.db.query<{ total: number }>(
    `SELECT count(*)::int AS total FROM ${query.table} ${query.alias} WHERE ${filter}`,
    params,
  );
  return { rows, total: counted.rows[0]?.total ?? 0 };
}

/**
 * The filter of a project's list by status and by release (its `_id` or MS-<n>; an unknown one matches
 * nothing), each when given.
 */
export async function byStatusAndRelease(
  store: ManualReadStore,
  alias: string,
  projectId: string,
  query: { status?: string | undefined; releaseId?: string | undefined },
): Promise<Clause[]> {
  const where: Clause[] = [[`${alias}.project_id = ?`, projectId]];
  if (query.status !== undefined) where.push([`${alias}.status = ?`, query.status]);
  if (query.releaseId !== undefined) {
    const releaseId = await releaseIdOf(store, projectId, query.releaseId);
    where.push([`${alias}.release_id = ?`, releaseId ?? '']);
  }
  return where;
}

/** The internal id of the release `ref` names (its `_id` or MS-<n>) in the project, or null. */
export const releaseIdOf = (store: ManualReadStore, projectId: string, ref: string) =>
  idOfRef(store.db, `${store.schemas.releaseList}.releases`, 'MS', projectId, ref);
