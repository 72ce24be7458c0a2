/**
 * `npm run test:faults`: the full fault-injection suite (8 shards × 20,000 results under every fault,
 * 30 s outages), its table on stdout; exit 1 when a guarantee broke. Options: `--shards N`,
 * `--results N` (per shard and fault), `--outage-seconds N`, `--only "<fault>"` (repeatable).
 */
import { ALL_FAULTS, faultTable, runFaultSuite, type FaultName } from './suite';

function option(args: string[], name: string): string[] {
  const values: string[] = [];
  for (let index = 0; index < args.length; index += 1) {
    if (args[index] === name && args[index + 1] !== undefined) values.push(args[index + 1] as string);
  }
  return values;
}

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const number = (name: string, fallback: number) => Number(option(args, name)[0] ?? fallback);
  const only = option(args, '--only');
  const unknown = only.filter((fault) => !(ALL_FAULTS as readonly string[]).includes(fault));
  if (unknown.length > 0) {
    process.stderr.write(`unknown fault ${unknown.join(', ')}; faults: ${ALL_FAULTS.join(', ')}\n`);
    return 2;
  }
  const started = Date.now();
  const rows = await runFaultSuite({
    faults: only.length > 0 ? (only as FaultName[]) : ALL_FAULTS,
    shards: number('--shards', 8),
    resultsPerShard: number('--results', 20_000),
    batchSize: 500,
    outageMs: number('--outage-seconds', 30) * 1000,
    settleMs: 180_000,
    recoverTimeoutMs: 180_000,
    shardTimeoutMs: 30 * 60_000,
    log: (line) => process.stdout.write(`[faults +${Math.round((Date.now() - started) / 1000)} s] ${line}\n`),
  });
  process.stdout.write(`\n${faultTable(rows)}\n\n`);
  const broken = rows.filter((row) => row.problems.length > 0);
  for (const row of broken) process.stdout.write(`${row.fault}:\n  - ${row.problems.join('\n  - ')}\n`);
  process.stdout.write(
    `${rows.length - broken.length} of ${rows.length} faults held (${((Date.now() - started) / 60_000).toFixed(1)} min)\n`,
  );
  return broken.length === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  },
);
