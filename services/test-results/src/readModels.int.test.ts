import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { errorSignature, testCaseIdOf, type ResultItem } from '@verdict/contracts';
import {
  createFilesystemBlobStore,
  createInProcessBus,
  createMemoryCheckpointStore,
  createSqlEventStore,
  INTERNAL_IDENTITY_HEADER,
  ManualClock,
  mintInternalToken,
  newSecret,
  silentLogger,
  type EventBus,
  type SqlDatabase,
} from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { testDatabases } from '@verdict/platform/testing/databases';
import { createTestResultsModule, testResultsReadModels, type TestResultsModule } from './module';
import { readModelSchemas } from './readStore';
import { serveOverHttp } from './testing';

// Every read of a seeded project answers byte for byte the same after each read model is rebuilt from
// position 0: after a version bump, and when the slices take over from the single read model of earlier
// versions.

const PROJECT = 'project-1';
const secret = newSecret(32);
const clock = new ManualClock('2026-03-10T00:00:00.000Z');
const SHOP = 'tests/shop.spec.ts';
const LOGIN = 'tests/login.spec.ts';

function result(file: string, title: string, attempt: number, status: ResultItem['status'], extra = {}) {
  return {
    file,
    titlePath: [file === SHOP ? 'Shop' : 'Login', title],
    project: 'chromium',
    attempt,
    status,
    durationMs: 100 + attempt,
    startedAt: new Date(Date.UTC(2026, 2, 1, 10, 0, attempt)).toISOString(),
    steps: [{ title: 'page.goto', durationMs: 20 }],
    stdout: [`${title} ${attempt}\n`],
    ...(status === 'failed' && {
      error: {
        message: `Error: ${title} broke`,
        stack: `Error: ${title} broke\n    at ${file}:12:3`,
        location: { file, line: 12, column: 3 },
      },
      attachments: [{ name: 'trace', contentType: 'application/zip', artifactId: 'art-1' }],
    }),
    ...extra,
  } satisfies ResultItem;
}

/** Runs with passes, failures, a flaky retry, a skip, two platforms, two spec files, shards, artifacts and coverage. */
async function seed(module: TestResultsModule): Promise<{ runs: string[]; cases: string[] }> {
  const { ingest } = module;
  const framework = { name: 'playwright', version: '1.50.0' };
  const first = (
    await ingest.startRun(PROJECT, {
      title: 'nightly',
      branch: 'main',
      commit: { sha: 'abc123', message: 'Pay', author: 'Ada' },
      ci: { provider: 'github', buildId: '7', url: 'https://ci.example/7' },
      framework,
      startedAt: '2026-03-01T10:00:00.000Z',
    })
  ).run.id;
  await ingest.addResults(PROJECT, first, [
    result(SHOP, 'pays', 0, 'passed'),
    result(SHOP, 'pays', 0, 'failed', { project: 'firefox' }),
    result(SHOP, 'retries', 0, 'failed'),
    result(SHOP, 'retries', 1, 'passed'),
    result(SHOP, 'waits', 0, 'skipped'),
    result(LOGIN, 'logs in', 0, 'failed'),
    result(LOGIN, 'logs in', 1, 'failed'),
  ]);
  await ingest.recordArtifact(PROJECT, first, {
    id: 'art-1',
    name: 'trace.zip',
    contentType: 'application/zip',
    size: 10,
    blobKey: 'blobs/art-1',
  });
  await ingest.addCoverage(PROJECT, first, {
    lines: { total: 100, covered: 70 },
    statements: { total: 100, covered: 70 },
    functions: { total: 10, covered: 5 },
    branches: { total: 10, covered: 5 },
  });
  await ingest.finish(PROJECT, first, { finishedAt: '2026-03-01T10:05:00.000Z' });

  const sharded = (
    await ingest.startRun(PROJECT, {
      ciRunId: 'gh-8',
      branch: 'feature',
      framework,
      shard: { current: 1, total: 2 },
      startedAt: '2026-03-02T10:00:00.000Z',
    })
  ).run.id;
  await ingest.startRun(PROJECT, { ciRunId: 'gh-8', shard: { current: 2, total: 2 } });
  await ingest.addResults(PROJECT, sharded, [
    result(SHOP, 'pays', 0, 'passed'),
    result(LOGIN, 'logs in', 0, 'failed'),
  ]);
  await ingest.finish(PROJECT, sharded, { shard: { current: 1, total: 2 } });

  const running = (
    await ingest.startRun(PROJECT, { title: 'still going', startedAt: '2026-03-03T10:00:00.000Z' })
  ).run.id;
  await ingest.addResults(PROJECT, running, [result(SHOP, 'pays', 0, 'passed')]);
  const cases = [
    testCaseIdOf({ file: SHOP, titlePath: ['Shop', 'pays'] }),
    testCaseIdOf({ file: SHOP, titlePath: ['Shop', 'retries'] }),
    testCaseIdOf({ file: LOGIN, titlePath: ['Login', 'logs in'] }),
  ];
  return { runs: [first, sharded, running], cases };
}

const loginSignature = errorSignature({
  message: 'Error: logs in broke',
  stack: `Error: logs in broke\n    at ${LOGIN}:12:3`,
  location: { file: LOGIN },
  testFile: LOGIN,
}).id;

