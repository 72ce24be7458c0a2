/** The run scope of the debug bundle: the run's failing spec files and one page of its failing tests. */
import { uiUrl } from '../links';
import { retryCommandForTests } from '../retryCommand';
import { failingTests, pageOf, testItemOf } from '../failingTests';
import type { RunScopeRequest } from '../params';
import { environmentOf, loadRun, metaOf, runStatusOf } from '../runContext';
import type { BundleSources, PagedBundle } from '../sources';
import { runSpecTests, specsOf } from '../specFiles';
import type { RunBundle, RunBundleItem } from '../types';
import { failureVerdicts } from '../../verdicts/runFailures';
import { runGate } from '../../gates/runGate';

/** How many of the project's latest runs `alsoFailedIn` looks at. */
export const ALSO_FAILED_IN_WINDOW = 20;

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
       SELECT id, started_at FROM ${sources.schemas.runList}.runs
       WHERE project_id = $1 AND id <> $2
       ORDER BY started_at DESC, id DESC LIMIT $4
     ) recent
     JOIN ${sources.schemas.runList}.run_tests t ON t.run_id = recent.id
     WHERE t.test_case_id = ANY($3::text[]) AND t.outcome = 'failed'
     ORDER BY recent.started_at DESC, t.run_id`,
    [projectId, runId, caseIds, ALSO_FAILED_IN_WINDOW],
  );
  for (const row of rows) found.set(row.test_case_id, [...(found.get(row.test_case_id) ?? []), row.run_id]);
  return found;
}

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
  const verdictOf = await failureVerdicts(sources, projectId, run.id, sources.clock.now());
  const items: RunBundleItem[] = page.map((row) => {
    const item = testItemOf(row, framework);
    const failure = verdictOf(row.test_case_id, item.project);
    return {
      ...item,
      verdict: failure?.verdict ?? null,
      signature: failure?.signature ?? null,
      quarantine: failure?.quarantine ?? null,
      suiteId: row.file,
      alsoFailedIn: recentFailures.get(row.test_case_id) ?? [],
    };
  });
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
    gate: await runGate(sources, projectId, run.id),
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
