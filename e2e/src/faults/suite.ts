/**
 * The fault-injection suite (issue 33): while shards stream results, receivers listen and a reader polls,
 * each fault hits a running Verdict in turn (a process killed with SIGKILL, a server restarted or stopped
 * for a while, the embedded process killed mid-ingest); each fault has a window of its own (a project of
 * its own, a run per shard), judged by checks.ts once every window ran. The local servers are brought
 * back up whatever happens.
 */
import { createPostgresDatabase } from '@verdict/platform/postgres';
import type { SqlDatabase } from '@verdict/platform';
import { judgeWindow, type WindowCounts } from './checks';
import {
  allReady,
  INFRA,
  infra,
  startDistributed,
  startEmbedded,
  type DistributedTarget,
  type EmbeddedTarget,
  type InfraName,
  type ServiceName,
  type Target,
} from './stack';
import {
  call,
  provisionTenant,
  startReader,
  startReceivers,
  streamShard,
  subscribe,
  type Receivers,
  type ShardOutcome,
  type Tenant,
} from './traffic';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type FaultName =
  | 'kill -9 test-results'
  | 'kill -9 test-results-projector'
  | 'kill -9 analytics'
  | 'kill -9 webhooks'
  | 'kill -9 gateway'
  | 'restart kafka'
  | 'restart postgres'
  | 'stop redis'
  | 'stop schema registry'
  | 'kill -9 npm start';

export const ALL_FAULTS: readonly FaultName[] = [
  'kill -9 test-results',
  'kill -9 test-results-projector',
  'kill -9 analytics',
  'kill -9 webhooks',
  'kill -9 gateway',
  'restart kafka',
  'restart postgres',
  'stop redis',
  'stop schema registry',
  'kill -9 npm start',
];

const KILLS: Partial<Record<FaultName, ServiceName>> = {
  'kill -9 test-results': 'test-results',
  'kill -9 test-results-projector': 'test-results-projector',
  'kill -9 analytics': 'analytics',
  'kill -9 webhooks': 'webhooks',
  'kill -9 gateway': 'gateway',
};

export interface SuiteOptions {
  faults: readonly FaultName[];
  shards: number;
  resultsPerShard: number;
  batchSize: number;
  /** How long Redis and the schema registry stay down. */
  outageMs: number;
  /** How long the asynchronous read models get to catch up before a window is judged. */
  settleMs: number;
  /** The longest a service may take to come back on its own. */
  recoverTimeoutMs: number;
  /** The longest a shard keeps trying (its run, its batches, its finish) from the start of its window. */
  shardTimeoutMs: number;
  log(line: string): void;
}

export interface FaultRow {
  fault: FaultName;
  counts: WindowCounts;
  /** Milliseconds from the end of the fault until every process answered /readyz and a read succeeded. */
  recoverMs: number | null;
  /** False when it took a hand (a launcher started again by the suite). */
  recovered: boolean;
  note: string;
  problems: string[];
}

interface Recovery {
  recoverMs: number | null;
  recovered: boolean;
  note: string;
}

/** Waits until every process is ready and a read succeeds; `extra` must hold too (a restarted pid). */
async function awaitRecovery(
  target: Target,
  readerToken: string,
  project: string,
  from: number,
  timeoutMs: number,
  extra: () => boolean = () => true,
  launcherAlive: () => boolean = () => true,
): Promise<Recovery | 'launcher stopped'> {
  const deadline = from + timeoutMs;
  while (Date.now() < deadline) {
    if (!launcherAlive()) return 'launcher stopped';
    const ready =
      extra() &&
      (await allReady(target.readyPorts())) &&
      (await call(target.baseUrl, 'GET', `/api/public/v1/${project}/test-runs?limit=1`, readerToken).then(
        (answer) => answer.status === 200,
        () => false,
      ));
    if (ready) return { recoverMs: Date.now() - from, recovered: true, note: '' };
    await sleep(250);
  }
  return { recoverMs: null, recovered: false, note: `not recovered within ${timeoutMs / 1000} s` };
}

/** A launcher that stopped everything (a service died and it does not restart one) is started by hand. */
async function relaunchByHand(target: DistributedTarget, from: number): Promise<Recovery> {
  const why = /(\S+) exited unexpectedly \(([^)]*)\)/.exec(target.launcher.output());
  await target.relaunch();
  return {
    recoverMs: Date.now() - from,
    recovered: false,
    note: `the launcher stopped every service${why ? ` when ${why[1]} exited (${why[2]})` : ''}; started again by hand`,
  };
}

