/** The suite scope of the debug bundle: one spec file of a run and one page of its failing tests. */
import { NotFoundError } from '@verdict/platform';
import { failureWindow } from '../failureWindow';
import { uiUrl } from '../links';
import { retryCommand } from '../retryCommand';
import { failingTests, pageOf, testItemOf } from '../failingTests';
import type { SuiteScopeRequest } from '../params';
import { environmentOf, loadRun, metaOf } from '../runContext';
import type { BundleSources, PagedBundle } from '../sources';
import { runSpecTests, specsOf } from '../specFiles';
import type { SuiteBundle, SuiteBundleItem } from '../types';

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
