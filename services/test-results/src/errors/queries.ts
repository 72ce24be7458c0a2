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
import { byCodePoint } from '@verdict/platform';
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

/** The days wholly inside the range (`start` inclusive, `end` exclusive, UTC midnights); empty when none. */
function wholeDaysOf({ start, end }: ErrorRange): { start: Date; end: Date } {
  const first = Math.ceil(start.getTime() / DAY_MS) * DAY_MS;
  const after = Math.floor((end.getTime() + 1) / DAY_MS) * DAY_MS;
  return after > first ? { start: new Date(first), end: new Date(after) } : { start, end: start };
}

/**
 * A project's attempts in the filters as counted rows (`signature_id, day, branch, occurrences, first_seen,
 * last_seen`): the rollup's rows for the range's whole days, one row per attempt for the days it cuts.
 * `$1`–`$5` as HITS_WHERE, `$6`–`$7` the whole days (wholeDaysOf).
 */
const countedIn = (s: string) => `SELECT d.signature_id, d.day, d.branch, d.occurrences, d.first_seen,
    d.last_seen
  FROM ${s}.error_days d
  WHERE d.project_id = $1 AND d.day >= ($6::timestamptz AT TIME ZONE 'UTC')::date
    AND d.day < ($7::timestamptz AT TIME ZONE 'UTC')::date
    AND ($4::text IS NULL OR d.branch = $4) AND ($5::text IS NULL OR d.environment = $5)
  UNION ALL
  SELECT h.signature_id, (h.occurred_at AT TIME ZONE 'UTC')::date, h.branch, 1, h.occurred_at, h.occurred_at
  FROM ${s}.error_hits h WHERE ${HITS_WHERE} AND (h.occurred_at < $6 OR h.occurred_at >= $7)`;

const countedParams = (projectId: string, filters: ErrorFilters) => {
  const whole = wholeDaysOf(filters.range);
  return [...filterParams(projectId, filters), whole.start.toISOString(), whole.end.toISOString()];
};

/**
 * The groups of the range, ranked: from the daily rollup, except by tests affected, a distinct count that
 * days cannot be summed into, which reads the range's attempts. Its parameters are rankedParams'.
 */
const rankedGroups = (s: string, sortBy: ErrorsQuery['sortBy']) =>
  sortBy === 'tests'
    ? `SELECT h.signature_id, count(*)::int AS occurrences, count(DISTINCT h.test_case_id)::int AS tests_affected,
         min(h.occurred_at) AS first_seen, max(h.occurred_at) AS last_seen
       FROM ${s}.error_hits h WHERE ${HITS_WHERE} GROUP BY h.signature_id`
    : `SELECT c.signature_id, sum(c.occurrences)::int AS occurrences, min(c.first_seen) AS first_seen,
         max(c.last_seen) AS last_seen
       FROM (${countedIn(s)}) c GROUP BY c.signature_id`;

const rankedParams = (projectId: string, filters: ErrorFilters, sortBy: ErrorsQuery['sortBy']) =>
  sortBy === 'tests' ? filterParams(projectId, filters) : countedParams(projectId, filters);

interface RankedRow {
  signature_id: string;
  occurrences: number;
  first_seen: Timestamp;
  last_seen: Timestamp;
  total: number;
}

