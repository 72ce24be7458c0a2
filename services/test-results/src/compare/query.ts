/**
 * The comparison of a run with its base (issue 31): the base resolved (a run asked for, the latest
 * finished run of a branch before this one), then one statement joining the two runs' run_tests by test
 * and platform (a FULL OUTER JOIN on their primary keys) that returns only the rows where something may
 * have changed; classify() sorts them into categories. Titles are read only for the tests that can be
 * listed (titleCandidates): a comparison where thousands of tests slowed down counts them all and titles a
 * few hundred. A sharded run is one run: its run_tests already add its shards up.
 */
import {
  DEFAULT_BASE_BRANCH,
  keptInstant,
  type CompareQuery,
  type CompareRun,
  type Outcome,
  type RunCommit,
  type RunComparison,
} from '@verdict/contracts';
import { NotFoundError, ValidationError } from '@verdict/platform';
import { platformOrNull, type TestResultsReadStore, type Timestamp } from '../readStore';
import {
  byFileAndTitle,
  classify,
  emptyCategories,
  titleCandidates,
  type ComparedTest,
  type Thresholds,
} from './classify';

interface RunRow {
  id: string;
  counter: number;
  status: 'running' | 'finished';
  outcome: 'passed' | 'failed' | null;
  branch: string | null;
  commit: RunCommit | null;
  started_at: Timestamp;
  base_branch: string | null;
}

const RUN_COLUMNS = 'id, counter, status, outcome, branch, commit, started_at, base_branch';

function compareRunOf(row: RunRow): CompareRun {
  return {
    id: row.id,
    counter: row.counter,
    status: row.status,
    outcome: row.outcome,
    branch: row.branch,
    commit: row.commit,
    startedAt: keptInstant(row.started_at),
  };
}

async function loadRun(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  runId: string,
): Promise<RunRow | null> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM ${schemas.runList}.runs WHERE project_id = $1 AND id = $2`,
    [projectId, runId],
  );
  return rows[0] ?? null;
}

/** The latest finished run on the branch that started before the run (never the run itself). */
async function latestBefore(
  { db, schemas }: TestResultsReadStore,
  run: RunRow,
  projectId: string,
  branch: string,
): Promise<RunRow | null> {
  const { rows } = await db.query<RunRow>(
    `SELECT ${RUN_COLUMNS} FROM ${schemas.runList}.runs b
     WHERE b.project_id = $1 AND b.branch = $2 AND b.status = 'finished' AND b.id <> $3
       AND b.started_at < (SELECT started_at FROM ${schemas.runList}.runs WHERE id = $3)
     ORDER BY b.started_at DESC, b.id DESC LIMIT 1`,
    [projectId, branch, run.id],
  );
  return rows[0] ?? null;
}

interface Resolved {
  base: RunRow | null;
  baseBranch: string | null;
  noBaseReason: string | null;
}

async function resolveBase(
  store: TestResultsReadStore,
  projectId: string,
  run: RunRow,
  query: Pick<CompareQuery, 'base' | 'baseBranch'>,
): Promise<Resolved> {
  if (query.base !== undefined) {
    if (query.base === run.id) {
      throw new ValidationError('base: must be another run than the one compared');
    }
    const base = await loadRun(store, projectId, query.base);
    if (!base) throw new NotFoundError(`Base run ${query.base} not found`);
    return { base, baseBranch: base.branch, noBaseReason: null };
  }
  // The run's own base branch when it named one, else the project's default.
  const branch = query.baseBranch ?? run.base_branch ?? DEFAULT_BASE_BRANCH;
  const base = await latestBefore(store, run, projectId, branch);
  if (base) return { base, baseBranch: branch, noBaseReason: null };
  return {
    base: null,
    baseBranch: branch,
    noBaseReason: `No finished run on branch "${branch}" started before run #${run.counter}`,
  };
}

interface ComparedRow {
  test_case_id: string;
  project: string;
  file: string;
  outcome: Outcome | null;
  base_outcome: Outcome | null;
  duration_ms: number | null;
  base_duration_ms: number | null;
  error_signature: string | null;
  error_signature_text: string | null;
}

/**
 * The tests of the two runs that may have changed, untitled: in one run only, outcomes that differ,
 * failures, and passes slower by more than both thresholds. The rest (the same outcome at the same pace)
 * never leaves the database.
 */