async function injectDistributed(
  target: DistributedTarget,
  fault: FaultName,
  tenant: Tenant,
  project: string,
  options: SuiteOptions,
): Promise<Recovery> {
  const service = KILLS[fault];
  let from: number;
  let extra = () => true;
  if (service) {
    const pid = target.pidOf(service);
    const starts = target.startsOf(service);
    if (pid === undefined) throw new Error(`no pid for ${service}`);
    process.kill(pid, 'SIGKILL');
    from = Date.now();
    extra = () => target.startsOf(service) > starts;
  } else {
    const bounce = async (name: InfraName, downMs: number) => {
      await infra('down', [name]);
      await sleep(downMs);
      await infra('up', [name]);
    };
    if (fault === 'restart kafka') await bounce('kafka', 0);
    else if (fault === 'restart postgres') await bounce('postgres', 0);
    else if (fault === 'stop redis') await bounce('redis', options.outageMs);
    else if (fault === 'stop schema registry') await bounce('apicurio', options.outageMs);
    from = Date.now();
  }
  const recovery = await awaitRecovery(
    target,
    tenant.readerToken,
    project,
    from,
    options.recoverTimeoutMs,
    extra,
    () => target.alive(),
  );
  if (recovery !== 'launcher stopped') {
    if (!target.alive()) return relaunchByHand(target, from);
    return recovery;
  }
  return relaunchByHand(target, from);
}

async function injectEmbedded(
  target: EmbeddedTarget,
  tenant: Tenant,
  project: string,
  options: SuiteOptions,
): Promise<Recovery> {
  await target.crash();
  const from = Date.now();
  await target.restart();
  const recovery = await awaitRecovery(target, tenant.readerToken, project, from, options.recoverTimeoutMs);
  if (recovery === 'launcher stopped') throw new Error('unreachable');
  const again = 'started again on the same data folder';
  return { ...recovery, note: recovery.note === '' ? again : `${again}, ${recovery.note}` };
}

interface Window {
  fault: FaultName;
  project: string;
  subscriptions: string[];
  outcomes: ShardOutcome[];
  recovery: Recovery;
}

/** One window: the shards stream; once a quarter is acknowledged the fault hits; half waits for it. */
async function runWindow(
  target: Target,
  fault: FaultName,
  tenant: Tenant,
  project: string,
  receivers: Receivers,
  options: SuiteOptions,
): Promise<Window> {
  const subscriptions = await subscribe(target.baseUrl, project, tenant.readerToken, receivers);
  const reader = startReader(target.baseUrl, project, tenant.readerToken, 2_000);
  const total = options.shards * options.resultsPerShard;
  const batches = Math.ceil(options.resultsPerShard / options.batchSize);
  let acknowledged = 0;
  let strike: () => void = () => undefined;
  const struck = new Promise<void>((resolve) => (strike = resolve));
  const deadline = Date.now() + options.shardTimeoutMs;
  const shards = Array.from({ length: options.shards }, (_, shard) =>
    streamShard({
      baseUrl: target.baseUrl,
      project,
      token: tenant.shardTokens[shard] as string,
      shard,
      label: fault.replace(/[^a-z0-9]+/gi, '-'),
      results: options.resultsPerShard,
      batchSize: options.batchSize,
      withFailures: shard % 2 === 1,
      // The second half of every shard is sent once the fault has struck, so it lands mid-ingest.
      gate: (batch) => (batch >= Math.ceil(batches / 2) ? struck : Promise.resolve()),
      deadline,
      onAcknowledged(count) {
        acknowledged += count;
        if (acknowledged >= total / 4) strike();
      },
    }),
  );
  // A window whose first quarter is slow still gets its fault.
  await Promise.race([struck, sleep(120_000)]);
  options.log(`${fault}: striking at ${acknowledged} of ${total} results acknowledged`);
  const injecting =
    target.mode === 'embedded'
      ? injectEmbedded(target as EmbeddedTarget, tenant, project, options)
      : injectDistributed(target as DistributedTarget, fault, tenant, project, options);
  // The shards go on while the fault lasts: an outage of a server is a time of retries for them.
  strike();
  const recovery = await injecting;
  const outcomes = await Promise.all(shards);
  await reader.stop();
  options.log(
    `${fault}: ${recovery.recovered ? `recovered in ${recovery.recoverMs} ms` : recovery.note}; shards done`,
  );
  return { fault, project, subscriptions, outcomes, recovery };
}

