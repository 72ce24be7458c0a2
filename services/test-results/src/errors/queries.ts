/**
 * The errors explorer's queries: a page of a project's error groups in a date range, and one group with the
 * tests and runs it hit. Counts, first and last seen are those of the attempts in the range and filters;
 * the sample message is the group's latest.
 */
import {
  keptInstant,
  type ErrorGroup,
  type ErrorGroupDetail,
  type ErrorsQuery,
  type RunCommit,
} from '@verdict/contracts';
import { platformOrNull, type Page, type TestResultsReadStore, type Timestamp } from '../readStore';

const DAY_MS = 86_400_000;
/** Days of the default range: today (UTC) and the 29 before it. */
export const DEFAULT_RANGE_DAYS = 30;
const MAX_BRANCHES = 20;
const MAX_DETAIL_ROWS = 100;

/** The range the query asks for: `start_date`–`end_date` (inclusive), else the last 30 days to now. */
export interface ErrorRange {
  start: Date;
  end: Date;
}

export interface ErrorFilters {
  range: ErrorRange;
  branch?: string | undefined;
  environment?: string | undefined;
}

export function rangeOf(query: { start_date?: string; end_date?: string }, now: Date): ErrorRange {
  if (query.start_date !== undefined && query.end_date !== undefined) {
    return { start: new Date(query.start_date), end: new Date(query.end_date) };
  }
  const today = Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate());
  return { start: new Date(today - (DEFAULT_RANGE_DAYS - 1) * DAY_MS), end: now };
}

/** Every UTC day the range touches, oldest first (`2026-03-01`). */
export function daysOf({ start, end }: ErrorRange): string[] {
  const days: string[] = [];
  const first = Date.UTC(start.getUTCFullYear(), start.getUTCMonth(), start.getUTCDate());
  for (let day = first; day <= end.getTime(); day += DAY_MS)
    days.push(new Date(day).toISOString().slice(0, 10));
  return days;
}

