import { randomBytes } from 'node:crypto';
import { Client } from 'pg';
import {
  CASE_STATUSES,
  ManualCaseCreated,
  NumberAllocated,
  PRIORITIES,
  SEVERITIES,
  type CaseContent,
} from '@verdict/contracts';
import { newId, type EventStore } from '@verdict/platform';
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

// ---------------------------------------------------------------------------------------------------------
// Manual test cases as the manual-testing service records them, for the benches that need a big library
// (appending to its store is the only way: the API's write limit makes 10,000 creates take hours).

export const WORDS = [
  'checkout',
  'login',
  'cart',
  'search',
  'profile',
  'payment',
  'invoice',
  'export',
  'admin',
  'report',
];
const TYPES = ['smoke', 'regression', 'functional', 'integration', 'e2e', 'api'] as const;
const TAGS = ['smoke', 'regression', 'auth', 'payments', 'mobile', 'slow', 'flaky-env', 'a11y'];
export const pick = <T>(values: readonly T[], i: number): T => values[i % values.length] as T;
/** A well-mixed integer of (i, salt), so that the generated fields are not correlated with each other. */
export function mix(i: number, salt: number): number {
  let h = Math.imul(i ^ Math.imul(salt, 0x9e3779b1), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function contentOf(i: number, suiteId: string | null): CaseContent {
  const at = (salt: number) => mix(i, salt);
  const area = pick(WORDS, at(1));
  return {
    title: `${area} ${pick(WORDS, at(2))} case ${i}`,
    description: `Checks ${pick(WORDS, at(3))} for variant ${at(4) % 97}`,
    preconditions: at(20) % 3 === 0 ? `A signed-in customer with a ${area} history` : '',
    postconditions: '',
    suiteId,
    status: pick(CASE_STATUSES, at(5)),
    severity: pick(SEVERITIES, at(6)),
    priority: pick(PRIORITIES, at(7)),
    type: pick(TYPES, at(8)),
    layer: pick(['e2e', 'api', 'unit', 'not_set'] as const, at(9)),
    behavior: pick(['positive', 'negative', 'destructive', 'not_set'] as const, at(10)),
    automationStatus: pick(['manual', 'automated', 'to_be_automated'] as const, at(11)),
    toBeAutomated: at(12) % 5 === 0,
    isFlaky: at(13) % 17 === 0,
    isMuted: at(14) % 23 === 0,
    stepFormat: 'Classic',
    steps: {
      classic: [
        { action: `Open the ${area} page`, data: '', expectedResult: `The ${area} page is shown` },
        { action: `Enter variant ${at(4) % 97}`, data: `value-${at(21) % 1000}`, expectedResult: 'Accepted' },
        { action: 'Submit the form', data: '', expectedResult: 'A confirmation is shown' },
      ].map((step, index) => ({ step: index + 1, ...step, subSteps: [] })),
      gherkin: [],
    },
    tags: [...new Set([pick(TAGS, at(15)), pick(TAGS, at(16))])],
    customFields: { component: pick(WORDS, at(17)) },
  };
}

/**
 * Appends `count` cases to the manual-testing `store` (an initialised one) as the service would record
 * them: their numbers first (one counter stream), then each case; three in four in one of `suites`.
 * Returns the cases' ids, by number.
 */
export async function appendCases(
  store: EventStore,
  options: { projectId: string; userId: string; suites: string[]; count: number; concurrency: number },
): Promise<string[]> {
  const { projectId, userId, suites, count } = options;
  const ids = Array.from({ length: count }, () => newId());
  await store.append(
    `mt-counter-case-${projectId}`,
    ids.map((entityId, i) => NumberAllocated.of({ kind: 'case', entityId, number: i + 1 })),
    { expectedVersion: 'no_stream', projectId },
  );
  const at = new Date().toISOString();
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < count; i = next++) {
      const caseId = ids[i] as string;
      await store.append(
        `mt-case-${caseId}`,
        [
          ManualCaseCreated.of({
            caseId,
            projectId,
            number: i + 1,
            content: contentOf(i, mix(i, 18) % 4 === 0 ? null : pick(suites, mix(i, 19))),
            comments: [],
            issues: [],
            by: userId,
            at,
          }),
        ],
        { expectedVersion: 'no_stream', projectId },
      );
    }
  };
  await Promise.all(Array.from({ length: options.concurrency }, worker));
  return ids;
}

/** One organization with one project and one user of `role` in it, and `tokens` personal tokens of theirs. */
export interface BenchTenant {
  projectId: string;
  userId: string;
  tokens: string[];
}

/**
 * Makes a tenant through a gateway's admin API at `base` (reads and writes are rate limited per token, so a
 * bench that sends many asks for enough tokens).
 *
 * @example const { projectId, tokens } = await benchTenant(base, ADMIN_KEY, { role: 'member', tokens: 10 });
 */
export async function benchTenant(
  base: string,
  adminKey: string,
  options: { role: 'owner' | 'admin' | 'member'; tokens: number },
): Promise<BenchTenant> {
  const adminCall = async <T>(route: string, body: unknown, method = 'POST'): Promise<T> => {
    const response = await fetch(`${base}/admin/v1${route}`, {
      method,
      headers: { authorization: `Bearer ${adminKey}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (response.status >= 300) throw new Error(`${route}: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { data: T }).data;
  };
  const organization = await adminCall<{ id: string }>('/organizations', { name: 'Bench' });
  const project = await adminCall<{ id: string }>(`/organizations/${organization.id}/projects`, {
    name: 'Web',
  });
  const user = await adminCall<{ id: string }>('/users', {
    email: `${uniqueNameForBench('u')}@example.com`,
    firstName: 'B',
    lastName: 'B',
  });
  await adminCall(`/organizations/${organization.id}/members/${user.id}`, { role: options.role }, 'PUT');
  const tokens: string[] = [];
  for (let i = 0; i < options.tokens; i += 1) {
    const issued = await adminCall<{ token: string }>('/tokens', {
      kind: 'personal',
      userId: user.id,
      projectIds: [project.id],
    });
    tokens.push(issued.token);
  }
  return { projectId: project.id, userId: user.id, tokens };
}

/**
 * Times GETs of `url` through a gateway, turn by turn over `tokens` and client addresses (each under its
 * rate limits); the warm-up rounds are not kept.
 *
 * @example const times = await timeRequests(`${base}/token-info`, tokens, { rounds: 200, warmup: 20, addressPrefix: '10.1' });
 */
export async function timeRequests(
  url: string,
  tokens: string[],
  options: { rounds: number; warmup: number; addressPrefix: string },
): Promise<number[]> {
  const times: number[] = [];
  for (let i = 0; i < options.rounds + options.warmup; i += 1) {
    const token = tokens[i % tokens.length] as string;
    const started = performance.now();
    const response = await fetch(url, {
      headers: {
        authorization: `Bearer ${token}`,
        'x-forwarded-for': `${options.addressPrefix}.${(i >> 8) & 255}.${i & 255}`,
      },
    });
    await response.arrayBuffer();
    if (response.status !== 200) throw new Error(`${url}: ${response.status}`);
    if (i >= options.warmup) times.push(performance.now() - started);
  }
  return times;
}
