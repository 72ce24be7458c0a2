import { testCaseIdOf, type ResultItem } from '@verdict/contracts';
import {
  ManualClock,
  START,
  createSqlEventStore,
  type EventStore,
  type GlobalCursor,
  type Projector,
  type SqlDatabase,
  type StoredEvent,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { createIngest, type Ingest } from './ingest';
import { testResultsReadModels } from '../module';
import { readModelsUnder } from '../testing';
import type { TestResultsReadModels } from '../readStore';
import { testDatabases } from '@verdict/platform/testing/databases';

// The read models fed with the events the write side really records (ingest over the SQL event store),
// on both adapters. Each test gets its own event store schema and its own read model schemas.

const ADAPTERS = testDatabases({ postgresPoolSize: 8 });

const projectId = 'project-1';
const FILE = 'tests/cart.spec.ts';

function result(
  title: string,
  attempt: number,
  status: ResultItem['status'],
  extra: Partial<ResultItem> = {},
) {
  return {
    file: FILE,
    titlePath: ['Cart', title],
    project: 'chromium',
    attempt,
    status,
    durationMs: 100 + attempt,
    startedAt: new Date(Date.UTC(2026, 2, 1, 10, 0, attempt)).toISOString(),
    ...(status === 'failed' && {
      error: {
        message: `Error: ${title} broke`,
        stack: `Error: ${title} broke\n    at ${FILE}:12:3`,
        location: { file: FILE, line: 12, column: 3 },
      },
    }),
    ...extra,
  } satisfies ResultItem;
}

const coverage = (covered: number) => ({
  lines: { total: 100, covered },
  statements: { total: 100, covered },
  functions: { total: 10, covered: 5 },
  branches: { total: 10, covered: 5 },
});

describe.each(ADAPTERS)('the read models fed by ingest on $name', (adapter) => {
  let db: SqlDatabase;
  const created: string[] = [];
  let store: EventStore;
  let ingest: Ingest;
  let clock: ManualClock;
  let schemas: TestResultsReadModels;
  let projector: Projector;
  let cursor: GlobalCursor;

  beforeAll(async () => {
    db = await adapter.open();
  }, 60_000);

  afterAll(async () => {
    for (const schema of created) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  beforeEach(async () => {
    const storeSchema = uniqueName('runs_store');
    created.push(storeSchema);
    store = createSqlEventStore({ db, schema: storeSchema });
    await store.init();
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    ingest = createIngest({ store, clock });
    ({ projector, schemas } = await readModelsUnder(db, uniqueName('runs_read')));
    created.push(...Object.values(schemas));
    cursor = START;
  });

  /** Reads what the store recorded since the last call. */
  async function newEvents(): Promise<StoredEvent[]> {
    const { events, cursor: next } = await store.readAll({ after: cursor, limit: 10_000 });
    cursor = next;
    return events;
  }

  /** Projects what the store recorded since the last call. */
  async function project(): Promise<void> {
    await projector.applyEvents(await newEvents());
  }

  async function runRow(runId: string) {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT status, outcome, total, passed, failed, flaky, skipped, finished_at IS NOT NULL AS finished
       FROM ${schemas.runList}.runs WHERE id = $1`,
      [runId],
    );
    return rows[0];
  }

  async function outcomes(runId: string): Promise<Record<string, string>> {
    const { rows } = await db.query<{ title: string; outcome: string }>(
      `SELECT c.title, t.outcome FROM ${schemas.runList}.run_tests t
       JOIN ${schemas.caseHistory}.test_cases c ON c.project_id = t.project_id AND c.id = t.test_case_id
       WHERE t.run_id = $1`,
      [runId],
    );
    return Object.fromEntries(rows.map((row) => [row.title, row.outcome]));
  }

  async function dump(): Promise<Record<string, unknown[]>> {
    const tables = { runs: 'id', test_cases: 'id', run_tests: 'run_id, test_case_id, project' };
    const extra = {
      results: 'run_id, test_case_id, project, attempt',
      artifacts: 'run_id, id',
      coverage: 'run_id',
    };
    const owner: Record<string, keyof TestResultsReadModels> = {
      runs: 'runList',
      run_tests: 'runList',
      test_cases: 'caseHistory',
      results: 'runResults',
      artifacts: 'runArtifacts',
      coverage: 'runCoverage',
    };
    const all: Record<string, unknown[]> = {};
    for (const [table, order] of Object.entries({ ...tables, ...extra })) {
      all[table] = (
        await db.query(`SELECT * FROM ${schemas[owner[table] ?? 'runList']}.${table} ORDER BY ${order}`)
      ).rows;
    }
    return all;
  }

  async function startedRun(): Promise<string> {
    const { run } = await ingest.startRun(projectId, {
      title: 'nightly',
      branch: 'main',
      commit: { sha: 'abc' },
    });
    return run.id;
  }

  it('when a run records a pass, a retry that passed, a test that failed every attempt and a skip, then each gets its outcome and the run its stats', async () => {
    const runId = await startedRun();
    await ingest.addResults(projectId, runId, [
      result('pays', 0, 'passed'),
      result('retries', 0, 'failed'),
      result('retries', 1, 'passed'),
      result('breaks', 0, 'failed'),
      result('breaks', 1, 'timedOut'),
      result('waits', 0, 'skipped'),
    ]);
    await ingest.finish(projectId, runId, {});
    await project();

    expect(await outcomes(runId)).toEqual({
      pays: 'passed',
      retries: 'flaky',
      breaks: 'failed',
      waits: 'skipped',
    });
    expect(await runRow(runId)).toEqual({
      status: 'finished',
      outcome: 'failed',
      total: 4,
      passed: 1,
      failed: 1,
      flaky: 1,
      skipped: 1,
      finished: true,
    });
  });

  it('when every test passed or was flaky and the run finished without a status, then its outcome is passed', async () => {
    const runId = await startedRun();
    await ingest.addResults(projectId, runId, [
      result('pays', 0, 'passed'),
      result('retries', 0, 'failed'),
      result('retries', 1, 'passed'),
    ]);
    await project();
    expect(await runRow(runId)).toMatchObject({ status: 'running', outcome: null, total: 2 });

    await ingest.finish(projectId, runId, {});
    await project();
    expect(await runRow(runId)).toMatchObject({ status: 'finished', outcome: 'passed', passed: 1, flaky: 1 });
  });

  it('when the runner reports a failed run although no test failed, then its outcome is failed', async () => {
    const runId = await startedRun();
    await ingest.addResults(projectId, runId, [result('pays', 0, 'passed')]);
    await ingest.finish(projectId, runId, { status: 'failed' });
    await project();
    expect(await runRow(runId)).toMatchObject({ outcome: 'failed', passed: 1, failed: 0 });
  });

  it('when a retry that passed is projected before the failed first attempt, then the test ends flaky and the stats follow each batch', async () => {
    const runId = await startedRun();
    await project();
    await ingest.addResults(projectId, runId, [result('retries', 1, 'passed'), result('pays', 0, 'passed')]);
    await project();
    expect(await outcomes(runId)).toEqual({ retries: 'passed', pays: 'passed' });
    expect(await runRow(runId)).toMatchObject({ total: 2, passed: 2, flaky: 0 });

    await ingest.addResults(projectId, runId, [result('retries', 0, 'failed')]);
    await project();
    expect(await outcomes(runId)).toEqual({ retries: 'flaky', pays: 'passed' });
    expect(await runRow(runId)).toMatchObject({ total: 2, passed: 1, flaky: 1 });

    const { rows } = await db.query<{
      attempts: number;
      error_message: string | null;
      error_line: number | null;
    }>(
      `SELECT attempts, error_message, error_line FROM ${schemas.runList}.run_tests WHERE test_case_id = $1`,
      [testCaseIdOf({ file: FILE, titlePath: ['Cart', 'retries'] })],
    );
    expect(rows).toEqual([{ attempts: 2, error_message: 'Error: retries broke', error_line: 12 }]);
  });

  async function runTest(title: string) {
    const { rows } = await db.query<Record<string, unknown>>(
      `SELECT outcome, attempts, duration_ms, error_message FROM ${schemas.runList}.run_tests
       WHERE test_case_id = $1`,
      [testCaseIdOf({ file: FILE, titlePath: ['Cart', title] })],
    );
    return rows[0];
  }

  const failedWith = (title: string, attempt: number, message: string) =>
    result(title, attempt, 'failed', { error: { message } });

  it('when a later failed attempt is projected before an earlier one, then the test keeps the error of the later attempt', async () => {
    const runId = await startedRun();
    await ingest.addResults(projectId, runId, [failedWith('flips', 2, 'third try broke')]);
    await project();
    await ingest.addResults(projectId, runId, [failedWith('flips', 0, 'first try broke')]);
    await project();
    expect(await runTest('flips')).toEqual({
      outcome: 'failed',
      attempts: 2,
      duration_ms: 100 + 2 + 100 + 0,
      error_message: 'third try broke',
    });
  });

  it('when a run gets its results over many batches whose retries change earlier outcomes, then its stats always equal a count of its tests', async () => {
    const runId = await startedRun();
    await project();
    const statuses: ResultItem['status'][] = ['passed', 'failed', 'skipped', 'timedOut'];
    for (let round = 0; round < 4; round += 1) {
      // Each round retries every test once more; a test's fate changes from round to round.
      const batch = Array.from({ length: 12 }, (_, test) =>
        result(`test ${test}`, round, statuses[(test * 7 + round * 3) % statuses.length] ?? 'passed'),
      );
      await ingest.addResults(projectId, runId, batch.slice(0, 6));
      await ingest.addResults(projectId, runId, batch.slice(6));
      await project();
      const { rows } = await db.query<Record<string, number>>(
        `SELECT count(*)::int AS total,
           count(*) FILTER (WHERE outcome = 'passed')::int AS passed,
           count(*) FILTER (WHERE outcome = 'failed')::int AS failed,
           count(*) FILTER (WHERE outcome = 'flaky')::int AS flaky,
           count(*) FILTER (WHERE outcome = 'skipped')::int AS skipped
         FROM ${schemas.runList}.run_tests WHERE run_id = $1`,
        [runId],
      );
      expect(await runRow(runId)).toMatchObject(rows[0] ?? {});
    }
    expect(await runRow(runId)).toMatchObject({ total: 12 });
  });

  it('when results are projected before their run.created, then the run gets their stats once it arrives', async () => {
    const runId = await startedRun();
    await ingest.addResults(projectId, runId, [result('pays', 0, 'passed'), result('breaks', 0, 'failed')]);
    const events = await newEvents();
    const lifecycle = events.filter((event) => event.streamId === `run-${runId}`);
    const others = events.filter((event) => event.streamId !== `run-${runId}`);
    await projector.applyEvents(others);
    expect(await runRow(runId)).toBeUndefined();

    await projector.applyEvents(lifecycle);
    expect(await runRow(runId)).toMatchObject({ total: 2, passed: 1, failed: 1 });
  });

  it('when a test runs on two platforms, then it is one test case with both platforms and one run_tests row each', async () => {
    const runId = await startedRun();
    await ingest.addResults(projectId, runId, [
      result('pays', 0, 'passed', { tags: ['@smoke'] }),
      result('pays', 0, 'failed', { project: 'firefox', tags: ['@cart'] }),
    ]);
    await project();
    const cases = await db.query(
      `SELECT id, title, title_path, platforms, tags FROM ${schemas.caseHistory}.test_cases`,
    );
    expect(cases.rows).toEqual([
      {
        id: testCaseIdOf({ file: FILE, titlePath: ['Cart', 'pays'] }),
        title: 'pays',
        title_path: ['Cart', 'pays'],
        platforms: ['chromium', 'firefox'],
        tags: ['@cart', '@smoke'],
      },
    ]);
    expect(await runRow(runId)).toMatchObject({ total: 2, passed: 1, failed: 1 });
  });

  it('when a run gets two coverage reports and artifacts, then the latest report is kept and every artifact', async () => {
    const runId = await startedRun();
    await ingest.addCoverage(projectId, runId, coverage(50));
    clock.advance(1_000);
    await ingest.addCoverage(projectId, runId, coverage(70));
    for (const id of ['art-1', 'art-2']) {
      await ingest.recordArtifact(projectId, runId, {
        id,
        name: `${id}.zip`,
        contentType: 'application/zip',
        size: 10,
        blobKey: `blobs/${id}`,
      });
    }
    await project();
    const report = await db.query<{ report: { lines: { covered: number } } }>(
      `SELECT report FROM ${schemas.runCoverage}.coverage WHERE run_id = $1`,
      [runId],
    );
    expect(report.rows.map((row) => row.report.lines.covered)).toEqual([70]);
    const artifacts = await db.query(`SELECT id, size FROM ${schemas.runArtifacts}.artifacts ORDER BY id`);
    expect(artifacts.rows).toEqual([
      { id: 'art-1', size: '10' },
      { id: 'art-2', size: '10' },
    ]);
  });

  it('when the same events are applied twice, bypassing the checkpoints, then the tables are identical', async () => {
    const runId = await startedRun();
    await ingest.addResults(projectId, runId, [
      result('pays', 0, 'passed'),
      result('retries', 0, 'failed'),
      result('retries', 1, 'passed'),
      result('waits', 0, 'skipped'),
    ]);
    await ingest.addCoverage(projectId, runId, coverage(60));
    await ingest.recordArtifact(projectId, runId, {
      id: 'art-1',
      name: 'trace.zip',
      contentType: 'application/zip',
      size: 10,
      blobKey: 'blobs/art-1',
    });
    await ingest.finish(projectId, runId, {});
    const events = await newEvents();
    // Each read model gets the events it reads, as its projector hands them over.
    const applyAll = () =>
      db.transaction(async (tx) => {
        for (const projection of testResultsReadModels(schemas)) {
          const handled = events.filter((event) => projection.canHandle?.includes(event.type) ?? true);
          await projection.apply(tx, handled, projection.name);
        }
      });
    await applyAll();
    const once = await dump();
    await applyAll();
    expect(await dump()).toEqual(once);
    expect(once.run_tests).toHaveLength(3);
    expect(once.results).toHaveLength(4);
  });

  it('when a result batch of 2,000 tests is projected in one go, then every test is counted', async () => {
    const runId = await startedRun();
    const many = Array.from({ length: 2_000 }, (_, i) =>
      result(`test ${i}`, 0, i % 10 === 0 ? 'failed' : 'passed'),
    );
    for (let from = 0; from < many.length; from += 500) {
      await ingest.addResults(projectId, runId, many.slice(from, from + 500));
    }
    await project();
    expect(await runRow(runId)).toMatchObject({ total: 2_000, passed: 1_800, failed: 200 });
  }, 60_000);
});