/** Escapes LIKE's wildcards so a search for "50%" finds "50%", not everything after "50". */
const likePattern = (text: string): string => `%${text.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;

/** The hits of a project in the filters: `$1` project, `$2`–`$3` range, `$4` branch, `$5` environment. */
const HITS_WHERE = `h.project_id = $1 AND h.occurred_at >= $2 AND h.occurred_at <= $3
  AND ($4::text IS NULL OR h.branch = $4) AND ($5::text IS NULL OR h.environment = $5)`;

const filterParams = (projectId: string, filters: ErrorFilters) => [
  projectId,
  filters.range.start.toISOString(),
  filters.range.end.toISOString(),
  filters.branch ?? null,
  filters.environment ?? null,
];

const SORT_COLUMNS: Record<ErrorsQuery['sortBy'], string> = {
  occurrences: 'occurrences',
  tests: 'tests_affected',
  firstSeen: 'first_seen',
  lastSeen: 'last_seen',
};

interface GroupRow {
  signature_id: string;
  text: string;
  message: string;
  frame_file: string | null;
  frame_function: string | null;
  sample_message: string;
  occurrences: number;
  tests_affected: number;
  runs: number;
  /** For a group without attempts in the range (its detail, counts 0): its latest attempt. */
  first_seen: Timestamp;
  last_seen: Timestamp;
  total?: number;
}

const GROUP_COLUMNS = `s.signature_id, s.text, s.message, s.frame_file, s.frame_function, s.sample_message,
  g.occurrences, g.tests_affected, g.runs, coalesce(g.first_seen, s.sample_at) AS first_seen,
  coalesce(g.last_seen, s.sample_at) AS last_seen`;

const AGGREGATES = `count(*)::int AS occurrences, count(DISTINCT h.test_case_id)::int AS tests_affected,
  count(DISTINCT h.run_id)::int AS runs, min(h.occurred_at) AS first_seen, max(h.occurred_at) AS last_seen`;

/**
 * One page of the project's error groups in the range and filters.
 *
 * @example const { items, total } = await listErrorGroups(store, projectId, query, rangeOf(query, clock.now()));
 */
export async function listErrorGroups(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  query: Pick<ErrorsQuery, 'page' | 'limit' | 'branch' | 'environment' | 'search' | 'sortBy' | 'sortOrder'>,
  range: ErrorRange,
): Promise<Page<ErrorGroup>> {
  const s = schemas.errors;
  const filters: ErrorFilters = { range, branch: query.branch, environment: query.environment };
  const direction = query.sortOrder === 'asc' ? 'ASC' : 'DESC';
  const matching = `WITH g AS (
       SELECT h.signature_id, ${AGGREGATES} FROM ${s}.error_hits h WHERE ${HITS_WHERE} GROUP BY h.signature_id
     )
     SELECT ${GROUP_COLUMNS}, count(*) OVER ()::int AS total
     FROM g JOIN ${s}.error_signatures s ON s.project_id = $1 AND s.signature_id = g.signature_id
     WHERE $6::text IS NULL OR s.text ILIKE $6 OR s.message ILIKE $6 OR s.sample_message ILIKE $6
       OR coalesce(s.frame_file, '') ILIKE $6 OR coalesce(s.frame_function, '') ILIKE $6`;
  const params = [...filterParams(projectId, filters), query.search ? likePattern(query.search) : null];
  const { rows } = await db.query<GroupRow>(
    `${matching}
     ORDER BY ${SORT_COLUMNS[query.sortBy]} ${direction}, s.signature_id ${direction}
     LIMIT $7 OFFSET $8`,
    [...params, query.limit, (query.page - 1) * query.limit],
  );
  let total = rows[0]?.total ?? 0;
  if (rows.length === 0 && query.page > 1) {
    const counted = await db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM (${matching}) m`,
      params,
    );
    total = counted.rows[0]?.total ?? 0;
  }
  const series = await seriesOf(
    { db, schemas },
    projectId,
    filters,
    rows.map((row) => row.signature_id),
  );
  return { total, items: rows.map((row) => groupOfRow(row, series.get(row.signature_id), filters.range)) };
}

interface Series {
  daily: Map<string, number>;
  branches: string[];
}

/** The count per day and the branches (most frequent first) of each signature, in the range and filters. */
async function seriesOf(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  filters: ErrorFilters,
  signatureIds: readonly string[],
): Promise<Map<string, Series>> {
  const series = new Map<string, Series>(signatureIds.map((id) => [id, { daily: new Map(), branches: [] }]));
  if (signatureIds.length === 0) return series;
  const params = [...filterParams(projectId, filters), signatureIds];
  const where = `${HITS_WHERE} AND h.signature_id = ANY($6::text[])`;
  const s = schemas.errors;
  const [daily, branches] = await Promise.all([
    db.query<{ signature_id: string; day: string; count: number }>(
      `SELECT h.signature_id, to_char(h.occurred_at AT TIME ZONE 'UTC', 'YYYY-MM-DD') AS day, count(*)::int AS count
       FROM ${s}.error_hits h WHERE ${where} GROUP BY 1, 2`,
      params,
    ),
    db.query<{ signature_id: string; branch: string }>(
      `SELECT h.signature_id, h.branch FROM ${s}.error_hits h WHERE ${where} AND h.branch IS NOT NULL
       GROUP BY 1, 2 ORDER BY count(*) DESC, h.branch`,
      params,
    ),
  ]);
  for (const row of daily.rows) series.get(row.signature_id)?.daily.set(row.day, row.count);
  for (const row of branches.rows) {
    const of = series.get(row.signature_id);
    if (of && of.branches.length < MAX_BRANCHES) of.branches.push(row.branch);
  }
  return series;
}