/**
 * One page of the project's error groups in the range and filters. The range's groups are ranked first; the
 * distinct tests and runs are counted for the page's groups only.
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
  const ranking = rankedParams(projectId, filters, query.sortBy);
  const pattern = `$${ranking.length + 1}`;
  const searched = query.search
    ? `JOIN ${s}.error_signatures s ON s.project_id = $1 AND s.signature_id = g.signature_id
       WHERE s.text ILIKE ${pattern} OR s.message ILIKE ${pattern} OR s.sample_message ILIKE ${pattern}
         OR coalesce(s.frame_file, '') ILIKE ${pattern} OR coalesce(s.frame_function, '') ILIKE ${pattern}`
    : '';
  const matching = `WITH g AS (${rankedGroups(s, query.sortBy)})
     SELECT g.signature_id, g.occurrences, g.first_seen, g.last_seen, count(*) OVER ()::int AS total
     FROM g ${searched}`;
  const params = [...ranking, ...(query.search ? [likePattern(query.search)] : [])];
  const at = params.length;
  const { rows: ranked } = await db.query<RankedRow>(
    `${matching}
     ORDER BY ${SORT_COLUMNS[query.sortBy]} ${direction}, g.signature_id ${direction}
     LIMIT $${at + 1} OFFSET $${at + 2}`,
    [...params, query.limit, (query.page - 1) * query.limit],
  );
  let total = ranked[0]?.total ?? 0;
  if (ranked.length === 0 && query.page > 1) {
    const counted = await db.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM (${matching}) m`,
      params,
    );
    total = counted.rows[0]?.total ?? 0;
  }
  const ids = ranked.map((row) => row.signature_id);
  const [groups, series] = await Promise.all([
    pageGroupsOf({ db, schemas }, projectId, filters, ids),
    seriesOf({ db, schemas }, projectId, filters, ids),
  ]);
  const items = ranked.flatMap((rank) => {
    const row = groups.get(rank.signature_id);
    return row ? [groupOfRow({ ...row, ...rank }, series.get(rank.signature_id), filters.range)] : [];
  });
  return { total, items };
}

type PageRow = Omit<GroupRow, 'occurrences' | 'first_seen' | 'last_seen' | 'total'>;

/**
 * The page's signatures with their distinct tests and runs in the range and filters: a test (run) counts when
 * the days the signature hit it overlap the range's whole days, or when an attempt of it falls in the days
 * the range cuts. `$1`–`$7` as countedIn, `$8` the signatures.
 */
const distinctIn = (s: string, table: string, key: string) => `SELECT signature_id, count(*)::int AS n FROM (
    SELECT t.signature_id, t.${key} FROM ${s}.${table} t
    WHERE t.project_id = $1 AND t.signature_id = ANY($8::text[])
      AND ($4::text IS NULL OR t.branch = $4) AND ($5::text IS NULL OR t.environment = $5)
      AND t.days && datemultirange(daterange(($6::timestamptz AT TIME ZONE 'UTC')::date,
        ($7::timestamptz AT TIME ZONE 'UTC')::date))
    UNION
    SELECT h.signature_id, h.${key} FROM ${s}.error_hits h
    WHERE ${HITS_WHERE} AND h.signature_id = ANY($8::text[]) AND (h.occurred_at < $6 OR h.occurred_at >= $7)
  ) x GROUP BY signature_id`;

async function pageGroupsOf(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  filters: ErrorFilters,
  signatureIds: readonly string[],
): Promise<Map<string, PageRow>> {
  if (signatureIds.length === 0) return new Map();
  const s = schemas.errors;
  const { rows } = await db.query<PageRow>(
    `WITH tests AS (${distinctIn(s, 'error_test_days', 'test_case_id')}),
       runs AS (${distinctIn(s, 'error_run_days', 'run_id')})
     SELECT s.signature_id, s.text, s.message, s.frame_file, s.frame_function, s.sample_message,
       coalesce(t.n, 0) AS tests_affected, coalesce(r.n, 0) AS runs
     FROM ${s}.error_signatures s
     LEFT JOIN tests t ON t.signature_id = s.signature_id
     LEFT JOIN runs r ON r.signature_id = s.signature_id
     WHERE s.project_id = $1 AND s.signature_id = ANY($8::text[])`,
    [...countedParams(projectId, filters), signatureIds],
  );
  return new Map(rows.map((row) => [row.signature_id, row]));
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
  const { rows } = await db.query<{
    signature_id: string;
    day: string;
    branch: string | null;
    count: number;
  }>(
    `SELECT c.signature_id, to_char(c.day, 'YYYY-MM-DD') AS day, c.branch, sum(c.occurrences)::int AS count
     FROM (${countedIn(schemas.errors)}) c WHERE c.signature_id = ANY($8::text[])
     GROUP BY 1, 2, 3`,
    [...countedParams(projectId, filters), signatureIds],
  );
  const branchCounts = new Map<string, Map<string, number>>();
  for (const row of rows) {
    const of = series.get(row.signature_id);
    if (!of) continue;
    of.daily.set(row.day, (of.daily.get(row.day) ?? 0) + row.count);
    if (row.branch === null) continue;
    const counts = branchCounts.get(row.signature_id) ?? new Map<string, number>();
    counts.set(row.branch, (counts.get(row.branch) ?? 0) + row.count);
    branchCounts.set(row.signature_id, counts);
  }
  for (const [signatureId, counts] of branchCounts) {
    const of = series.get(signatureId);
    if (!of) continue;
    of.branches = [...counts]
      .sort(([a, x], [b, y]) => y - x || byCodePoint(a, b))
      .slice(0, MAX_BRANCHES)
      .map(([branch]) => branch);
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
