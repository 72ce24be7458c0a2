// Authenticated `GET /{projectId}/token-info` through the gateway in its distributed mode (real PostgreSQL,
// Redis and Kafka), next to a bare Express hello-world measured in the same run. Both servers are child
// processes and the load comes from this process (autocannon, and an evenly paced generator for latency),
// so each side pays the same loopback, the same load generator and the same request headers.
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import autocannon from 'autocannon';
import {
  AdminOrganization,
  AdminProject,
  AdminUser,
  IssuedToken,
  successEnvelope,
  TokenInfo,
} from '@verdict/contracts';
import {
  adminClient,
  inParallel,
  profileFlags,
  startNode,
  startService,
  type Admin,
  type Child,
} from './processes';
import type { BenchRow } from './table';
import { percentile, sleep } from './table';

export interface GatewayBenchServers {
  databaseUrl: string;
  kafkaBrokers: string;
  redisUrl: string;
}

const DURATION_S = 10;
const WARMUP_S = 2;
/**
 * Peak throughput is measured in rounds that alternate the two servers, and each side's median is kept:
 * on a shared 2-core machine one 10 s window of the bare server varied from 3,300 to 6,300 req/s between
 * runs, and a single window each compared two different moments of the machine.
 */
const PEAK_ROUNDS = 3;
const PEAK_ROUND_S = 5;
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
const CONNECTIONS = 50;
/**
 * Reads are limited to 100 a minute per token (spec §8), so the load rotates over this many tokens:
 * enough for ~13,000 token-info requests a second over the whole bench before any token runs dry.
 */
const TOKENS = 2_000;
const ISSUE_CONCURRENCY = 50;
/** A 429 or a 5xx is cheaper than a real answer and would flatter the figure: more than this fails the bench. */
const MAX_NOT_OK_SHARE = 0.01;
const THROUGHPUT_TARGET = 0.4;
const P99_TARGET_MS = 20;

// The baseline: the least an Express 5 server does for a GET that answers JSON.
const BARE_SERVER = `
const express = require('express');
const app = express();
app.get('/hello', (_req, res) => res.json({ hello: 'world' }));
app.get('/readyz', (_req, res) => res.json({ ready: true }));
app.listen(Number(process.env.PORT), '127.0.0.1');
`;

interface Fixture {
  projectId: string;
  tokens: string[];
}

/** One organization, project and owner, and TOKENS personal tokens on that project. */
async function provision(admin: Admin): Promise<Fixture> {
  const unique = randomBytes(4).toString('hex');
  const organization = successEnvelope(AdminOrganization).parse(
    await admin('POST', '/organizations', { name: `bench gateway ${unique}` }),
  ).data;
  const project = successEnvelope(AdminProject).parse(
    await admin('POST', `/organizations/${organization.id}/projects`, { name: `bench ${unique}` }),
  ).data;
  const user = successEnvelope(AdminUser).parse(
    await admin('POST', '/users', {
      email: `bench-${unique}@example.com`,
      firstName: 'Bench',
      lastName: 'Mark',
    }),
  ).data;
  await admin('PUT', `/organizations/${organization.id}/members/${user.id}`, { role: 'owner' });
  const tokens = await inParallel(TOKENS, ISSUE_CONCURRENCY, async (i) => {
    const answer = await admin('POST', '/tokens', {
      kind: 'personal',
      userId: user.id,
      name: `bench ${i}`,
      projectIds: [project.id],
    });
    return successEnvelope(IssuedToken).parse(answer).data.token;
  });
  return { projectId: project.id, tokens };
}

// ---------------------------------------------------------------------------------------------------------
// Load

type Headers = Record<string, string>;

/**
 * Every request carries the next token and its own client address. The gateway trusts X-Forwarded-For
 * here (VERDICT_TRUST_PROXY), so the per-IP limit of 200 a minute counts each request's address, as it
 * would behind a load balancer in front of many clients.
 */
function rotation(tokens: string[]): () => Headers {
  let sent = 0;
  return () => {
    const n = sent++;
    return {
      authorization: `Bearer ${tokens[n % tokens.length]}`,
      'x-forwarded-for': `10.${(n >> 16) & 255}.${(n >> 8) & 255}.${n & 255}`,
    };
  };
}

interface Target {
  port: number;
  path: string;
  /** The headers of the next request (the baseline gets the same ones, so the generator's work is equal). */
  headers: () => Headers;
}

interface Measured {
  okPerSecond: number;
  p99Ms: number;
}

