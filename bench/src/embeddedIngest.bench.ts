// Ingest in the embedded mode, as most users first run Verdict: one process started with `npm start`
// (PGlite, the in-process bus), fed a 20,000-test run by 8 shards posting 500-result batches at once.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { BATCH, batchOf } from './ingest.bench';
import { repoRoot, startNode } from './processes';
import type { BenchRow } from './table';
import { sleep } from './table';

const SHARDS = 8;
const TESTS = 20_000;
const TARGET = 3_000;

const progress = (message: string) => process.stderr.write(`[bench] ingest (embedded): ${message}\n`);

/** The demo project and token that the first start prints (its banner, in the child's log). */
async function demoCredentials(log: string): Promise<{ projectId: string; token: string }> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const output = readFileSync(log, 'utf8');
    const projectId = /Project id:\s+(\S+)/.exec(output)?.[1];
    const token = /Token:\s+(svc_pat_\S+)/.exec(output)?.[1];
    if (projectId && token) return { projectId, token };
    await sleep(200);
  }
  throw new Error(`the embedded start printed no demo token (see ${log})`);
}

/**
 * Results/s accepted (every batch answered 202) and readable (the run detail counts all of them, read
 * once right after the last answer) through the gateway of `npm start`.
 */
export async function benchEmbeddedIngest(): Promise<BenchRow[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-bench-embedded-'));
  const child = await startNode('ingest-embedded', ['scripts/run.cjs', 'start'], {
    VERDICT_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
  });
  try {
    const { projectId, token } = await demoCredentials(path.join(repoRoot, '.bench', 'ingest-embedded.log'));
    const base = `http://127.0.0.1:${child.port}/api/public/v1/${projectId}`;
    const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const call = async (urlPath: string, body?: unknown) => {
      const response = await fetch(`${base}${urlPath}`, {
        method: body === undefined ? 'GET' : 'POST',
        headers,
        ...(body === undefined ? {} : { body: typeof body === 'string' ? body : JSON.stringify(body) }),
      });
      if (!response.ok) throw new Error(`${urlPath}: ${response.status} ${await response.text()}`);
      return (await response.json()) as { data: unknown };
    };
    const ciRunId = `bench-embedded-${Date.now()}`;
    const starts = await Promise.all(
      Array.from({ length: SHARDS }, (_, shard) =>
        call('/test-runs', { ciRunId, shard: { current: shard + 1, total: SHARDS } }),
      ),
    );
    const runId = (starts[0]?.data as { id: string }).id;
    const batchesPerShard = TESTS / SHARDS / BATCH;
    // The bodies are made before the clock starts: the bench measures the server, not its own JSON.
    const bodies = Array.from({ length: SHARDS }, (_, shard) =>
      Array.from({ length: batchesPerShard }, (_, batch) =>
        JSON.stringify({ results: batchOf(`s${shard}`, batch) }),
      ),
    );
    progress(`${SHARDS} shards × ${batchesPerShard} batches of ${BATCH}`);
    const started = performance.now();
    await Promise.all(
      bodies.map(async (shardBodies) => {
        for (const body of shardBodies) await call(`/test-runs/${runId}/results`, body);
      }),
    );
    const acceptedMs = performance.now() - started;
    const detail = (await call(`/test-runs/${runId}`)).data as { stats: { total: number } };
    const readableMs = performance.now() - started;
    const readable = detail.stats.total;
    progress(`accepted ${TESTS} in ${Math.round(acceptedMs)} ms; ${readable} readable right after`);
    const acceptedPerSecond = (TESTS * 1000) / acceptedMs;
    // Counted only when the read right after the last 202 shows every result (written inline).
    const readablePerSecond = readable >= TESTS ? (TESTS * 1000) / readableMs : 0;
    return [
      {
        name: `embedded ingest accepted (npm start), ${TESTS.toLocaleString('en-US')} tests, ${SHARDS} shards`,
        unit: 'results/s',
        ours: acceptedPerSecond,
        baseline: null,
        target: `≥ ${TARGET.toLocaleString('en-US')}/s`,
        met: acceptedPerSecond >= TARGET,
      },
      {
        name: 'embedded ingest readable in the run detail right after (same run)',
        unit: 'results/s',
        ours: readablePerSecond,
        baseline: acceptedPerSecond,
        target: `≥ ${TARGET.toLocaleString('en-US')}/s`,
        met: readablePerSecond >= TARGET,
      },
    ];
  } finally {
    await child.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
