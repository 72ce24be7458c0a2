import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
export { createSqlEventStore, newId } from '@verdict/platform';

export const uniqueNameForBench = (prefix: string) => `${prefix}_${randomBytes(4).toString('hex')}`;

async function onServer(databaseUrl: string, sql: string): Promise<void> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/**
 * Runs `bench` on a database of its own, dropped afterwards. Services started with the default schema
 * names would otherwise write into the developer's database and find every earlier run's rows there: the
 * local one had grown to 25 GB of bench leftovers, and each run measured a bigger table than the last.
 *
 * @example const rows = await onScratchDatabase(process.env.DATABASE_URL, (url) => benchIngest({ databaseUrl: url }));
 */
export async function onScratchDatabase<T>(
  databaseUrl: string,
  bench: (url: string) => Promise<T>,
): Promise<T> {
  const name = uniqueNameForBench('verdict_bench');
  await onServer(databaseUrl, `CREATE DATABASE ${name}`);
  const url = new URL(databaseUrl);
  url.pathname = `/${name}`;
  try {
    return await bench(url.toString());
  } finally {
    await onServer(databaseUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}
