import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInProcessBus, createSqlEventStore, newSecret, type SqlDatabase } from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import { testDatabases } from '@verdict/platform/testing/databases';
import type { TestResultsModule } from '../module';
import { memberIdentity, readModelsUnder, serveOverHttp, testModule } from '../testing';
import { realisticResult } from './fixtures';

// The runs read model is written inline, in the transaction that appends the results: a 2xx means
// readable. Every read here comes right after the answer to the write, with no waiting or polling.

const secret = newSecret(32);
const PROJECT = 'project-1';

interface Stats {
  total: number;
  passed: number;
  failed: number;
  flaky: number;
  skipped: number;
}

describe.each(testDatabases())('reads that keep up with writes on $name', (database) => {
  let db: SqlDatabase;
  let server: Server;
  let base: string;
  let blobDir: string;
  let module: TestResultsModule;
  const names = {
    storeSchema: uniqueName('tr'),
    topic: uniqueName('tr'),
    readModelSchema: uniqueName('trr'),
  };
  const bus = createInProcessBus();
  // Minted for each request: an identity lives 60 s, less than a loaded machine may take to get here.
  const headers = () => ({ 'content-type': 'application/json', ...memberIdentity(secret, PROJECT) });

  const post = (url: string, body: unknown) =>
    fetch(`${base}/${PROJECT}${url}`, { method: 'POST', headers: headers(), body: JSON.stringify(body) });

  async function detailOf(runId: string): Promise<{ status: string; stats: Stats }> {
    const answer = await fetch(`${base}/${PROJECT}/test-runs/${runId}`, { headers: headers() });
    expect(answer.status).toBe(200);
    return ((await answer.json()) as { data: { status: string; stats: Stats } }).data;
  }

  async function startRun(body: unknown = {}): Promise<string> {
    const answer = await post('/test-runs', body);
    expect([200, 201]).toContain(answer.status);
    return ((await answer.json()) as { data: { id: string } }).data.id;
  }

  beforeAll(async () => {
    db = await database.open();
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-blobs-'));
    module = testModule({ db, bus, blobDir }, { internalSecret: secret, names });
    await module.start();
    ({ server, base } = await serveOverHttp(module));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await module.stop();
    await bus.close();
    await db.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  it('when a run is started and each batch of its results is answered 202, then the run detail read right after each answer counts every result so far', async () => {
    const runId = await startRun();
    expect((await detailOf(runId)).stats.total).toBe(0);
    for (let batch = 0; batch < 3; batch += 1) {
      const results = Array.from({ length: 40 }, (_, i) => realisticResult(batch * 40 + i));
      const answer = await post(`/test-runs/${runId}/results`, { results });
      expect(answer.status).toBe(202);
      expect((await detailOf(runId)).stats.total).toBe((batch + 1) * 40);
    }
    const finished = await post(`/test-runs/${runId}/finish`, {});
    expect(finished.status).toBe(200);
    expect((await detailOf(runId)).status).toBe('finished');
  });

  it('when the same batch is posted again, then the run detail read right after still counts each result once', async () => {
    const runId = await startRun();
    const results = Array.from({ length: 25 }, (_, i) => realisticResult(i));
    expect((await post(`/test-runs/${runId}/results`, { results })).status).toBe(202);
    const first = (await detailOf(runId)).stats;
    const again = await post(`/test-runs/${runId}/results`, { results });
    expect(again.status).toBe(202);
    expect(((await again.json()) as { data: unknown }).data).toEqual({ accepted: 0, duplicates: 25 });
    expect((await detailOf(runId)).stats).toEqual(first);
    expect(first.total).toBe(25);
  });

  it('when 8 shards of one run post their batches at once, then each reads its own results in the run detail as soon as it is answered, and the run counts them all', async () => {
    const ciRunId = uniqueName('ci');
    const shards = Array.from({ length: 8 }, (_, shard) => shard);
    const runIds = await Promise.all(
      shards.map((shard) => startRun({ ciRunId, shard: { current: shard + 1, total: 8 } })),
    );
    const runId = runIds[0] ?? '';
    expect(new Set(runIds)).toEqual(new Set([runId]));
    const seenByShard = await Promise.all(
      shards.map(async (shard) => {
        let seen = 0;
        for (let batch = 0; batch < 2; batch += 1) {
          const results = Array.from({ length: 30 }, (_, i) =>
            realisticResult(shard * 1_000 + batch * 30 + i),
          );
          expect((await post(`/test-runs/${runId}/results`, { results })).status).toBe(202);
          seen = (await detailOf(runId)).stats.total;
          // At least this shard's own results so far; other shards may have added theirs.
          expect(seen).toBeGreaterThanOrEqual((batch + 1) * 30);
        }
        return seen;
      }),
    );
    expect(Math.max(...seenByShard)).toBeLessThanOrEqual(8 * 60);
    const { stats } = await detailOf(runId);
    expect(stats.total).toBe(8 * 60);
    expect(stats.passed + stats.failed + stats.flaky + stats.skipped).toBe(stats.total);
  });

  it('when the runs read model is rebuilt from position 0, then the run detail is the same as the one written inline', async () => {
    const runId = await startRun();
    const results = Array.from({ length: 50 }, (_, i) => realisticResult(i));
    expect((await post(`/test-runs/${runId}/results`, { results })).status).toBe(202);
    expect((await post(`/test-runs/${runId}/finish`, {})).status).toBe(200);
    const inline = await detailOf(runId);

    const store = createSqlEventStore({ db, schema: names.storeSchema });
    const { projector } = await readModelsUnder(db, names.readModelSchema, [store]);
    expect(await projector.rebuild()).toBeGreaterThan(50);

    expect(await detailOf(runId)).toEqual(inline);
    expect(inline.stats.total).toBe(50);
  });
});
