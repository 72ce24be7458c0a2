// The manual tests list (spec §4.3) of a project holding 50,000 cases, through the gateway in its
// distributed mode (real PostgreSQL, Kafka, Redis; gateway and manual-testing as child processes): the p99
// of filtered, sorted, paginated queries, next to two baselines measured in the same run: the gateway's
// token-info (the same auth, rate-limit and forwarding path with no service work behind it) and the same
// list queries sent straight to PostgreSQL (what the SQL alone costs).
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import { AdminOrganization, AdminProject, AdminUser, IssuedToken, successEnvelope } from '@verdict/contracts';
import { createSqlEventStore, type SqlDatabase } from '@verdict/platform';
import { createPostgresDatabase } from '@verdict/platform/postgres';
import { adminClient, profileFlags, startService, type Admin } from './processes';
import { appendCases, pick, WORDS } from './support';
import type { BenchRow } from './table';
import { percentile, sleep } from './table';

export interface ManualBenchServers {
  databaseUrl: string;
  kafkaBrokers: string;
  redisUrl: string;
}

const CASES = 50_000;
const TOKENS = 100;
const REQUESTS = 1_000;
/** Concurrent clients of the closed loop. */
const CLIENTS = 2;
const P99_TARGET_MS = 30;
const SEED_CONCURRENCY = 16;
/** The service's schemas in its distributed mode (module.ts defaults): its store, its case list read model. */
const STORE_SCHEMA = 'manual_testing';
const READ_SCHEMA = 'manual_testing_read_case_list';

const progress = (message: string) => process.stderr.write(`[bench] manual: ${message}\n`);

// ---------------------------------------------------------------------------------------------------------
// Fixture: a project, its owner, tokens; 50,000 cases appended to the service's store

async function provision(admin: Admin) {
  const unique = randomBytes(4).toString('hex');
  const organization = successEnvelope(AdminOrganization).parse(
    await admin('POST', '/organizations', { name: `bench manual ${unique}` }),
  ).data;
  const project = successEnvelope(AdminProject).parse(
    await admin('POST', `/organizations/${organization.id}/projects`, {
      name: `manual ${unique}`,
    }),
  ).data;
  const user = successEnvelope(AdminUser).parse(
    await admin('POST', '/users', {
      email: `manual-${unique}@example.com`,
      firstName: 'Bench',
      lastName: 'Tester',
    }),
  ).data;
  await admin('PUT', `/organizations/${organization.id}/members/${user.id}`, { role: 'owner' });
  const tokens: string[] = [];
  for (let i = 0; i < TOKENS; i += 10) {
    const batch = await Promise.all(
      Array.from({ length: 10 }, async () =>
        successEnvelope(IssuedToken).parse(
          await admin('POST', '/tokens', {
            kind: 'personal',
            userId: user.id,
            projectIds: [project.id],
          }),
        ),
      ),
    );
    tokens.push(...batch.map((t) => t.data.token));
  }
  return { projectId: project.id, userId: user.id, tokens };
}

/** Appends the cases as the service would record them: numbers first (one counter stream), then each case. */
async function seed(db: SqlDatabase, projectId: string, userId: string, suites: string[]) {
  const store = createSqlEventStore({ db, schema: STORE_SCHEMA });
  await store.init();
  await appendCases(store, { projectId, userId, suites, count: CASES, concurrency: SEED_CONCURRENCY });
}