/** Throws when more than 1 % of the answers were not 200; returns how many were. */
function okAnswers(label: string, statuses: Map<string, number>, errors: number): number {
  const ok = statuses.get('200') ?? 0;
  const answered = [...statuses.values()].reduce((sum, count) => sum + count, 0) + errors;
  if (answered === 0 || (answered - ok) / answered > MAX_NOT_OK_SHARE) {
    const seen = [...statuses].map(([code, count]) => `${code}: ${count}`).join(', ');
    // 429s mean the token pool ran dry for this rate: raise TOKENS rather than accept them.
    throw new Error(`${label}: only ${ok} of ${answered} answers were 200 (${seen}; errors: ${errors})`);
  }
  return ok;
}

/**
 * autocannon over CONNECTIONS keep-alive connections, as fast as the server answers or at `rate` a
 * second. With a rate, its coordinated-omission correction is off: it assumes requests are due every
 * Math.ceil(1 / rate) = 1 ms per connection and back-fills one sample per millisecond of a slow answer,
 * which measures that assumption, not the server.
 */
async function measureAutocannon(
  label: string,
  target: Target,
  seconds: number,
  rate?: number,
): Promise<Measured> {
  const result = await autocannon({
    url: `http://127.0.0.1:${target.port}`,
    connections: CONNECTIONS,
    duration: seconds,
    requests: [
      {
        method: 'GET',
        path: target.path,
        setupRequest: (request) => ({ ...request, headers: { ...request.headers, ...target.headers() } }),
      },
    ],
    ...(rate === undefined ? {} : { overallRate: rate, ignoreCoordinatedOmission: true }),
  });
  const statuses = new Map(
    Object.entries(result.statusCodeStats ?? {}).map(([code, s]) => [code, s.count ?? 0]),
  );
  const ok = okAnswers(label, statuses, result.errors);
  return { okPerSecond: ok / result.duration, p99Ms: result.latency.p99 };
}

/**
 * An open-loop load at an even `rate`: request i is due at start + i / rate whether or not the earlier
 * ones have answered, and its latency counts from when it was due, so a stall shows in the figure.
 * autocannon's overallRate instead lets each connection send its share of a second back to back when the
 * second starts, then wait: its p99 is that of a burst at full concurrency, not of a steady half load.
 */
async function measurePaced(label: string, target: Target, seconds: number, rate: number): Promise<Measured> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
  const latencies: number[] = [];
  const statuses = new Map<string, number>();
  let errors = 0;
  const send = (dueAt: number) =>
    new Promise<void>((resolve) => {
      const request = http.get({
        host: '127.0.0.1',
        port: target.port,
        path: target.path,
        headers: target.headers(),
        agent,
      });
      request.setTimeout(10_000, () => request.destroy(new Error('timed out')));
      request.once('error', () => {
        errors += 1;
        resolve();
      });
      request.once('response', (response) => {
        response.resume().once('end', () => {
          latencies.push(performance.now() - dueAt);
          const code = String(response.statusCode);
          statuses.set(code, (statuses.get(code) ?? 0) + 1);
          resolve();
        });
      });
    });
  const pace = async (forSeconds: number) => {
    const start = performance.now();
    const total = Math.round(rate * forSeconds);
    const dueAt = (i: number) => start + (i * 1000) / rate;
    const sent: Promise<void>[] = [];
    while (sent.length < total) {
      while (sent.length < total && dueAt(sent.length) <= performance.now())
        sent.push(send(dueAt(sent.length)));
      await sleep(1);
    }
    await Promise.all(sent);
    return start;
  };
  // One unrecorded second at the same pace first: the agent opens its connections (a TCP handshake and a
  // fresh parser on the server per socket) before the steady state is measured, on both servers alike.
  await pace(1);
  latencies.length = 0;
  statuses.clear();
  errors = 0;
  const start = await pace(seconds);
  agent.destroy();
  const ok = okAnswers(label, statuses, errors);
  return { okPerSecond: (ok * 1000) / (performance.now() - start), p99Ms: percentile(latencies, 99) };
}

// ---------------------------------------------------------------------------------------------------------
// The bench

function startGateway(servers: GatewayBenchServers, adminKey: string, flags: string[] = []): Promise<Child> {
  return startService(
    'gateway-bench',
    'gateway',
    {
      DATABASE_URL: servers.databaseUrl,
      KAFKA_BROKERS: servers.kafkaBrokers,
      REDIS_URL: servers.redisUrl,
      VERDICT_ADMIN_KEY: adminKey,
      VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
      VERDICT_URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
      VERDICT_TRUST_PROXY: 'true',
    },
    { flags },
  );
}

