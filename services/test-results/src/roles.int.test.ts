import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createInProcessBus, newSecret, type EventBus, type SqlDatabase } from '@verdict/platform';
import { uniqueName } from '@verdict/platform/testing';
import type { TestResultsModule, TestResultsRole } from './module';
import { realisticResult } from './runs/fixtures';
import { testDatabases } from '@verdict/platform/testing/databases';
import { memberIdentity, serveOverHttp, testModule } from './testing';

// The distributed mode runs test-results as two processes: the API (routes and relay) and the runs
// projector. Here both are modules on one database and one bus, each behind its own HTTP server.

const secret = newSecret(32);
const PROJECT = 'project-1';

describe.each(testDatabases())('test-results split into API and projector on $name', (database) => {
  let db: SqlDatabase;
  let bus: EventBus;
  let blobDir: string;
  const started: { module: TestResultsModule; server: Server }[] = [];
  const names = {
    storeSchema: uniqueName('tr'),
    topic: uniqueName('tr'),
    readModelSchema: uniqueName('trr'),
  };

  // Minted for each request: an identity lives 60 s, less than a loaded machine may take to get here.
  const headers = () => ({ 'content-type': 'application/json', ...memberIdentity(secret, PROJECT) });

  async function startAs(role: TestResultsRole): Promise<string> {
    const module = testModule({ db, bus, blobDir }, { internalSecret: secret, names, role });
    await module.start();
    const { server, base } = await serveOverHttp(module);
    started.push({ module, server });
    return base;
  }

  beforeAll(async () => {
    db = await database.open();
    bus = createInProcessBus();
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-blobs-'));
  });

  afterAll(async () => {
    for (const { module, server } of started) {
      await new Promise((resolve) => server.close(resolve));
      await module.stop();
    }
    await bus.close();
    await db.close();
    rmSync(blobDir, { recursive: true, force: true });
  });

  async function totalOf(api: string, runId: string): Promise<number | null> {
    const answer = await fetch(`${api}/${PROJECT}/test-runs/${runId}`, { headers: headers() });
    if (answer.status === 404) return null;
    return ((await answer.json()) as { data: { stats: { total: number } } }).data.stats.total;
  }

  it('when results are posted to the API, then they become readable there once the projector applied them, and the projector serves no routes', async () => {
    const api = await startAs('api');
    const projector = await startAs('projector');

    const start = await fetch(`${api}/${PROJECT}/test-runs`, {
      method: 'POST',
      headers: headers(),
      body: '{}',
    });
    expect(start.status).toBe(201);
    const runId = ((await start.json()) as { data: { id: string } }).data.id;
    const results = Array.from({ length: 30 }, (_, i) => realisticResult(i));
    const posted = await fetch(`${api}/${PROJECT}/test-runs/${runId}/results`, {
      method: 'POST',
      headers: headers(),
      body: JSON.stringify({ results }),
    });
    expect(posted.status).toBe(202);

    const deadline = Date.now() + 10_000;
    let total = await totalOf(api, runId);
    while (total !== 30 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 25));
      total = await totalOf(api, runId);
    }
    expect(total).toBe(30);

    const refused = await fetch(`${projector}/${PROJECT}/test-runs`, {
      method: 'POST',
      headers: headers(),
      body: '{}',
    });
    expect(refused.status).toBe(404);
  });
});