async function projected(db: SqlDatabase, projectId: string): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM ${READ_SCHEMA}.cases WHERE project_id = $1`,
    [projectId],
  );
  return rows[0]?.n ?? 0;
}

// ---------------------------------------------------------------------------------------------------------
// Load: CLIENTS clients in a closed loop (each sends its next request when the last one answered), so the
// figure is the latency of a query, not of a queue. The machine this runs on may be shared: an open loop at
// a fixed rate would measure its spare capacity instead.

async function closedLoop(port: number, paths: string[], headers: () => Record<string, string>) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS });
  const latencies: number[] = [];
  const failures: string[] = [];
  const send = (urlPath: string) =>
    new Promise<void>((resolve) => {
      const started = performance.now();
      const request = http.get({ host: '127.0.0.1', port, path: urlPath, headers: headers(), agent });
      request.setTimeout(10_000, () => request.destroy(new Error('timed out')));
      request.once('error', (error) => {
        failures.push(error.message);
        resolve();
      });
      request.once('response', (response) => {
        response.resume().once('end', () => {
          latencies.push(performance.now() - started);
          if (response.statusCode !== 200) failures.push(String(response.statusCode));
          resolve();
        });
      });
    });
  let next = 0;
  const client = async () => {
    for (let i = next++; i < paths.length; i = next++) await send(paths[i] as string);
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  agent.destroy();
  if (failures.length > paths.length / 100) {
    throw new Error(
      `${failures.length} of ${paths.length} requests failed: ${failures.slice(0, 5).join(', ')}`,
    );
  }
  return { p50: percentile(latencies, 50), p99: percentile(latencies, 99) };
}

/** The filtered, sorted, paginated queries of the mix; every one a different combination. */
function listQueries(suites: string[]): string[] {
  return [
    'status=active&sortBy=title&page=3',
    'priority=high&sortBy=updatedAt&sortOrder=desc',
    'tags=smoke&sortBy=caseId&sortOrder=desc&page=10&limit=100',
    `suiteId=${suites[0]}&sortBy=classification.severity`,
    'automationStatus=automated&isFlaky=false&sortBy=createdAt&page=2',
    'suiteId=null&type=regression&sortBy=title&sortOrder=desc&limit=20',
    'severity=critical&layer=api&sortBy=classification.priority&page=5',
    'behavior=negative&tags=auth,payments&limit=100',
    'sortBy=caseId&page=400',
    'isMuted=true&sortBy=title',
  ];
}

/** The core of the same list queries, straight to PostgreSQL: the page's ids and the total, in parallel. */
async function sqlBaseline(db: SqlDatabase, projectId: string): Promise<number> {
  const s = READ_SCHEMA;
  const queries = [
    `c.status = 'active' ORDER BY c.title_sort, c.number LIMIT 50 OFFSET 100`,
    `c.priority = 'high' ORDER BY c.updated_at DESC, c.number DESC LIMIT 50`,
    `c.tags && ARRAY['smoke'] ORDER BY c.number DESC LIMIT 100 OFFSET 900`,
    `c.automation_status = 'automated' AND NOT c.is_flaky ORDER BY c.created_at, c.number LIMIT 50 OFFSET 50`,
    `c.suite_id IS NULL AND c.type = 'regression' ORDER BY c.title_sort DESC, c.number DESC LIMIT 20`,
    `true ORDER BY c.number LIMIT 50 OFFSET 19950`,
  ];
  const latencies: number[] = [];
  let next = 0;
  const client = async () => {
    for (let i = next++; i < REQUESTS; i = next++) {
      const tail = queries[i % queries.length] as string;
      const [where] = tail.split(' ORDER BY ');
      const started = performance.now();
      await Promise.all([
        db.query(`SELECT c.id FROM ${s}.cases c WHERE c.project_id = $1 AND ${tail}`, [projectId]),
        db.query(`SELECT count(*)::int FROM ${s}.cases c WHERE c.project_id = $1 AND ${where}`, [projectId]),
      ]);
      latencies.push(performance.now() - started);
    }
  };
  await Promise.all(Array.from({ length: CLIENTS }, client));
  return percentile(latencies, 99);
}

/**
 * @example const rows = await benchManualTesting({ databaseUrl, kafkaBrokers, redisUrl });
 */
export async function benchManualTesting(servers: ManualBenchServers): Promise<BenchRow[]> {
  const adminKey = `bench-${randomBytes(16).toString('hex')}`;
  const internalSecret = randomBytes(32).toString('hex');
  const urlSigningSecret = randomBytes(32).toString('hex');
  const common = {
    DATABASE_URL: servers.databaseUrl,
    KAFKA_BROKERS: servers.kafkaBrokers,
    VERDICT_INTERNAL_SECRET: internalSecret,
    VERDICT_URL_SIGNING_SECRET: urlSigningSecret,
  };
  const startManual = (flags: string[] = [], port?: number) =>
    startService('manual-testing-bench', 'manual-testing', { ...common, LOG_LEVEL: 'warn' }, { flags, port });
  let manual = await startManual();
  const gateway = await startService('gateway-manual-bench', 'gateway', {
    ...common,
    LOG_LEVEL: 'warn',
    REDIS_URL: servers.redisUrl,
    VERDICT_ADMIN_KEY: adminKey,
    VERDICT_TRUST_PROXY: 'true',
    VERDICT_MANUAL_TESTING_URL: `http://127.0.0.1:${manual.port}`,
  }).catch(async (error: unknown) => {
    await manual.stop();
    throw error;
  });
  const db = createPostgresDatabase({ connectionString: servers.databaseUrl, max: 4 });
  try {
    const fixture = await provision(adminClient(gateway.port, adminKey));
    let sent = 0;
    const headers = () => {
      const n = sent++;
      return {
        authorization: `Bearer ${fixture.tokens[n % fixture.tokens.length]}`,
        'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
      };
    };
    const api = `/api/public/v1/${fixture.projectId}`;
    const call = async (method: string, urlPath: string, body: unknown) => {
      const response = await fetch(`http://127.0.0.1:${gateway.port}${api}${urlPath}`, {
        method,
        headers: { ...headers(), 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      if (!response.ok) throw new Error(`${method} ${urlPath}: ${response.status} ${await response.text()}`);
      return ((await response.json()) as { data: { _id: string } }).data;
    };
    const suites: string[] = [];
    for (const name of ['Checkout', 'Accounts', 'Search', 'Reports']) {
      suites.push((await call('POST', '/manual-suites', { name }))._id);
    }
    let started = Date.now();
    await seed(db, fixture.projectId, fixture.userId, suites);
    progress(`${CASES} cases appended in ${Date.now() - started} ms; waiting for the read model`);
    started = Date.now();
    while ((await projected(db, fixture.projectId)) < CASES) {
      if (Date.now() - started > 600_000) throw new Error('the read model did not catch up in 10 minutes');
      await sleep(500);
    }
    progress(`read model caught up in ${Date.now() - started} ms`);
    // What autovacuum does after a bulk load: statistics, and the visibility map index-only scans need.
    await db.query(`VACUUM ANALYZE ${READ_SCHEMA}.cases`);
    if (profileFlags().length > 0) {
      // The profile covers the queries only, not the projection of the 50,000 cases. The gateway forwards
      // to the service's address, so the restarted service must bind the same port.
      await manual.stop();
      manual = await startManual(profileFlags(), manual.port);
    }

    const queries = listQueries(suites);
    const listPaths = Array.from(
      { length: REQUESTS },
      (_, i) => `${api}/manual-tests?${queries[i % queries.length]}`,
    );
    const tokenInfoPaths = Array.from({ length: REQUESTS }, () => `${api}/token-info`);
    const searchPaths = Array.from(
      { length: REQUESTS / 4 },
      (_, i) => `${api}/manual-tests?search=${pick(WORDS, i)}&sortBy=title&limit=20`,
    );
    await closedLoop(gateway.port, listPaths.slice(0, 100), headers);
    const list = await closedLoop(gateway.port, listPaths, headers);
    const tokenInfo = await closedLoop(gateway.port, tokenInfoPaths, headers);
    const search = await closedLoop(gateway.port, searchPaths, headers);
    progress(
      `p50: list ${list.p50.toFixed(1)} ms, token-info ${tokenInfo.p50.toFixed(1)} ms, search ${search.p50.toFixed(1)} ms`,
    );
    const listP99 = list.p99;
    const tokenInfoP99 = tokenInfo.p99;
    const searchP99 = search.p99;
    const sqlP99 = await sqlBaseline(db, fixture.projectId);
    const row = (name: string, ours: number, baseline: number, target: string, met: boolean): BenchRow => ({
      name,
      unit: 'ms',
      ours,
      baseline,
      target,
      met,
    });
    return [
      row(
        `manual tests list p99, ${CASES.toLocaleString('en-US')} cases, filter+sort+page mix (${CLIENTS} clients) vs token-info`,
        listP99,
        tokenInfoP99,
        `< ${P99_TARGET_MS} ms`,
        listP99 < P99_TARGET_MS,
      ),
      row(
        'manual tests list p99 vs the same queries straight to PostgreSQL',
        listP99,
        sqlP99,
        'informative',
        true,
      ),
      row(
        `manual tests search (title, description, caseId) p99 (${CLIENTS} clients) vs token-info`,
        searchP99,
        tokenInfoP99,
        `< ${P99_TARGET_MS} ms`,
        searchP99 < P99_TARGET_MS,
      ),
    ];
  } finally {
    await db.close();
    await Promise.all([gateway.stop(), manual.stop()]);
  }
}