/** One authenticated request before the load: a 401 or 403 here would make the whole run meaningless. */
async function checkTokenInfo(port: number, urlPath: string, token: string): Promise<void> {
  const response = await fetch(`http://127.0.0.1:${port}${urlPath}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (response.status !== 200)
    throw new Error(`token-info answered ${response.status}: ${await response.text()}`);
  successEnvelope(TokenInfo).parse(await response.json());
}

const p99Row = (name: string, ours: Measured, baseline: Measured): BenchRow => ({
  name,
  unit: 'ms',
  ours: ours.p99Ms,
  baseline: baseline.p99Ms,
  target: `< ${P99_TARGET_MS} ms`,
  met: ours.p99Ms < P99_TARGET_MS,
});

const progress = (message: string) => process.stderr.write(`[bench] gateway: ${message}\n`);

/**
 * Peak throughput of token-info (gateway) and of the bare server, 10 s at 50 connections each after a
 * short warm-up; then the gateway's and the bare server's p99 at half the gateway's peak.
 *
 * @example const rows = await benchGateway({ databaseUrl, kafkaBrokers, redisUrl });
 */
export async function benchGateway(servers: GatewayBenchServers): Promise<BenchRow[]> {
  const adminKey = `bench-${randomBytes(16).toString('hex')}`;
  let started = Date.now();
  let gateway = await startGateway(servers, adminKey);
  const bare = await startNode('bare-express', ['-e', BARE_SERVER], {}).catch(async (error: unknown) => {
    await gateway.stop();
    throw error;
  });
  try {
    progress(`gateway ready in ${Date.now() - started} ms; issuing ${TOKENS} tokens`);
    started = Date.now();
    const fixture = await provision(adminClient(gateway.port, adminKey));
    progress(`${TOKENS} tokens issued in ${Date.now() - started} ms`);
    if (profileFlags().length > 0) {
      // The profile covers the load only, not the start-up and the token issuing.
      await gateway.stop();
      gateway = await startGateway(servers, adminKey, profileFlags());
    }
    const tokenInfoPath = `/api/public/v1/${fixture.projectId}/token-info`;
    await checkTokenInfo(gateway.port, tokenInfoPath, fixture.tokens[0] ?? '');

    const ours: Target = { port: gateway.port, path: tokenInfoPath, headers: rotation(fixture.tokens) };
    const baseline: Target = { port: bare.port, path: '/hello', headers: rotation(fixture.tokens) };
    await measureAutocannon('bare warm-up', baseline, WARMUP_S);
    await measureAutocannon('gateway warm-up', ours, WARMUP_S);
    const bareRounds: number[] = [];
    const gatewayRounds: number[] = [];
    for (let round = 1; round <= PEAK_ROUNDS; round += 1) {
      bareRounds.push((await measureAutocannon(`bare peak ${round}`, baseline, PEAK_ROUND_S)).okPerSecond);
      gatewayRounds.push((await measureAutocannon(`gateway peak ${round}`, ours, PEAK_ROUND_S)).okPerSecond);
    }
    progress(
      `peak rounds (req/s): bare ${bareRounds.map(Math.round).join(', ')}; gateway ${gatewayRounds.map(Math.round).join(', ')}`,
    );
    const barePeak = { okPerSecond: median(bareRounds) };
    const gatewayPeak = { okPerSecond: median(gatewayRounds) };
    const rate = Math.max(1, Math.round(gatewayPeak.okPerSecond / 2));
    progress(`peak ${Math.round(gatewayPeak.okPerSecond)} req/s; p99 at ${rate} req/s`);
    const gatewayBursts = await measureAutocannon('gateway at half peak', ours, DURATION_S, rate);
    const bareBursts = await measureAutocannon('bare at half peak', baseline, DURATION_S, rate);
    const gatewayPaced = await measurePaced('gateway paced at half peak', ours, DURATION_S, rate);
    const barePaced = await measurePaced('bare paced at half peak', baseline, DURATION_S, rate);
    return [
      {
        name: `token-info throughput (distributed), median of ${PEAK_ROUNDS} alternating rounds`,
        unit: 'req/s',
        ours: gatewayPeak.okPerSecond,
        baseline: barePeak.okPerSecond,
        target: `≥ ${THROUGHPUT_TARGET * 100}% of bare Express`,
        met: gatewayPeak.okPerSecond >= THROUGHPUT_TARGET * barePeak.okPerSecond,
      },
      p99Row(
        `token-info p99 at 50% of peak, autocannon overallRate (${rate} req/s)`,
        gatewayBursts,
        bareBursts,
      ),
      p99Row(`token-info p99 at 50% of peak, evenly paced (${rate} req/s)`, gatewayPaced, barePaced),
    ];
  } finally {
    await Promise.all([gateway.stop(), bare.stop()]);
  }
}