async function judge(
  windows: readonly Window[],
  target: Target,
  tenant: Tenant,
  receivers: Receivers,
  db: SqlDatabase | null,
  options: SuiteOptions,
): Promise<FaultRow[]> {
  const rows: FaultRow[] = [];
  for (const window of windows) {
    const verdict = await judgeWindow({
      baseUrl: target.baseUrl,
      project: window.project,
      readerToken: tenant.readerToken,
      outcomes: window.outcomes,
      subscriptions: window.subscriptions,
      deliveries: () => receivers.deliveries,
      db,
      settleMs: options.settleMs,
    });
    const problems = [...verdict.problems];
    if (!window.recovery.recovered) problems.push(`did not recover without a hand: ${window.recovery.note}`);
    rows.push({
      fault: window.fault,
      counts: verdict.counts,
      recoverMs: window.recovery.recoverMs,
      recovered: window.recovery.recovered,
      note: window.recovery.note,
      problems,
    });
    options.log(`${window.fault}: ${problems.length === 0 ? 'held' : problems.join('; ')}`);
  }
  return rows;
}

/** A project per fault on one tenant, each fault's window in turn, then every window judged. */
async function runAndJudge(
  target: Target,
  faults: readonly FaultName[],
  receivers: Receivers,
  db: SqlDatabase | null,
  options: SuiteOptions,
): Promise<FaultRow[]> {
  const tenant = await provisionTenant(target.baseUrl, target.adminKey, faults.length, options.shards);
  const windows: Window[] = [];
  for (const [index, fault] of faults.entries()) {
    windows.push(
      await runWindow(target, fault, tenant, tenant.projects[index] as string, receivers, options),
    );
  }
  return judge(windows, target, tenant, receivers, db, options);
}

async function runDistributed(
  faults: readonly FaultName[],
  options: SuiteOptions,
  whenUp: () => void,
): Promise<FaultRow[]> {
  if (faults.length === 0) {
    whenUp();
    return [];
  }
  const receivers = await startReceivers();
  let target: DistributedTarget | undefined;
  const db = createPostgresDatabase({
    connectionString: process.env.DATABASE_URL ?? '',
    max: 2,
    applicationName: 'fault-suite',
  });
  try {
    target = await startDistributed();
    options.log(`distributed Verdict up at ${target.baseUrl}`);
    whenUp();
    return await runAndJudge(target, faults, receivers, db, options);
  } finally {
    await target?.stop();
    await receivers.close();
    await db.close();
  }
}

async function runEmbedded(faults: readonly FaultName[], options: SuiteOptions): Promise<FaultRow[]> {
  if (faults.length === 0) return [];
  const receivers = await startReceivers();
  let target: EmbeddedTarget | undefined;
  try {
    target = await startEmbedded();
    options.log(`npm start up at ${target.baseUrl} (data folder ${target.dataDir})`);
    return await runAndJudge(target, faults, receivers, null, options);
  } finally {
    await target?.stop();
    await receivers.close();
  }
}

/**
 * Runs the faults and brings every server back up. The embedded Verdict shares no server with the
 * distributed one: its window runs beside theirs, from the moment the distributed mode is up (the web app
 * it serves is built by then, so the two starts never build it at once).
 */
export async function runFaultSuite(options: SuiteOptions): Promise<FaultRow[]> {
  const distributed = options.faults.filter((fault) => fault !== 'kill -9 npm start');
  const embedded = options.faults.filter((fault) => fault === 'kill -9 npm start');
  // Settled as soon as it ends, so that a failure of the embedded window waits for the distributed ones.
  let embeddedRows: Promise<PromiseSettledResult<FaultRow[]>> = Promise.resolve({
    status: 'fulfilled',
    value: [],
  });
  try {
    const distributedRows = await runDistributed(distributed, options, () => {
      embeddedRows = runEmbedded(embedded, options).then(
        (value) => ({ status: 'fulfilled', value }),
        (reason: unknown) => ({ status: 'rejected', reason }),
      );
    });
    const embeddedRun = await embeddedRows;
    if (embeddedRun.status === 'rejected') throw embeddedRun.reason;
    return [...distributedRows, ...embeddedRun.value];
  } finally {
    await embeddedRows;
    await infra('up', INFRA);
  }
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** The table of issue 33, as Markdown. */
export function faultTable(rows: readonly FaultRow[]): string {
  const header =
    '| fault | results sent | acknowledged | readable | duplicated | deliveries expected | received | time to recover |';
  const lines = rows.map((row) => {
    const c = row.counts;
    const recover = row.recovered
      ? seconds(row.recoverMs ?? 0)
      : `not by itself: ${row.note}${row.recoverMs === null ? '' : ` (${seconds(row.recoverMs)})`}`;
    return `| ${row.fault} | ${c.sent} | ${c.acknowledged} | ${c.readable} | ${c.duplicated} | ${c.deliveriesExpected} | ${c.deliveriesReceived} | ${recover} |`;
  });
  return [header, '|---|---:|---:|---:|---:|---:|---:|---|', ...lines].join('\n');
}
