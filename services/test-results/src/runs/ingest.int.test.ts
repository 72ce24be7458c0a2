import {
  RunCiRunClaimed,
  RunCounterAllocated,
  type CoverageReport,
  type RunSummary,
} from '@verdict/contracts';
import {
  ManualClock,
  createSqlEventStore,
  type EventStore,
  type SqlDatabase,
  type StoredEvent,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { ciRunStream } from './ciRun';
import { counterEventId, counterStream } from './counter';
import { realisticResult } from './fixtures';
import { createIngest, type Ingest } from './ingest';
import { runArtifactsStream, runCoverageStream, runResultsStreams, runStream } from './run';
import { testDatabases } from '@verdict/platform/testing/databases';

// The ingest use cases on both adapters of the event store: the embedded mode (PGlite, in memory) and the
// distributed mode (PostgreSQL). Each test gets its own schema.

const ADAPTERS = testDatabases({ postgresPoolSize: 16 });

const projectId = 'project-1';
const coverage: CoverageReport = {
  lines: { total: 100, covered: 80 },
  statements: { total: 120, covered: 90 },
  functions: { total: 20, covered: 15 },
  branches: { total: 40, covered: 22 },
  files: [
    {
      path: 'src/cart.ts',
      lines: { total: 10, covered: 9 },
      statements: { total: 12, covered: 10 },
      functions: { total: 2, covered: 2 },
      branches: { total: 4, covered: 3 },
    },
  ],
};
const artifact = {
  id: 'art-1',
  name: 'trace.zip',
  contentType: 'application/zip',
  size: 2048,
  blobKey: 'blobs/art-1',
  resultRef: 'tests/cart.spec.ts > checkout',
};

const batch = (count: number, from = 0) => Array.from({ length: count }, (_, i) => realisticResult(from + i));
const types = (events: StoredEvent[]) => events.map((event) => event.type);
const range = (count: number) => Array.from({ length: count }, (_, i) => i + 1);

async function refusal(promise: Promise<unknown>): Promise<{ code?: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    return error as { code?: string; message: string };
  }
  throw new Error('expected a refusal');
}