function groupOfRow(row: GroupRow, series: Series | undefined, range: ErrorRange): ErrorGroup {
  return {
    signatureId: row.signature_id,
    signature: row.text,
    message: row.message,
    frame: row.frame_file === null ? null : { file: row.frame_file, function: row.frame_function },
    sampleMessage: row.sample_message,
    occurrences: row.occurrences,
    testsAffected: row.tests_affected,
    runs: row.runs,
    branches: series?.branches ?? [],
    firstSeenAt: keptInstant(row.first_seen),
    lastSeenAt: keptInstant(row.last_seen),
    daily: daysOf(range).map((day) => ({ day, count: series?.daily.get(day) ?? 0 })),
  };
}

interface TestRow {
  test_case_id: string;
  title: string | null;
  file: string;
  project: string;
  occurrences: number;
  last_seen: Timestamp;
}

interface RunHitRow {
  run_id: string;
  counter: number | null;
  branch: string | null;
  environment: string | null;
  commit: RunCommit | null;
  started_at: Timestamp;
  occurrences: number;
}

/**
 * One error group of the project, with the tests and runs it hit in the range and filters (most recent
 * first); null when the project has no such signature.
 *
 * @example const group = await findErrorGroup(store, projectId, signatureId, { range: rangeOf(query, now) });
 */
export async function findErrorGroup(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  signatureId: string,
  filters: ErrorFilters,
): Promise<ErrorGroupDetail | null> {
  const s = schemas.errors;
  const params = [...filterParams(projectId, filters), signatureId];
  const where = `${HITS_WHERE} AND h.signature_id = $6`;
  const { rows } = await db.query<GroupRow>(
    `SELECT ${GROUP_COLUMNS}
     FROM ${s}.error_signatures s
     CROSS JOIN LATERAL (SELECT ${AGGREGATES} FROM ${s}.error_hits h WHERE ${where}) g
     WHERE s.project_id = $1 AND s.signature_id = $6`,
    params,
  );
  const row = rows[0];
  if (!row) return null;
  const [series, tests, hits] = await Promise.all([
    seriesOf({ db, schemas }, projectId, filters, [signatureId]),
    db.query<TestRow>(
      `SELECT h.test_case_id, c.title, coalesce(c.file, '') AS file, h.project, count(*)::int AS occurrences,
         max(h.occurred_at) AS last_seen
       FROM ${s}.error_hits h
       LEFT JOIN ${schemas.caseHistory}.test_cases c ON c.project_id = $1 AND c.id = h.test_case_id
       WHERE ${where}
       GROUP BY h.test_case_id, c.title, c.file, h.project
       ORDER BY last_seen DESC, h.test_case_id, h.project LIMIT ${MAX_DETAIL_ROWS}`,
      params,
    ),
    db.query<RunHitRow>(
      `SELECT h.run_id, r.counter, r.branch, r.environment, r.commit,
         coalesce(r.started_at, min(h.occurred_at)) AS started_at, count(*)::int AS occurrences
       FROM ${s}.error_hits h
       LEFT JOIN ${schemas.runList}.runs r ON r.id = h.run_id
       WHERE ${where}
       GROUP BY h.run_id, r.id
       ORDER BY 6 DESC, h.run_id DESC LIMIT ${MAX_DETAIL_ROWS}`,
      params,
    ),
  ]);
  // A group without hits in the range still has its signature; its counts are then 0.
  return {
    ...groupOfRow(row, series.get(signatureId), filters.range),
    tests: tests.rows.map((test) => ({
      testCaseId: test.test_case_id,
      title: test.title ?? '',
      file: test.file,
      project: platformOrNull(test.project),
      occurrences: test.occurrences,
      lastSeenAt: keptInstant(test.last_seen),
    })),
    hits: hits.rows.map((hit) => ({
      runId: hit.run_id,
      counter: hit.counter ?? 0,
      branch: hit.branch,
      environment: hit.environment,
      commit: hit.commit,
      startedAt: keptInstant(hit.started_at),
      occurrences: hit.occurrences,
    })),
  };
}
