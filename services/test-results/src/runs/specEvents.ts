/**
 * FOR TESTS ONLY: the events of one run as a read model's projectionSpec states them (run-1 of project-1,
 * its lifecycle on `run-run-1`, its results on `run-run-1-results`).
 */
import {
  RunArtifactAdded,
  RunCoverageAdded,
  RunCreated,
  RunFinished,
  TestResultRecorded,
  type ResultItem,
} from '@verdict/contracts';

export const PROJECT = 'project-1';
export const RUN = 'run-1';
export const FILE = 'tests/cart.spec.ts';
const at = '2026-03-01T10:00:00.000Z';

export const runCreated = (overrides: Partial<Parameters<typeof RunCreated.of>[0]> = {}) => ({
  ...RunCreated.of({
    runId: RUN,
    projectId: PROJECT,
    counter: 1,
    ciRunId: null,
    title: 'nightly',
    branch: 'main',
    environment: null,
    commit: { sha: 'abc' },
    ci: null,
    framework: { name: 'playwright' },
    shardTotal: null,
    startedAt: at,
    tags: [],
    ...overrides,
  }),
  streamId: `run-${overrides.runId ?? RUN}`,
});

export const runFinished = (status: 'passed' | 'failed' | null = null, runId = RUN) => ({
  ...RunFinished.of({ runId, finishedAt: '2026-03-01T10:05:00.000Z', status }),
  streamId: `run-${runId}`,
});

/** An attempt of `title` in the Cart describe; a failed one carries an error at line 12. */
export function resultOf(
  title: string,
  attempt: number,
  status: ResultItem['status'],
  extra: Partial<ResultItem> = {},
  runId = RUN,
) {
  const item: ResultItem = {
    file: FILE,
    titlePath: ['Cart', title],
    project: 'chromium',
    attempt,
    status,
    durationMs: 100 + attempt,
    startedAt: new Date(Date.UTC(2026, 2, 1, 10, 0, attempt)).toISOString(),
    ...(status === 'failed' && {
      error: { message: `Error: ${title} broke`, location: { file: FILE, line: 12, column: 3 } },
    }),
    ...extra,
  };
  return { ...TestResultRecorded.of({ runId, item }), streamId: `run-${runId}-results` };
}

export const coverageAdded = (covered: number, addedAt: string) => ({
  ...RunCoverageAdded.of({
    runId: RUN,
    coverage: {
      lines: { total: 100, covered },
      statements: { total: 100, covered },
      functions: { total: 10, covered: 5 },
      branches: { total: 10, covered: 5 },
    },
    addedAt,
  }),
  streamId: `run-${RUN}-artifacts`,
});

export const artifactAdded = (id: string) => ({
  ...RunArtifactAdded.of({
    runId: RUN,
    artifact: {
      id,
      name: `${id}.zip`,
      contentType: 'application/zip',
      size: 10,
      blobKey: `blobs/${id}`,
      resultRef: null,
    },
    addedAt: at,
  }),
  streamId: `run-${RUN}-artifacts`,
});
