import { ALL_FAULTS, faultTable, runFaultSuite, type FaultRow } from './faults/suite';

// The bounded form of `npm run test:faults` (e2e/src/faults/): the same faults and the same checks, with
// fewer shards and results and shorter outages, so that it adds at most 5 minutes to `npm test`. It stops
// and starts the shared local servers (infra/local): jest runs one test file at a time, and the suite brings
// every server back up however it ends.

describe('what Verdict survives (the fault suite, bounded)', () => {
  it('when processes are killed, servers restarted or stopped and the embedded process killed mid-ingest, then every acknowledged result reads back once, stats and analytics are exact, every webhook arrives under one delivery id, no run stays running, and each service comes back by itself', async () => {
    const started = Date.now();
    const rows: FaultRow[] = await runFaultSuite({
      faults: ALL_FAULTS,
      shards: 4,
      resultsPerShard: 400,
      batchSize: 100,
      outageMs: 5_000,
      settleMs: 60_000,
      recoverTimeoutMs: 60_000,
      shardTimeoutMs: 180_000,
      log: (line) =>
        process.stdout.write(`[faults +${Math.round((Date.now() - started) / 1000)} s] ${line}\n`),
    });
    process.stdout.write(`\n${faultTable(rows)}\n`);
    expect(rows.map((row) => ({ fault: row.fault, problems: row.problems }))).toEqual(
      rows.map((row) => ({ fault: row.fault, problems: [] })),
    );
  }, 900_000);
});
