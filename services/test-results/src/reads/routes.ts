/**
 * The reads of automated data (API.md, "Reads of automated data"): runs list and detail, test case detail
 * and history, specs. The gateway has checked the token's project scope before a request gets here; the
 * queries still read only the path's project, so an id of another project answers 404 NOT_FOUND.
 */
import {
  paginationOf,
  testResultsReadRoutes,
  type ArtifactDownload,
  type Pagination,
  type TestCaseDetail,
  type TestRunDetail,
} from '@verdict/contracts';
import {
  bindRoutes,
  NotFoundError,
  reply,
  type BoundRoute,
  type Clock,
  type SqlExecutor,
} from '@verdict/platform';
import type { TestResultsReadModels, TestResultsReadStore } from '../readStore';
import { runArtifacts, type ArtifactRow, type ArtifactToSign } from '../runs/runArtifacts';
import { runCoverage } from '../runs/runCoverage';
import { findRun, listRuns } from '../runs/runList/queries';
import { runErrors } from '../runs/runResults';
import { listSpecs, runSpecs } from '../specs/specList';
import { findTestCase, testCaseHistory } from '../testCases/caseHistory';
import { runFailures } from '../verdicts/runFailures';
import { runGate } from '../gates/runGate';

export interface ReadRoutesOptions {
  db: SqlExecutor;
  /** The schemas of the read models. */
  schemas: TestResultsReadModels;
  /** VERDICT_PUBLIC_URL: the base of the unsigned URLs given when no signer is wired. */
  publicUrl: string;
  signArtifactUrl?: (artifact: ArtifactToSign) => string;
  /** The time a running run's verdicts are judged at (which quarantines were active). */
  clock: Clock;
}

/**
 * The last path segment of an entry that is a URL (the artifact's download address), else the entry.
 * Lets clients send back the URLs they got before as well as bare ids or names.
 */
function artifactKeyOf(entry: string): string {
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(entry)) return entry;
  try {
    const segments = new URL(entry).pathname.split('/').filter(Boolean);
    return decodeURIComponent(segments.at(-1) ?? entry);
  } catch {
    return entry;
  }
}

/** Each `urls` entry with its artifact (by id first, then the oldest of that name), or null. */
function matchArtifacts(
  entries: readonly string[],
  artifacts: readonly ArtifactRow[],
  toDownload: (artifact: ArtifactRow) => ArtifactDownload,
): Record<string, ArtifactDownload | null> {
  const matched: Record<string, ArtifactDownload | null> = {};
  for (const entry of entries) {
    const key = artifactKeyOf(entry);
    const artifact =
      artifacts.find((candidate) => candidate.id === key) ??
      artifacts.find((candidate) => candidate.name === key);
    matched[entry] = artifact ? toDownload(artifact) : null;
  }
  return matched;
}

/**
 * The pagination of an offset window. Its page counts the pages of `limit` before it, a part of one
 * included (offset 1, limit 2 is page 2), so that `hasPrev` is exactly "page is not 1".
 */
function paginationOfOffset(offset: number, limit: number, total: number): Pagination {
  return {
    page: Math.ceil(offset / limit) + 1,
    limit,
    total,
    hasNext: offset + limit < total,
    hasPrev: offset > 0,
  };
}

/**
 * The read routes, paths relative to the service root.
 *
 * @example registerRoutes(router, createReadRoutes({ db, schemas: readModelSchemas(), publicUrl, signArtifactUrl }));
 */
export function createReadRoutes(options: ReadRoutesOptions): BoundRoute[] {
  const store: TestResultsReadStore = { db: options.db, schemas: options.schemas };
  const publicUrl = options.publicUrl.replace(/\/+$/, '');
  const unsignedUrl = (artifact: ArtifactToSign) =>
    `${publicUrl}/api/public/v1/${encodeURIComponent(artifact.projectId)}/test-runs/${encodeURIComponent(artifact.runId)}/artifacts/${encodeURIComponent(artifact.id)}`;
  const sign = options.signArtifactUrl ?? unsignedUrl;

  async function artifactsSection(projectId: string, runId: string, urls: string[] | undefined) {
    if (urls === undefined) return null;
    const rows = await runArtifacts(store, runId, [...new Set(urls.flatMap((u) => [u, artifactKeyOf(u)]))]);
    return matchArtifacts(urls, rows, (artifact) => ({
      id: artifact.id,
      name: artifact.name,
      contentType: artifact.contentType,
      size: artifact.size,
      url: sign({ ...artifact, projectId, runId }),
    }));
  }

  return bindRoutes(testResultsReadRoutes, {
    'get /{projectId}/test-runs': async ({ query }, { projectId }) => {
      const { items, total } = await listRuns(store, projectId, query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
    'get /{projectId}/test-runs/{runId}': async ({ params, query }, { projectId }) => {
      const { runId } = params;
      const { include = [], urls } = query;
      const run = await findRun(store, projectId, runId);
      if (!run) throw new NotFoundError('Test run not found');
      const detail: TestRunDetail = { ...run };
      if (include.includes('errors')) detail.errors = await runErrors(store, runId);
      if (include.includes('coverage')) detail.coverage = await runCoverage(store, runId);
      if (include.includes('specs')) detail.specs = await runSpecs(store, runId);
      if (include.includes('artifacts')) detail.artifacts = await artifactsSection(projectId, runId, urls);
      if (include.includes('failures')) {
        const failures = await runFailures(store, projectId, runId, options.clock.now());
        if (failures) detail.failures = failures;
      }
      if (include.includes('gate')) detail.gate = await runGate(store, projectId, runId);
      return detail;
    },
    'get /{projectId}/test-cases/{caseId}': async ({ params, query }, { projectId }) => {
      const { caseId } = params;
      // Spec §4.10: without history, its parameters are ignored (the query's schema drops them).
      const { include = [], historyPage, historyLimit, historyStatus } = query;
      const testCase = await findTestCase(store, projectId, caseId);
      if (!testCase) throw new NotFoundError('Test case not found');
      const detail: TestCaseDetail = { ...testCase };
      if (include.includes('history')) {
        const { items, total } = await testCaseHistory(store, projectId, caseId, {
          offset: (historyPage - 1) * historyLimit,
          limit: historyLimit,
          outcome: historyStatus,
        });
        detail.history = { items, pagination: paginationOf(historyPage, historyLimit, total) };
      }
      return detail;
    },
    'get /{projectId}/test-cases/{caseId}/history': async ({ params, query }, { projectId }) => {
      const { offset, limit } = query;
      const { caseId } = params;
      if (!(await findTestCase(store, projectId, caseId))) throw new NotFoundError('Test case not found');
      const { items, total } = await testCaseHistory(store, projectId, caseId, { offset, limit });
      return reply.page(items, paginationOfOffset(offset, limit, total));
    },
    'get /{projectId}/specs': async ({ query }, { projectId }) => {
      const { items, total } = await listSpecs(store, projectId, query);
      return reply.page(items, paginationOf(query.page, query.limit, total));
    },
  });
}