async function changedTests(
  { db, schemas }: TestResultsReadStore,
  runId: string,
  baseId: string,
  thresholds: Thresholds,
): Promise<ComparedTest[]> {
  const list = schemas.runList;
  const columns = 'test_case_id, project, file, outcome, duration_ms';
  const { rows } = await db.query<ComparedRow>(
    `SELECT coalesce(c.test_case_id, b.test_case_id) AS test_case_id, coalesce(c.project, b.project) AS project,
       coalesce(c.file, b.file) AS file, c.outcome, b.outcome AS base_outcome,
       c.duration_ms, b.duration_ms AS base_duration_ms, c.error_signature, c.error_signature_text
     FROM (SELECT ${columns}, error_signature, error_signature_text FROM ${list}.run_tests WHERE run_id = $1) c
     FULL OUTER JOIN (SELECT ${columns} FROM ${list}.run_tests WHERE run_id = $2) b
       ON b.test_case_id = c.test_case_id AND b.project = c.project
     WHERE c.test_case_id IS NULL OR b.test_case_id IS NULL OR c.outcome <> b.outcome
       OR c.outcome = 'failed'
       OR (c.duration_ms > b.duration_ms * $3 AND c.duration_ms - b.duration_ms > $4)`,
    [runId, baseId, thresholds.durationRatio, thresholds.durationFloorMs],
  );
  return rows.map((row) => ({
    item: {
      testCaseId: row.test_case_id,
      title: '',
      titlePath: [],
      file: row.file,
      project: platformOrNull(row.project),
      signature:
        row.error_signature === null
          ? null
          : { id: row.error_signature, text: row.error_signature_text ?? '' },
    },
    outcome: row.outcome,
    baseOutcome: row.base_outcome,
    durationMs: row.duration_ms === null ? null : Number(row.duration_ms),
    baseDurationMs: row.base_duration_ms === null ? null : Number(row.base_duration_ms),
  }));
}

/** The tests given their titles (each test case's, from the case history), in place. */
async function addTitles(
  { db, schemas }: TestResultsReadStore,
  projectId: string,
  tests: Iterable<ComparedTest>,
): Promise<void> {
  const byId = new Map<string, ComparedTest[]>();
  for (const test of tests) {
    const same = byId.get(test.item.testCaseId);
    if (same) same.push(test);
    else byId.set(test.item.testCaseId, [test]);
  }
  if (byId.size === 0) return;
  const { rows } = await db.query<{ id: string; title: string | null; title_path: string[] | null }>(
    `SELECT id, title, title_path FROM ${schemas.caseHistory}.test_cases WHERE project_id = $1 AND id = ANY($2::text[])`,
    [projectId, [...byId.keys()]],
  );
  for (const row of rows) {
    const titlePath = row.title_path ?? [];
    for (const test of byId.get(row.id) ?? []) {
      test.item.titlePath = titlePath;
      test.item.title = row.title ?? titlePath.at(-1) ?? '';
    }
  }
}

/**
 * The changed tests in their categories: the ones that can be listed titled and first, in file and title
 * order, then the rest, which only count.
 */
async function categorised(
  store: TestResultsReadStore,
  projectId: string,
  runId: string,
  baseId: string,
  thresholds: Thresholds,
  limit: number,
) {
  const changed = await changedTests(store, runId, baseId, thresholds);
  const candidates = titleCandidates(changed, thresholds, limit);
  await addTitles(store, projectId, candidates);
  const rest = changed.filter((test) => !candidates.has(test));
  return classify([...[...candidates].sort(byFileAndTitle), ...rest], thresholds, limit);
}

/**
 * The run compared with its base: `base` (that run: 404 when the project has no such run, 400 when it is
 * the run itself), `baseBranch` (its latest finished run before this one), or neither (the run's base
 * branch). Without a base run: base null, the reason, every category empty. Null when the run is unknown.
 *
 * @example const comparison = await compareRuns(store, projectId, runId, CompareQuery.parse({}));
 */
export async function compareRuns(
  store: TestResultsReadStore,
  projectId: string,
  runId: string,
  query: CompareQuery,
): Promise<RunComparison | null> {
  const run = await loadRun(store, projectId, runId);
  if (!run) return null;
  const { base, baseBranch, noBaseReason } = await resolveBase(store, projectId, run, query);
  const thresholds = { durationRatio: query.durationRatio, durationFloorMs: query.durationFloorMs };
  const categories = base
    ? await categorised(store, projectId, run.id, base.id, thresholds, query.limit)
    : emptyCategories();
  return {
    run: compareRunOf(run),
    base: base && compareRunOf(base),
    baseBranch,
    noBaseReason,
    thresholds,
    ...categories,
  };
}
