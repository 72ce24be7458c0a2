/**
 * The debug bundle's reads (spec §2 "Debug bundle", §4.2): each scope's full bundle assembled from the
 * runs read model (runs/runsReadModel.ts). The view is applied afterwards (`applyView`).
 *
 * Decisions where the spec is silent:
 * - A suite is a spec file in a run, and `suiteId` is its path: the runs detail (`include=specs`) names
 *   spec files by path and nothing else, so the path is the id a client already has.
 * - A test case is (file, titlePath), whatever the platform (browser) it ran on. The run and suite scopes
 *   list each failing platform of a test as its own item (same caseId, its `project`); the test scope shows
 *   the platform asked for (`project`), else the one where it went worst in the run (failed, then flaky,
 *   then passed, then skipped; ties by name).
 * - `alsoFailedIn` lists the other runs, among the project's 20 most recent, in which the test case
 *   failed (outcome `failed`; a flaky pass does not count), newest first: enough to tell a new failure
 *   from a recurring one without scanning the history.
 * - Attempts are numbered by their position in the run (0-based, by the runner's attempt number), so a
 *   gap in what the runner reported cannot make an index point nowhere.
 * - An artifact attached to a result but not uploaded (yet) still gets a URL: the artifact download path,
 *   which answers 404 until the upload arrives.
 */
import { keptInstant, keptInstantOrNull } from '@verdict/contracts';
import type { Outcome, ResultStatus, TestError, TestStep } from '@verdict/contracts';
import { NotFoundError, type Clock, type ReadStore } from '@verdict/platform';
import { ARTIFACT_COLUMNS, artifactOfRow, type ArtifactColumns } from '../reads/queries';
import type { ArtifactToSign } from '../reads/routes';
import {
  failureWindow,
  retryCommand,
  retryCommandForTests,
  stripAnsi,
  summarizeError,
  traceViewerUrl,
  uiUrl,
} from './failureWindow';
import type { RunScopeRequest, SuiteScopeRequest, TestScopeRequest } from './params';
import { resolveAttempt } from './params';
import type {
  AttemptHistoryEntry,
  BundleArtifact,
  BundleEnvironment,
  BundleError,
  BundleMeta,
  BundleRunStatus,
  BundleSpec,
  BundleStats,
  BundleSuiteStatus,
  BundleTest,
  BundleView,
  RunBundle,
  RunBundleItem,
  SuiteBundle,
  SuiteBundleItem,
  TestBundle,
} from './types';
import { groupArtifacts } from './views';
import { NO_PLATFORM } from '../runs/runsReadModel';

/** How many of the project's latest runs `alsoFailedIn` looks at. */
export const ALSO_FAILED_IN_WINDOW = 20;

export interface BundleSources extends ReadStore {
  /** VERDICT_PUBLIC_URL: base of `links.uiUrl` and of unsigned artifact URLs. */
  publicUrl: string;
  /** Builds an artifact's download URL; without it, the unsigned artifact download path is used. */
  signArtifactUrl?: (artifact: ArtifactToSign) => string;
  /** Gives `meta.generatedAt`. */
  clock: Clock;
}

/** A page of a run or suite bundle: the bundle and how many failing tests there are in all. */
export interface PagedBundle<T> {
  bundle: T;
  total: number;
}

type Timestamp = Date | string;
const platformOrNull = (project: string): string | null => (project === NO_PLATFORM ? null : project);

// ——— the run ———

