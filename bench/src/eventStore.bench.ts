import { createSqlEventStore, newId, uniqueNameForBench } from './support';
import type { BenchRow } from './table';
import { createPostgresDatabase } from '@verdict/platform/postgres';

/** A realistic event payload (~300 bytes of JSON), the same for the store and the baseline. */
function payload(i: number) {
  return {
    runId: `run-${i % 97}`,
    file: `tests/checkout/payment-${i % 13}.spec.ts`,
    titlePath: ['checkout', 'payment', `pays with card ${i}`],
    status: i % 10 === 0 ? 'failed' : 'passed',
    durationMs: 100 + (i % 900),
    attempt: 0,
  };
}

/**
 * Event store append throughput on real PostgreSQL, batches of 100 and of 1, next to a raw multi-row
 * INSERT of the same rows into a table of the same definition (same columns, defaults and indexes).
 */
export async function benchEventStore(databaseUrl: string): Promise<BenchRow[]> {
  const db = createPostgresDatabase({ connectionString: databaseUrl, max: 4, applicationName: 'bench' });
  const schema = uniqueNameForBench('bench_store');
  const store = createSqlEventStore({ db, schema });
  await store.init();
  await db.exec(`CREATE TABLE ${schema}.baseline (LIKE ${schema}.events INCLUDING ALL)`);
  const rows: BenchRow[] = [];
  try {
    for (const [batch, appends] of [
      [100, 300],
      [1, 3000],
    ] as const) {
      // Warm up both paths so neither pays for first-use costs (plans, pool connections).
      await appendWithStore(store, batch, 20, `warm${batch}`);
      await insertRaw(db, schema, batch, 20, `warm${batch}`);
      const storeRate = await appendWithStore(store, batch, appends, `b${batch}`);
      const rawRate = await insertRaw(db, schema, batch, appends, `b${batch}`);
      rows.push({
        name: `event store append, batches of ${batch} (PostgreSQL)`,
        unit: 'events/s',
        ours: storeRate,
        baseline: rawRate,
        target: '≥ 50% of raw INSERT',
        met: storeRate >= 0.5 * rawRate,
      });
    }
  } finally {
    await db.exec(`DROP SCHEMA ${schema} CASCADE`);
    await db.close();
  }
  return rows;
}

async function appendWithStore(
  store: ReturnType<typeof createSqlEventStore>,
  batch: number,
  appends: number,
  tag: string,
): Promise<number> {
  const started = performance.now();
  for (let a = 0; a < appends; a += 1) {
    const events = Array.from({ length: batch }, (_, i) => ({
      type: 'test.result.recorded',
      version: 1,
      data: payload(a * batch + i),
    }));
    await store.append(`${tag}-stream-${a}`, events, { expectedVersion: 'no_stream', projectId: 'p1' });
  }
  return (batch * appends) / ((performance.now() - started) / 1000);
}

async function insertRaw(
  db: ReturnType<typeof createPostgresDatabase>,
  schema: string,
  batch: number,
  appends: number,
  tag: string,
): Promise<number> {
  const started = performance.now();
  for (let a = 0; a < appends; a += 1) {
    const values: unknown[] = [];
    const tuples: string[] = [];
    for (let i = 0; i < batch; i += 1) {
      const n = values.length;
      tuples.push(
        `($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5}, $${n + 6}::jsonb, $${n + 7}, now())`,
      );
      values.push(
        newId(),
        `raw-${tag}-stream-${a}`,
        i + 1,
        'test.result.recorded',
        1,
        JSON.stringify(payload(a * batch + i)),
        'p1',
      );
    }
    await db.query(
      `INSERT INTO ${schema}.baseline (event_id, stream_id, stream_position, type, version, data, project_id, occurred_at)
       VALUES ${tuples.join(', ')}`,
      values,
    );
  }
  return (batch * appends) / ((performance.now() - started) / 1000);
}
