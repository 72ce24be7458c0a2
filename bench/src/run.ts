// `npm run bench [name…]`: runs the benchmarks (all, or those named: store, bus, relay, registry, reporter…) against
// the real servers that infra/local provides, and prints one table with the baseline of the same run. The
// benches that start services as processes (ingest, gateway, manual) get a database of their own each run.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { benchAnalytics } from './analytics.bench';
import { benchEmbeddedMemory } from './embeddedMemory.bench';
import { benchErrors } from './errors.bench';
import { benchEventBus } from './eventBus.bench';
import { benchEventStore } from './eventStore.bench';
import { benchGateway } from './gateway.bench';
import { benchGates } from './gates.bench';
import { benchEmbeddedIngest } from './embeddedIngest.bench';
import { benchIngest } from './ingest.bench';
import { benchManualTesting } from './manualTesting.bench';
import { benchManualWeb } from './manualWeb.bench';
import { benchRelayLag } from './relayLag.bench';
import { benchReporter } from './reporter.bench';
import { benchSchemaRegistry } from './schemaRegistry.bench';
import { benchSoak } from './soak.bench';
import { benchWeb } from './web.bench';
import { benchWebhooks } from './webhooks.bench';
import { onScratchDatabase } from './support';
import type { BenchRow } from './table';
import { printTable } from './table';

function server(variable: string): string {
  const value = process.env[variable];
  if (!value) throw new Error(`${variable} is not set; run the bench with \`npm run bench\``);
  return value;
}

const benches: Record<string, () => Promise<BenchRow[]>> = {
  store: () => benchEventStore(server('DATABASE_URL')),
  bus: () => benchEventBus(server('KAFKA_BROKERS').split(',')),
  relay: () => benchRelayLag(server('DATABASE_URL'), server('KAFKA_BROKERS').split(',')),
  registry: () => benchSchemaRegistry(server('KAFKA_BROKERS').split(','), server('SCHEMA_REGISTRY_URL')),
  memory: () => benchEmbeddedMemory(),
  // The distributed figures, then the embedded mode's (npm start) next to them.
  ingest: async () => [
    ...(await onScratchDatabase(server('DATABASE_URL'), (databaseUrl) =>
      benchIngest({ databaseUrl, kafkaBrokers: server('KAFKA_BROKERS'), redisUrl: server('REDIS_URL') }),
    )),
    ...(await benchEmbeddedIngest()),
  ],
  analytics: () => benchAnalytics(server('DATABASE_URL')),
  errors: () => onScratchDatabase(server('DATABASE_URL'), (databaseUrl) => benchErrors(databaseUrl)),
  gates: () => onScratchDatabase(server('DATABASE_URL'), (databaseUrl) => benchGates(databaseUrl)),
  gateway: () =>
    onScratchDatabase(server('DATABASE_URL'), (databaseUrl) =>
      benchGateway({ databaseUrl, kafkaBrokers: server('KAFKA_BROKERS'), redisUrl: server('REDIS_URL') }),
    ),
  manual: () =>
    onScratchDatabase(server('DATABASE_URL'), (databaseUrl) =>
      benchManualTesting({
        databaseUrl,
        kafkaBrokers: server('KAFKA_BROKERS'),
        redisUrl: server('REDIS_URL'),
      }),
    ),
  web: () => benchWeb(),
  'manual-web': () => benchManualWeb(),
  reporter: () => benchReporter(),
  webhooks: () =>
    benchWebhooks({
      databaseUrl: server('DATABASE_URL'),
      kafkaBrokers: server('KAFKA_BROKERS').split(','),
    }),
  // 30 minutes (VERDICT_SOAK_MINUTES): run only when named.
  soak: () =>
    onScratchDatabase(server('DATABASE_URL'), (databaseUrl) =>
      benchSoak({
        databaseUrl,
        kafkaBrokers: server('KAFKA_BROKERS'),
        redisUrl: server('REDIS_URL'),
        schemaRegistryUrl: server('SCHEMA_REGISTRY_URL'),
      }),
    ),
};
/** Benches too long for a run of all of them: only when named. */
const ONLY_WHEN_NAMED = new Set(['soak']);

async function main() {
  const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
  const names = wanted.length > 0 ? wanted : Object.keys(benches).filter((n) => !ONLY_WHEN_NAMED.has(n));
  const rows: BenchRow[] = [];
  for (const name of names) {
    const bench = benches[name];
    if (!bench) throw new Error(`unknown bench ${name}; known: ${Object.keys(benches).join(', ')}`);
    process.stderr.write(`[bench] ${name}…\n`);
    rows.push(...(await bench()));
  }
  const text = printTable(`Verdict foundation bench (${new Date().toISOString()}, ${process.version})`, rows);
  const out = path.resolve(__dirname, '../../.bench');
  mkdirSync(out, { recursive: true });
  writeFileSync(path.join(out, 'foundation.md'), text);
}

main()
  .then(() => process.exit(0))
  .catch((error: unknown) => {
    process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exit(1);
  });
