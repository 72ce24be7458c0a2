/** The test scope of the debug bundle: one attempt of a test case in a run, in full. */
import { keptInstant } from '@verdict/contracts';
import type { Outcome, ResultStatus, ResultWorker, TestError, TestStep } from '@verdict/contracts';
import { NotFoundError } from '@verdict/platform';
import { ARTIFACT_COLUMNS, artifactOfRow, type ArtifactColumns } from '../../runs/runArtifacts';
import { failureWindow, stripAnsi, summarizeError } from '../failureWindow';
import { traceViewerUrl, uiUrl } from '../links';
import type { TestScopeRequest } from '../params';
import { retryCommand } from '../retryCommand';
import { environmentOf, loadRun, metaOf, type RunRow } from '../runContext';
import { resolveAttempt } from './attempt';
import { bundleSuspects } from './suspects';
import { platformOrNull, type BundleSources, type Timestamp } from '../sources';
import { emptySpecOf, runSpecTests, specsOf } from '../specFiles';
import type { AttemptHistoryEntry, BundleArtifact, BundleError, BundleTest, TestBundle } from '../types';
import { groupArtifacts } from '../views';
import { failureVerdicts, type FailureVerdictOf } from '../../verdicts/runFailures';

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
  worker: ResultWorker | null;
}

async function loadCase(sources: BundleSources, projectId: string, caseId: string): Promise<CaseRow> {
  const { rows } = await sources.db.query<CaseRow>(
    `SELECT id, file, title, title_path FROM ${sources.schemas.caseHistory}.test_cases WHERE project_id = $1 AND id = $2`,
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
    `SELECT t.run_id FROM ${sources.schemas.runList}.run_tests t
     JOIN ${sources.schemas.runList}.runs r ON r.id = t.run_id AND r.project_id = t.project_id
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
  const { rows } = await sources.db.query<ResultRow>(
    `WITH platform AS (
       SELECT project, outcome FROM ${sources.schemas.runList}.run_tests
       WHERE run_id = $1 AND test_case_id = $2 AND ($3::text IS NULL OR project = $3)
       ORDER BY array_position(ARRAY['failed', 'flaky', 'passed', 'skipped'], outcome), project LIMIT 1
     )
     SELECT r.project, p.outcome, r.status, r.duration_ms, r.started_at, r.error, r.steps, r.stdout, r.stderr,
            r.attachments, r.annotations, r.tags, r.location, r.worker
     FROM ${sources.schemas.runResults}.results r JOIN platform p ON p.project = r.project
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
    `SELECT ${ARTIFACT_COLUMNS} FROM ${sources.schemas.runArtifacts}.artifacts
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
            worker: result.worker,
          },
        ],
  );
}

function bundleTestOf(testCase: CaseRow, result: ResultRow, failure: FailureVerdictOf | null): BundleTest {
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
    verdict: failure?.verdict ?? null,
    signature: failure?.signature ?? null,
    quarantine: failure?.quarantine ?? null,
    worker: result.worker,
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
    test: bundleTestOf(
      testCase,
      result,
      (await failureVerdicts(sources, projectId, run.id, sources.clock.now()))(testCase.id, project),
    ),
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
    suspects: await bundleSuspects(sources, projectId, testCase.id, run.branch),
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