describe.each(ADAPTERS)('ingest on $name', (adapter) => {
  let db: SqlDatabase;
  const schemas: string[] = [];
  let store: EventStore;
  let ingest: Ingest;
  let clock: ManualClock;

  beforeAll(async () => {
    db = await adapter.open();
  }, 60_000);

  afterAll(async () => {
    for (const schema of schemas) await db?.exec(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
    await db?.close();
  });

  beforeEach(async () => {
    const schema = uniqueName('ingest');
    schemas.push(schema);
    store = createSqlEventStore({ db, schema });
    await store.init();
    clock = new ManualClock('2026-03-01T10:00:00.000Z');
    ingest = createIngest({ store, clock });
  });

  async function startedRun(body: Parameters<Ingest['startRun']>[1] = {}): Promise<RunSummary> {
    return (await ingest.startRun(projectId, body)).run;
  }

  /** Every result event of the run, whichever of its streams holds it, in the order they were stored. */
  async function storedResults(runId: string): Promise<StoredEvent[]> {
    const streams = await Promise.all(runResultsStreams(runId).map((stream) => store.readStream(stream)));
    return streams.flat().sort((a, b) => a.globalPosition - b.globalPosition);
  }

  describe('starting', () => {
    it('when a run is started, then it is created running with number 1 and its details, and run.created is recorded', async () => {
      const { run, created } = await ingest.startRun(
        projectId,
        {
          title: 'nightly',
          branch: 'main',
          environment: 'staging',
          commit: { sha: 'abc123', author: 'Ada' },
          tags: ['nightly'],
        },
        { correlationId: 'request-1' },
      );
      expect(created).toBe(true);
      expect(run).toEqual({
        id: expect.any(String),
        counter: 1,
        status: 'running',
        projectId,
        ciRunId: null,
        title: 'nightly',
        branch: 'main',
        environment: 'staging',
        commit: { sha: 'abc123', author: 'Ada' },
        startedAt: '2026-03-01T10:00:00.000Z',
        finishedAt: null,
      });
      const lifecycle = await store.readStream(runStream(run.id));
      expect(lifecycle).toMatchObject([
        { type: 'run.created', projectId, correlationId: 'request-1', data: { runId: run.id, counter: 1 } },
      ]);
    });

    it('when 8 shards start at once with the same ciRunId, then they share one run with one run.created, and 7 joined', async () => {
      const starts = await Promise.all(
        range(8).map((current) =>
          ingest.startRun(projectId, { ciRunId: 'gh-42', shard: { current, total: 8 }, title: 'e2e' }),
        ),
      );
      const runIds = new Set(starts.map((start) => start.run.id));
      expect(runIds.size).toBe(1);
      expect(starts.filter((start) => start.created)).toHaveLength(1);
      expect(starts.map((start) => start.run.counter)).toEqual(range(8).map(() => 1));
      const [runId = ''] = [...runIds];
      const lifecycle = await store.readStream(runStream(runId));
      expect(types(lifecycle).filter((type) => type === 'run.created')).toHaveLength(1);
      expect(types(lifecycle).filter((type) => type === 'run.shard-started')).toHaveLength(8);
      expect(await store.readStream(ciRunStream(projectId, 'gh-42'))).toHaveLength(1);
      expect(await store.readStream(counterStream(projectId))).toHaveLength(1);
    });

    it('when a start is retried or another project uses the same ciRunId, then the retry joins and the other project gets its own run', async () => {
      const first = await ingest.startRun(projectId, { ciRunId: 'build-7' });
      const retried = await ingest.startRun(projectId, { ciRunId: 'build-7' });
      const elsewhere = await ingest.startRun('project-2', { ciRunId: 'build-7' });
      expect(retried).toEqual({ run: first.run, created: false });
      expect(elsewhere.created).toBe(true);
      expect(elsewhere.run.id).not.toBe(first.run.id);
      expect(elsewhere.run.counter).toBe(1);
      expect(types(await store.readStream(runStream(first.run.id)))).toEqual(['run.created']);
    });

    it('when 10 runs are created at once in one project, then their numbers are 1..10, each once', async () => {
      const runs = await Promise.all(range(10).map(() => startedRun()));
      expect(runs.map((run) => run.counter).sort((a, b) => a - b)).toEqual(range(10));
      expect(new Set(runs.map((run) => run.id)).size).toBe(10);
    });

    it('when two replicas (each with its own cache) create runs in turn, then numbers still follow on, never reused', async () => {
      const replica = createIngest({ store, clock });
      const counters: number[] = [];
      for (const next of [ingest, replica, replica, ingest, replica, ingest]) {
        counters.push((await next.startRun(projectId, {})).run.counter);
      }
      expect(counters).toEqual(range(6));
    });

    it('when a start stopped after claiming its ciRunId, then the next start of that ciRunId creates the run', async () => {
      await store.append(
        ciRunStream(projectId, 'gh-9'),
        [RunCiRunClaimed.of({ runId: 'run-orphan', projectId, ciRunId: 'gh-9' })],
        { expectedVersion: 'no_stream', projectId },
      );
      const { run, created } = await ingest.startRun(projectId, { ciRunId: 'gh-9' });
      expect(created).toBe(true);
      expect(run).toMatchObject({ id: 'run-orphan', counter: 1, status: 'running' });
    });

    it('when a start stopped after numbering its run, then the run keeps that number and no number is skipped', async () => {
      await store.append(
        ciRunStream(projectId, 'gh-9'),
        [RunCiRunClaimed.of({ runId: 'run-orphan', projectId, ciRunId: 'gh-9' })],
        { expectedVersion: 'no_stream', projectId },
      );
      await store.append(
        counterStream(projectId),
        [
          {
            ...RunCounterAllocated.of({ runId: 'run-orphan', counter: 1 }),
            eventId: counterEventId('run-orphan'),
          },
        ],
        { expectedVersion: 'no_stream', projectId },
      );
      const orphan = await startedRun({ ciRunId: 'gh-9' });
      const next = await startedRun();
      expect([orphan.counter, next.counter]).toEqual([1, 2]);
      expect(await store.readStream(counterStream(projectId))).toHaveLength(2);
    });
  });

  describe('results', () => {
    it('when the same batch is sent twice, then the first is accepted and the second is all duplicates', async () => {
      const run = await startedRun();
      const results = batch(50);
      expect(await ingest.addResults(projectId, run.id, results)).toEqual({ accepted: 50, duplicates: 0 });
      expect(await ingest.addResults(projectId, run.id, results)).toEqual({ accepted: 0, duplicates: 50 });
      const stored = await storedResults(run.id);
      expect(stored).toHaveLength(50);
      expect(stored.map((event) => event.data)).toEqual(results.map((item) => ({ runId: run.id, item })));
    });

    it('when a batch overlaps what is stored and repeats an item, then only new results are accepted', async () => {
      const run = await startedRun();
      await ingest.addResults(projectId, run.id, batch(10));
      const retry = realisticResult(3, { attempt: 1, status: 'passed' });
      const answer = await ingest.addResults(projectId, run.id, [...batch(10, 5), retry, retry]);
      expect(answer).toEqual({ accepted: 6, duplicates: 6 });
      expect(await storedResults(run.id)).toHaveLength(16);
    });

    it('when a batch holds one bad item, then it is refused naming its index and field, and nothing is stored', async () => {
      const run = await startedRun();
      const results: unknown[] = batch(20);
      results[13] = { ...realisticResult(13), titlePath: [] };
      const error = await refusal(ingest.addResults(projectId, run.id, results));
      expect(error).toMatchObject({ code: 'VALIDATION_ERROR' });
      expect(error.message).toMatch(/^results\[13\]\.titlePath: /);
      expect(error.message.split('; ')).toHaveLength(1);
      expect(await storedResults(run.id)).toEqual([]);
    });

    it('when a batch of 1,000 realistic results is sent, then all are accepted and stored in one go', async () => {
      const run = await startedRun();
      expect(await ingest.addResults(projectId, run.id, batch(1_000))).toEqual({
        accepted: 1_000,
        duplicates: 0,
      });
      const stored = await storedResults(run.id);
      expect(stored).toHaveLength(1_000);
      expect(new Set(stored.map((event) => event.globalPosition)).size).toBe(1_000);
    });

    it('when requests with overlapping batches race, then every result is stored once', async () => {
      const run = await startedRun();
      const answers = await Promise.all(
        [0, 100, 200, 0, 100, 200].map((from) => ingest.addResults(projectId, run.id, batch(200, from))),
      );
      // Each stored result was accepted by some request (a request racing an identical one may count
      // as accepted what the other stored: either way it is stored once).
      expect(answers.reduce((sum, answer) => sum + answer.accepted, 0)).toBeGreaterThanOrEqual(400);
      const stored = await storedResults(run.id);
      expect(stored).toHaveLength(400);
      expect(new Set(stored.map((event) => event.eventId)).size).toBe(400);
    });

    it("when a run's shards send different batches at once, then each batch lands whole in one of the run's result streams and they spread over several", async () => {
      const run = await startedRun();
      const batches = Array.from({ length: 8 }, (_, shard) => batch(25, shard * 25));
      const answers = await Promise.all(
        batches.map((results) => ingest.addResults(projectId, run.id, results)),
      );
      expect(answers).toEqual(batches.map(() => ({ accepted: 25, duplicates: 0 })));
      const streams = (await Promise.all(runResultsStreams(run.id).map((stream) => store.readStream(stream))))
        .filter((events) => events.length > 0)
        .map(
          (events) =>
            new Set(
              events.map((event) => (event.data as { item: { titlePath: string[] } }).item.titlePath.at(-1)),
            ),
        );
      expect(streams.length).toBeGreaterThan(1);
      expect(streams.reduce((sum, titles) => sum + titles.size, 0)).toBe(200);
      // A repeat of a batch finds its results where they are, whichever stream holds them.
      expect(await ingest.addResults(projectId, run.id, batches[3] ?? [])).toEqual({
        accepted: 0,
        duplicates: 25,
      });
      expect(await storedResults(run.id)).toHaveLength(200);
    });

    it('when results are sent to a run that does not exist or belongs to another project, then NOT_FOUND', async () => {
      const run = await startedRun();
      expect(await refusal(ingest.addResults(projectId, 'no-such-run', batch(1)))).toMatchObject({
        code: 'NOT_FOUND',
      });
      expect(await refusal(ingest.addResults('project-2', run.id, batch(1)))).toMatchObject({
        code: 'NOT_FOUND',
      });
      expect(await storedResults(run.id)).toEqual([]);
    });
  });

  describe('artifacts and coverage', () => {
    it('when an artifact is recorded twice, then it is recorded once and both answers are the first record', async () => {
      const run = await startedRun();
      const first = await ingest.recordArtifact(projectId, run.id, artifact);
      const again = await ingest.recordArtifact(projectId, run.id, { ...artifact, size: 1 });
      expect(first).toEqual(artifact);
      expect(again).toEqual(artifact);
      expect(await store.readStream(runArtifactsStream(run.id))).toMatchObject([
        { type: 'run.artifact-added', data: { runId: run.id, artifact } },
      ]);
    });

    it('when an artifact has no result, then it is an artifact of the run (resultRef null)', async () => {
      const run = await startedRun();
      const { resultRef: _resultRef, ...ofRun } = artifact;
      expect(await ingest.recordArtifact(projectId, run.id, ofRun)).toEqual({ ...ofRun, resultRef: null });
    });

    it('when coverage is added, then it is recorded with its files; the same report again is recorded once', async () => {
      const run = await startedRun();
      expect(await ingest.addCoverage(projectId, run.id, coverage)).toEqual(coverage);
      await ingest.addCoverage(projectId, run.id, coverage);
      const updated = { ...coverage, lines: { total: 100, covered: 85 } };
      await ingest.addCoverage(projectId, run.id, updated);
      const stored = await store.readStream(runCoverageStream(run.id));
      expect(stored.map((event) => (event.data as { coverage: CoverageReport }).coverage)).toEqual([
        coverage,
        updated,
      ]);
    });
  });

  describe('finishing', () => {
    it('when a run without shards is finished, then it is finished at once; a retried finish returns the same run and records nothing', async () => {
      const run = await startedRun();
      clock.advance(60_000);
      const finished = await ingest.finish(projectId, run.id, { status: 'passed' });
      expect(finished).toEqual({ ...run, status: 'finished', finishedAt: '2026-03-01T10:01:00.000Z' });
      clock.advance(60_000);
      expect(await ingest.finish(projectId, run.id, { status: 'failed' })).toEqual(finished);
      const lifecycle = await store.readStream(runStream(run.id));
      expect(types(lifecycle)).toEqual(['run.created', 'run.finished']);
      expect(lifecycle[1]?.data).toMatchObject({ status: 'passed' });
    });

    it('when finishes of one run are retried at once, then run.finished is recorded exactly once', async () => {
      const run = await startedRun();
      const answers = await Promise.all(range(6).map(() => ingest.finish(projectId, run.id, {})));
      expect(new Set(answers.map((answer) => JSON.stringify(answer))).size).toBe(1);
      expect(types(await store.readStream(runStream(run.id)))).toEqual(['run.created', 'run.finished']);
    });

    it('when a run has 3 shards, then it finishes only after the third shard finished', async () => {
      const [one, two, three] = await Promise.all(
        range(3).map((current) => startedRun({ ciRunId: 'gh-3', shard: { current, total: 3 } })),
      );
      const runId = one?.id ?? '';
      expect([two?.id, three?.id]).toEqual([runId, runId]);
      const shard = (current: number) => ({ shard: { current, total: 3 } });
      expect(await ingest.finish(projectId, runId, { ...shard(2), status: 'passed' })).toMatchObject({
        status: 'running',
        finishedAt: null,
      });
      expect(await ingest.finish(projectId, runId, { ...shard(2), status: 'passed' })).toMatchObject({
        status: 'running',
      });
      expect(await ingest.finish(projectId, runId, { ...shard(1), status: 'failed' })).toMatchObject({
        status: 'running',
      });
      await ingest.addResults(projectId, runId, batch(5));
      expect(await ingest.finish(projectId, runId, { ...shard(3), status: 'passed' })).toMatchObject({
        status: 'finished',
      });
      const lifecycle = await store.readStream(runStream(runId));
      expect(types(lifecycle).filter((type) => type === 'run.shard-finished')).toHaveLength(3);
      expect(lifecycle.filter((event) => event.type === 'run.finished')).toMatchObject([
        { data: { runId, status: 'failed' } },
      ]);
    });

    it('when a sharded run is finished without naming the shard, then it is a VALIDATION_ERROR and it keeps running', async () => {
      const run = await startedRun({ ciRunId: 'gh-5', shard: { current: 1, total: 2 } });
      expect(await refusal(ingest.finish(projectId, run.id, {}))).toMatchObject({
        code: 'VALIDATION_ERROR',
        message: expect.stringMatching(/^shard: is required/),
      });
      expect(types(await store.readStream(runStream(run.id)))).not.toContain('run.finished');
    });

    it('when results, an artifact or coverage come after the finish, then RUN_FINISHED and nothing is stored', async () => {
      const run = await startedRun();
      await ingest.addResults(projectId, run.id, batch(3));
      await ingest.finish(projectId, run.id, {});
      const late = [
        ingest.addResults(projectId, run.id, batch(3, 3)),
        ingest.recordArtifact(projectId, run.id, artifact),
        ingest.addCoverage(projectId, run.id, coverage),
      ];
      for (const attempt of late) expect(await refusal(attempt)).toMatchObject({ code: 'RUN_FINISHED' });
      expect(await storedResults(run.id)).toHaveLength(3);
      expect(await store.readStream(runArtifactsStream(run.id))).toEqual([]);
      expect(await store.readStream(runCoverageStream(run.id))).toEqual([]);
    });

    it('when an unknown run or a run of another project is finished, then NOT_FOUND', async () => {
      const run = await startedRun();
      expect(await refusal(ingest.finish(projectId, 'no-such-run', {}))).toMatchObject({ code: 'NOT_FOUND' });
      expect(await refusal(ingest.finish('project-2', run.id, {}))).toMatchObject({ code: 'NOT_FOUND' });
    });
  });
});