interface RunRow {
  id: string;
  title: string | null;
  status: 'running' | 'finished';
  reported_status: string | null;
  outcome: 'passed' | 'failed' | null;
  branch: string | null;
  environment: string | null;
  commit: { sha: string; message?: string; author?: string } | null;
  ci: { provider?: string; buildId?: string; url?: string } | null;
  framework: { name: string; version?: string } | null;
  started_at: Timestamp;
  finished_at: Timestamp | null;
  duration_ms: string | number | null;
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

/** The run, read for its project only: a run of another project is as unknown as a missing one. */
async function loadRun(sources: BundleSources, projectId: string, runId: string): Promise<RunRow> {
  const { rows } = await sources.db.query<RunRow>(
    `SELECT id, title, status, reported_status, outcome, branch, environment, commit, ci, framework,
            started_at, finished_at, duration_ms, total, passed, failed, flaky, skipped
     FROM ${sources.schema}.runs WHERE id = $1 AND project_id = $2`,
    [runId, projectId],
  );
  const run = rows[0];
  if (!run) throw new NotFoundError(`Test run ${runId} not found`, 'TEST_RUN_NOT_FOUND');
  return run;
}

function runStatusOf(run: RunRow): BundleRunStatus {
  if (run.status === 'running') return 'running';
  if (run.reported_status === 'interrupted') return 'interrupted';
  return run.outcome === 'failed' || run.failed > 0 ? 'failed' : 'passed';
}

function metaOf(projectId: string, run: RunRow, view: BundleView, now: Date): BundleMeta {
  return {
    projectId,
    runId: run.id,
    runTitle: run.title,
    startedAt: keptInstant(run.started_at),
    finishedAt: keptInstantOrNull(run.finished_at),
    durationMs: run.duration_ms === null ? null : Number(run.duration_ms),
    stats: {
      total: run.total,
      passed: run.passed,
      failed: run.failed,
      flaky: run.flaky,
      skipped: run.skipped,
    },
    view,
    generatedAt: now.toISOString(),
  };
}

function environmentOf(run: RunRow): BundleEnvironment {
  return {
    branch: run.branch,
    environment: run.environment,
    commit: run.commit && {
      sha: run.commit.sha,
      message: run.commit.message ?? null,
      author: run.commit.author ?? null,
    },
    ci: run.ci && {
      provider: run.ci.provider ?? null,
      buildId: run.ci.buildId ?? null,
      url: run.ci.url ?? null,
    },
    framework: run.framework && { name: run.framework.name, version: run.framework.version ?? null },
  };
}

// ——— spec files ———

interface SpecTestRow {
  file: string;
  outcome: Outcome;
  title_path: string[];
}

/** Every test of the run (one row per test and platform) with its file, as the spec stats count them. */
async function runSpecTests(sources: BundleSources, runId: string, file?: string): Promise<SpecTestRow[]> {
  const { rows } = await sources.db.query<SpecTestRow>(
    `SELECT t.file, t.outcome, c.title_path
     FROM ${sources.schema}.run_tests t
     JOIN ${sources.schema}.test_cases c ON c.project_id = t.project_id AND c.id = t.test_case_id
     WHERE t.run_id = $1 AND ($2::text IS NULL OR t.file = $2)
     ORDER BY t.file`,
    [runId, file ?? null],
  );
  return rows;
}

/** The run's spec files with their stats, in file order. */
function specsOf(rows: readonly SpecTestRow[]): BundleSpec[] {
  const byFile = new Map<string, SpecTestRow[]>();
  for (const row of rows) byFile.set(row.file, [...(byFile.get(row.file) ?? []), row]);
  return [...byFile].map(([file, tests]) => {
    const stats = statsOf(tests.map((test) => test.outcome));
    return { suiteId: file, file, title: specTitleOf(file, tests), status: suiteStatusOf(stats), stats };
  });
}

function statsOf(outcomes: readonly Outcome[]): BundleStats {
  const stats: BundleStats = { total: 0, passed: 0, failed: 0, flaky: 0, skipped: 0 };
  for (const outcome of outcomes) {
    stats.total += 1;
    stats[outcome] += 1;
  }
  return stats;
}

function suiteStatusOf(stats: BundleStats): BundleSuiteStatus {
  if (stats.failed > 0) return 'failed';
  if (stats.flaky > 0) return 'flaky';
  if (stats.total > 0 && stats.skipped === stats.total) return 'skipped';
  return 'passed';
}

/** The single top-level describe all the file's tests sit in, else the file name. */
function specTitleOf(file: string, tests: readonly SpecTestRow[]): string {
  const describes = new Set(
    tests.map((test) => (test.title_path.length > 1 ? test.title_path[0] : undefined)),
  );
  const [only] = describes;
  if (describes.size === 1 && only !== undefined) return only;
  return file.split('/').at(-1) ?? file;
}

// ——— failing tests ———

interface FailingRow {
  test_case_id: string;
  file: string;
  project: string;
  outcome: Outcome;
  attempts: number;
  title: string;
  title_path: string[];
  last_status: ResultStatus;
  last_duration: number;
  location: { line?: number } | null;
  error: TestError | null;
  steps: TestStep[] | null;
}

/**
 * The run's failed and flaky tests, one row per test case and platform, failed first, then by file, title
 * and platform. Steps (for the failure window) are read only when asked for, as they are the bulk.
 */
async function failingTests(
  sources: BundleSources,
  runId: string,
  { file, withSteps }: { file?: string; withSteps: boolean },
): Promise<FailingRow[]> {
  const s = sources.schema;
  const { rows } = await sources.db.query<FailingRow>(
    `SELECT * FROM (
       SELECT t.test_case_id, t.file, t.project, t.outcome, t.attempts,
         c.title, c.title_path, last.status AS last_status, last.duration_ms AS last_duration,
         last.location, failed.error, ${withSteps ? 'failed.steps' : 'NULL::jsonb'} AS steps
       FROM ${s}.run_tests t
       JOIN ${s}.test_cases c ON c.project_id = t.project_id AND c.id = t.test_case_id
       JOIN LATERAL (
         SELECT r.status, r.duration_ms, r.location FROM ${s}.results r
         WHERE r.run_id = t.run_id AND r.test_case_id = t.test_case_id AND r.project = t.project
         ORDER BY r.attempt DESC LIMIT 1
       ) last ON true
       LEFT JOIN LATERAL (
         SELECT r.error, r.steps FROM ${s}.results r
         WHERE r.run_id = t.run_id AND r.test_case_id = t.test_case_id AND r.project = t.project
           AND r.error IS NOT NULL
         ORDER BY r.attempt DESC LIMIT 1
       ) failed ON true
       WHERE t.run_id = $1 AND t.outcome IN ('failed', 'flaky') AND ($2::text IS NULL OR t.file = $2)
     ) failing
     ORDER BY (outcome = 'failed') DESC, file, title_path, project`,
    [runId, file ?? null],
  );
  return rows;
}

/** The fields run and suite items share. */
function testItemOf(row: FailingRow, framework: string | null) {
  const project = platformOrNull(row.project);
  const line = row.location?.line ?? null;
  return {
    caseId: row.test_case_id,
    title: row.title,
    titlePath: row.title_path,
    file: row.file,
    line,
    project,
    outcome: row.outcome,
    status: row.last_status,
    attempts: row.attempts,
    durationMs: Number(row.last_duration),
    error: row.error ? summarizeError(row.error) : null,
    retryCommand: retryCommand({ framework, file: row.file, line, project, titlePath: row.title_path }),
  };
}

/** For each case id, the other recent runs of the project in which it failed, newest first. */
async function alsoFailedIn(
  sources: BundleSources,
  projectId: string,
  runId: string,
  caseIds: readonly string[],
): Promise<Map<string, string[]>> {
  const found = new Map<string, string[]>();
  if (caseIds.length === 0) return found;
  const { rows } = await sources.db.query<{ test_case_id: string; run_id: string }>(
    `SELECT DISTINCT t.test_case_id, t.run_id, recent.started_at
     FROM (
       SELECT id, started_at FROM ${sources.schema}.runs
       WHERE project_id = $1 AND id <> $2
       ORDER BY started_at DESC, id DESC LIMIT $4
     ) recent
     JOIN ${sources.schema}.run_tests t ON t.run_id = recent.id
     WHERE t.test_case_id = ANY($3::text[]) AND t.outcome = 'failed'
     ORDER BY recent.started_at DESC, t.run_id`,
    [projectId, runId, caseIds, ALSO_FAILED_IN_WINDOW],
  );
  for (const row of rows) found.set(row.test_case_id, [...(found.get(row.test_case_id) ?? []), row.run_id]);
  return found;
}

const pageOf = <T>(items: readonly T[], page: number, limit: number): T[] =>
  items.slice((page - 1) * limit, page * limit);

// ——— scopes ———

/**
 * The run scope bundle: the run's failing spec files, one page of its failing tests, and the run.
 *
 * @example const { bundle, total } = await runBundle(sources, projectId, request);
 */
export async function runBundle(
  sources: BundleSources,
  projectId: string,
  request: Pick<RunScopeRequest, 'runId' | 'page' | 'limit'>,
): Promise<PagedBundle<RunBundle>> {
  const run = await loadRun(sources, projectId, request.runId);
  const framework = run.framework?.name ?? null;
  const failing = await failingTests(sources, run.id, { withSteps: false });
  const page = pageOf(failing, request.page, request.limit);
  const recentFailures = await alsoFailedIn(
    sources,
    projectId,
    run.id,
    page.map((row) => row.test_case_id),
  );
  const items: RunBundleItem[] = page.map((row) => ({
    ...testItemOf(row, framework),
    suiteId: row.file,
    alsoFailedIn: recentFailures.get(row.test_case_id) ?? [],
  }));
  const suites = specsOf(await runSpecTests(sources, run.id))
    .filter((spec) => spec.stats.failed + spec.stats.flaky > 0)
    .sort((a, b) => b.stats.failed - a.stats.failed || b.stats.flaky - a.stats.flaky);
  const bundle: RunBundle = {
    scope: 'run',
    runId: run.id,
    runStatus: runStatusOf(run),
    suites,
    items,
    meta: metaOf(projectId, run, 'full', sources.clock.now()),
    environment: environmentOf(run),
    links: {
      uiUrl: uiUrl(sources.publicUrl, projectId, run.id),
      retryCommand: retryCommandForTests(
        framework,
        items.map((item) => ({ ...item, framework })),
      ),
    },
  };
  return { bundle, total: failing.length };
}

/**
 * The suite scope bundle: one spec file of the run and one page of its failing tests with their failure
 * windows (the full view; `applyView` cuts them).
 *
 * @example const { bundle, total } = await suiteBundle(sources, projectId, request);
 */
export async function suiteBundle(
  sources: BundleSources,
  projectId: string,
  request: Pick<SuiteScopeRequest, 'runId' | 'suiteId' | 'page' | 'limit'>,
): Promise<PagedBundle<SuiteBundle>> {
  const run = await loadRun(sources, projectId, request.runId);
  const framework = run.framework?.name ?? null;
  const [spec] = specsOf(await runSpecTests(sources, run.id, request.suiteId));
  if (!spec) {
    throw new NotFoundError(`Suite ${request.suiteId} not found in run ${run.id}`, 'TEST_SUITE_NOT_FOUND');
  }
  const failing = await failingTests(sources, run.id, { file: spec.file, withSteps: true });
  const items: SuiteBundleItem[] = pageOf(failing, request.page, request.limit).map((row) => ({
    ...testItemOf(row, framework),
    failureWindow: failureWindow(row.steps ?? []),
  }));
  const bundle: SuiteBundle = {
    scope: 'suite',
    spec,
    suiteStatus: spec.status,
    items,
    meta: metaOf(projectId, run, 'full', sources.clock.now()),
    environment: environmentOf(run),
    links: {
      uiUrl: uiUrl(sources.publicUrl, projectId, run.id, { suiteId: spec.suiteId }),
      retryCommand: retryCommand({ framework, file: spec.file }),
    },
  };
  return { bundle, total: failing.length };
}

interface CaseRow {
  id: string;
  file: string;
  title: string;
  title_path: string[];
}

interface ResultRow {
  project: string;
  outcome: Outcome;
  status: ResultStatus;
  duration_ms: number;
  started_at: Timestamp;
  error: TestError | null;
  steps: TestStep[] | null;
  stdout: string[] | null;
  stderr: string[] | null;
  attachments: { name: string; contentType: string; artifactId: string }[] | null;
  annotations: { type: string; description?: string }[] | null;
  tags: string[];
  location: { line?: number } | null;
}

async function loadCase(sources: BundleSources, projectId: string, caseId: string): Promise<CaseRow> {
  const { rows } = await sources.db.query<CaseRow>(
    `SELECT id, file, title, title_path FROM ${sources.schema}.test_cases WHERE project_id = $1 AND id = $2`,
    [projectId, caseId],
  );
  const testCase = rows[0];
  if (!testCase) throw new NotFoundError(`Test case ${caseId} not found`, 'TEST_CASE_NOT_FOUND');
  return testCase;
}

/**
 * The run the test scope shows: the one asked for, else the latest run (by start) that ran the case (on
 * the platform asked for).
 */
async function runOfCase(
  sources: BundleSources,
  projectId: string,
  caseId: string,
  { runId, project }: Pick<TestScopeRequest, 'runId' | 'project'>,
): Promise<RunRow> {
  if (runId !== undefined) return loadRun(sources, projectId, runId);
  const { rows } = await sources.db.query<{ run_id: string }>(
    `SELECT t.run_id FROM ${sources.schema}.run_tests t
     JOIN ${sources.schema}.runs r ON r.id = t.run_id AND r.project_id = t.project_id
     WHERE t.project_id = $1 AND t.test_case_id = $2 AND ($3::text IS NULL OR t.project = $3)
     ORDER BY r.started_at DESC, r.id DESC LIMIT 1`,
    [projectId, caseId, project ?? null],
  );
  const latest = rows[0];
  if (!latest) throw new NotFoundError(`Test case ${caseId} has no run`, 'TEST_CASE_NOT_FOUND');
  return loadRun(sources, projectId, latest.run_id);
}

/** Every attempt of the case in the run, on the platform asked for or its worst, in attempt order. */
async function attemptsOf(
  sources: BundleSources,
  runId: string,
  caseId: string,
  project: string | undefined,
): Promise<ResultRow[]> {
  const s = sources.schema;
  const { rows } = await sources.db.query<ResultRow>(
    `WITH platform AS (
       SELECT project, outcome FROM ${s}.run_tests
       WHERE run_id = $1 AND test_case_id = $2 AND ($3::text IS NULL OR project = $3)
       ORDER BY array_position(ARRAY['failed', 'flaky', 'passed', 'skipped'], outcome), project LIMIT 1
     )
     SELECT r.project, p.outcome, r.status, r.duration_ms, r.started_at, r.error, r.steps, r.stdout, r.stderr,
            r.attachments, r.annotations, r.tags, r.location
     FROM ${s}.results r JOIN platform p ON p.project = r.project
     WHERE r.run_id = $1 AND r.test_case_id = $2
     ORDER BY r.attempt`,
    [runId, caseId, project ?? null],
  );
  return rows;
}

function bundleErrorOf(error: TestError | null): BundleError | null {
  if (error === null) return null;
  return {
    message: stripAnsi(error.message),
    stack: error.stack === undefined ? null : stripAnsi(error.stack),
    snippet: error.snippet === undefined ? null : stripAnsi(error.snippet),
    location: error.location ?? null,
  };
}

/** The attempt's attachments with download URLs: signed when the artifact was uploaded. */
async function artifactsOf(
  sources: BundleSources,
  projectId: string,
  runId: string,
  attachments: ResultRow['attachments'],
): Promise<BundleArtifact[]> {
  const list = attachments ?? [];
  if (list.length === 0) return [];
  const { rows } = await sources.db.query<ArtifactColumns>(
    `SELECT ${ARTIFACT_COLUMNS} FROM ${sources.schema}.artifacts
     WHERE run_id = $1 AND project_id = $2 AND id = ANY($3::text[])`,
    [runId, projectId, list.map((attachment) => attachment.artifactId)],
  );
  const uploaded = new Map(rows.map((row) => [row.id, artifactOfRow(row)]));
  const unsigned = (artifactId: string) =>
    `${sources.publicUrl.replace(/\/+$/, '')}/api/public/v1/${encodeURIComponent(projectId)}/test-runs/${encodeURIComponent(runId)}/artifacts/${encodeURIComponent(artifactId)}`;
  return list.map((attachment) => {
    const row = uploaded.get(attachment.artifactId);
    // A result may name an artifact that was never uploaded: there is nothing to link to.
    if (row === undefined) return { ...attachment, url: null };
    const url = sources.signArtifactUrl
      ? sources.signArtifactUrl({ ...row, projectId, runId })
      : unsigned(attachment.artifactId);
    return { ...attachment, url };
  });
}

function attemptHistoryOf(attempts: readonly ResultRow[], selected: number): AttemptHistoryEntry[] {
  return attempts.flatMap((result, attempt) =>
    attempt === selected
      ? []
      : [
          {
            attempt,
            status: result.status,
            durationMs: Number(result.duration_ms),
            error: result.error ? summarizeError(result.error) : null,
          },
        ],
  );
}

function bundleTestOf(testCase: CaseRow, result: ResultRow): BundleTest {
  return {
    caseId: testCase.id,
    title: testCase.title,
    titlePath: testCase.title_path,
    file: testCase.file,
    line: result.location?.line ?? null,
    project: platformOrNull(result.project),
    status: result.status,
    outcome: result.outcome,
    durationMs: Number(result.duration_ms),
    startedAt: keptInstant(result.started_at),
    tags: result.tags,
    annotations: (result.annotations ?? []).map(({ type, description }) => ({
      type,
      description: description ?? null,
    })),
  };
}

/**
 * The test scope bundle: one attempt of a test case in a run (the latest run of the case when no runId
 * was sent), in full; `applyView` cuts it. An attempt out of range is a 400 INVALID_ATTEMPT.
 *
 * @example const bundle = await testBundle(sources, projectId, request);
 */
export async function testBundle(
  sources: BundleSources,
  projectId: string,
  request: Pick<TestScopeRequest, 'caseId' | 'runId' | 'attempt' | 'project'>,
): Promise<TestBundle> {
  const testCase = await loadCase(sources, projectId, request.caseId);
  const run = await runOfCase(sources, projectId, testCase.id, request);
  const attempts = await attemptsOf(sources, run.id, testCase.id, request.project);
  if (attempts.length === 0) {
    const on = request.project === undefined ? '' : ` on project ${JSON.stringify(request.project)}`;
    throw new NotFoundError(
      `Test case ${testCase.id} did not run${on} in run ${run.id}`,
      'TEST_CASE_NOT_FOUND',
    );
  }
  const selected = resolveAttempt(request.attempt, attempts.length);
  const result = attempts[selected] as ResultRow;
  const framework = run.framework?.name ?? null;
  const project = platformOrNull(result.project);
  const line = result.location?.line ?? null;
  const artifacts = groupArtifacts(await artifactsOf(sources, projectId, run.id, result.attachments));
  const traceLink = artifacts.traces[0]?.url ?? null;
  const [spec] = specsOf(await runSpecTests(sources, run.id, testCase.file));
  return {
    scope: 'test',
    spec: spec ?? emptySpecOf(testCase.file),
    test: bundleTestOf(testCase, result),
    error: bundleErrorOf(result.error),
    attemptHistory: attemptHistoryOf(attempts, selected),
    traceLink,
    failureWindow: failureWindow(result.steps ?? []),
    steps: result.steps ?? [],
    stdout: result.stdout ?? [],
    stderr: result.stderr ?? [],
    artifacts,
    meta: {
      ...metaOf(projectId, run, 'full', sources.clock.now()),
      latestRun: request.runId === undefined,
      attempt: selected,
      attempts: attempts.length,
    },
    environment: environmentOf(run),
    links: {
      uiUrl: uiUrl(sources.publicUrl, projectId, run.id, {
        caseId: testCase.id,
        attempt: selected,
        // The platform asked for: without it the page would show another platform's attempt N.
        ...(request.project === undefined ? {} : { project: request.project }),
      }),
      retryCommand: retryCommand({
        framework,
        file: testCase.file,
        line,
        project,
        titlePath: testCase.title_path,
      }),
      traceViewerUrl: traceViewerUrl(traceLink, sources.publicUrl),
    },
  };
}

/** Never shown in practice (the case ran in the run, so its file has rows); keeps the type total. */
function emptySpecOf(file: string): BundleSpec {
  const stats = statsOf([]);
  return { suiteId: file, file, title: file.split('/').at(-1) ?? file, status: 'passed', stats };
}