function readsOf({ runs, cases }: { runs: string[]; cases: string[] }): string[] {
  const [first = '', sharded = ''] = runs;
  return [
    '/test-runs',
    '/test-runs?status=failed',
    '/test-runs?status=running',
    '/test-runs?branch=main',
    '/test-runs?search=gh-8',
    '/test-runs?page=2&limit=1',
    ...runs.map((run) => `/test-runs/${run}?include=all&urls=art-1,trace.zip,missing`),
    `/test-runs/${sharded}`,
    ...cases.flatMap((id) => [
      `/test-cases/${id}?include=history`,
      `/test-cases/${id}?include=history&historyStatus=failed&historyLimit=1`,
      `/test-cases/${id}/history?offset=1&limit=1`,
    ]),
    '/specs',
    '/specs?limit=1&page=2',
    '/errors',
    '/errors?branch=feature&sortBy=firstSeen&sortOrder=asc',
    `/errors/${loginSignature}`,
    `/debug-bundle?runId=${first}`,
    `/debug-bundle?runId=${first}&as=markdown`,
    `/debug-bundle?runId=${first}&suiteId=${encodeURIComponent(SHOP)}`,
    `/debug-bundle?runId=${first}&suiteId=${encodeURIComponent(LOGIN)}&as=markdown&budgetChars=600`,
    ...cases.flatMap((id) => [
      `/debug-bundle?caseId=${id}&runId=${first}`,
      `/debug-bundle?caseId=${id}&as=markdown`,
      `/debug-bundle?caseId=${id}&runId=${first}&attempt=0&view=brief`,
    ]),
  ];
}

describe.each(testDatabases())('the read models rebuilt on $name', (database) => {
  let db: SqlDatabase;
  let bus: EventBus;
  let blobDir: string;
  const names = {
    storeSchema: uniqueName('tr'),
    topic: uniqueName('tr'),
    readModelSchema: uniqueName('trr'),
    // The gateway's store, which the members read model is rebuilt from.
    identityStoreSchema: uniqueName('gwi'),
  };

  function start(): TestResultsModule {
    return createTestResultsModule(
      {
        db,
        bus,
        blobs: createFilesystemBlobStore({ root: blobDir }),
        checkpoints: createMemoryCheckpointStore(),
        clock,
        logger: silentLogger(),
      },
      {
        internalSecret: secret,
        artifactMaxBytes: 1024,
        publicUrl: 'https://verdict.example.com',
        urlSigningSecret: 'a-fixed-signing-secret-of-32-bytes!',
        names,
      },
    );
  }

  /** Every answer as its status, content type and body text. */
  async function answers(module: TestResultsModule, reads: string[]): Promise<Record<string, string>> {
    await module.start();
    const { server, base } = await serveOverHttp(module);
    try {
      const identity = { organizationId: 'o', projectId: PROJECT, userId: 'u', role: 'member' as const };
      const token = mintInternalToken(
        { ...identity, scopes: ['public-api'], tokenId: 't' },
        {
          secret,
          now: clock.now(),
        },
      );
      const all: Record<string, string> = {};
      for (const read of reads) {
        const answer = await fetch(`${base}/${PROJECT}${read}`, {
          headers: { [INTERNAL_IDENTITY_HEADER]: token },
        });
        expect([read, answer.status]).toEqual([read, 200]);
        all[read] = `${answer.headers.get('content-type')}\n${await answer.text()}`;
      }
      return all;
    } finally {
      await new Promise((resolve) => server.close(resolve));
      await module.stop();
    }
  }

  beforeAll(async () => {
    db = await database.open();
    bus = createInProcessBus();
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-read-models-'));
    await createSqlEventStore({ db, schema: names.identityStoreSchema }).init();
  });
  afterAll(async () => {
    await bus.close();
    await db.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('when every read model is rebuilt from position 0 (a version bump, then a takeover from the single read model), then every GET answers byte for byte the same', async () => {
    const first = start();
    await first.start();
    const reads = readsOf(await seed(first));
    await first.stop();
    const before = await answers(start(), reads);
    expect(Object.keys(before)).toHaveLength(reads.length);

    // A version bump: each read model's stored version is older than its code's.
    const schemas = Object.values(readModelSchemas(names.readModelSchema));
    for (const schema of schemas) await db.exec(`UPDATE ${schema}.projection_version SET version = 0`);
    expect(await answers(start(), reads)).toEqual(before);
    // Each rebuilt at its code's version.
    for (const projection of testResultsReadModels(readModelSchemas(names.readModelSchema))) {
      const { rows } = await db.query<{ version: number }>(
        `SELECT version FROM ${projection.name}.projection_version`,
      );
      expect(rows).toEqual([{ version: projection.version ?? 1 }]);
    }

    // A deployment of the single read model: its schema, no slices.
    for (const schema of schemas) await db.exec(`DROP SCHEMA ${schema} CASCADE`);
    const legacy = names.readModelSchema;
    await db.exec(`CREATE SCHEMA ${legacy}`);
    await db.exec(
      `CREATE TABLE ${legacy}.projection_checkpoints (stream_id text PRIMARY KEY, stream_position integer NOT NULL)`,
    );
    expect(await answers(start(), reads)).toEqual(before);
    const left = await db.query(`SELECT nspname FROM pg_namespace WHERE nspname = $1`, [legacy]);
    expect(left.rows).toEqual([]);
  }, 180_000);
});
