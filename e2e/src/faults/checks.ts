/**
 * What must hold after a fault window: every acknowledged result reads back exactly once, the runs'
 * stats and the analytics totals are exact (the latter against a recount of the event store), every
 * run.started and run.finished reached every subscription under one X-Service-Delivery id, no run is
 * left running. Asynchronous read models get a bounded time to catch up; what is still wrong then is a
 * finding.
 */
import type { SqlDatabase } from '@verdict/platform';
import { resultKey, type Answer, type Delivery, type ShardOutcome } from './traffic';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * A read of the checks: a 429 (spec §8's 100 reads a minute per token, which judging ten windows with one
 * token exceeds) waits as long as Retry-After says and asks again, as a client would.
 */
async function call(baseUrl: string, method: string, urlPath: string, bearer: string): Promise<Answer> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const response = await fetch(`${baseUrl}${urlPath}`, {
      method,
      headers: { authorization: `Bearer ${bearer}` },
      signal: AbortSignal.timeout(30_000),
    });
    if (response.status !== 429 || Date.now() > deadline) {
      const text = await response.text();
      return { status: response.status, body: text === '' ? null : (JSON.parse(text) as unknown) };
    }
    await response.body?.cancel();
    await sleep(Number(response.headers.get('retry-after') ?? '1') * 1000 || 1000);
  }
}

export interface WindowCounts {
  sent: number;
  acknowledged: number;
  readable: number;
  duplicated: number;
  deliveriesExpected: number;
  deliveriesReceived: number;
}

export interface WindowVerdict {
  counts: WindowCounts;
  /** Every broken guarantee, one sentence each; empty when the window held. */
  problems: string[];
}

interface SpecTest {
  titlePath: string[];
  project: string | null;
  attempts: number;
}

interface RunRead {
  status: string;
  stats: { total: number; passed: number; failed: number; flaky: number; skipped: number };
  specs: { file: string; tests: SpecTest[] }[];
}

async function readRun(baseUrl: string, project: string, token: string, runId: string): Promise<RunRead> {
  const answer = await call(
    baseUrl,
    'GET',
    `/api/public/v1/${project}/test-runs/${runId}?include=specs`,
    token,
  );
  if (answer.status !== 200) throw new Error(`GET run ${runId}: ${answer.status}`);
  return answer.body.data as RunRead;
}

/** Readable, duplicated and missing results of one shard's run, and its stats against what was sent. */
function judgeRun(outcome: ShardOutcome, run: RunRead, problems: string[]) {
  const seen = new Map<string, number>();
  for (const spec of run.specs) {
    for (const test of spec.tests) {
      // Every result is attempt 0: a test read with more attempts holds a duplicate.
      const key = resultKey({
        file: spec.file,
        titlePath: test.titlePath,
        project: test.project ?? undefined,
        attempt: 0,
      });
      seen.set(key, (seen.get(key) ?? 0) + test.attempts);
    }
  }
  let readable = 0;
  let duplicated = 0;
  const missing: string[] = [];
  for (const key of outcome.acknowledged) {
    const times = seen.get(key) ?? 0;
    if (times > 0) readable += 1;
    else missing.push(key);
    duplicated += Math.max(0, times - 1);
  }
  const unknown = [...seen.keys()].filter((key) => !outcome.sent.has(key));
  const label = `shard ${outcome.shard} (run ${outcome.runId})`;
  if (missing.length > 0)
    problems.push(`${label}: ${missing.length} acknowledged results unreadable, e.g. ${missing[0]}`);
  if (duplicated > 0) problems.push(`${label}: ${duplicated} results read more than once`);
  if (unknown.length > 0) problems.push(`${label}: ${unknown.length} results read that were never sent`);
  // The run holds what was sent and read; its stats count exactly those tests.
  const stored = [...seen.keys()].filter((key) => outcome.sent.has(key));
  const failed = stored.filter((key) => outcome.sent.get(key)?.status === 'failed').length;
  const expected = { total: stored.length, passed: stored.length - failed, failed, flaky: 0, skipped: 0 };
  if (JSON.stringify(run.stats) !== JSON.stringify(expected))
    problems.push(`${label}: stats ${JSON.stringify(run.stats)}, expected ${JSON.stringify(expected)}`);
  if (run.status !== 'finished') problems.push(`${label}: left ${run.status}`);
  return { readable, duplicated };
}

/** The analytics totals as the event store has them (the test-results events of the project). */
export async function recountFromEventStore(db: SqlDatabase, project: string) {
  const { rows } = await db.query<{
    runs: number;
    passed: number;
    failed: number;
    cases: number;
  }>(
    `WITH runs AS (
       SELECT data->>'runId' AS run_id FROM test_results.events
       WHERE project_id = $1 AND type = 'run.created'
     ), finished AS (
       SELECT DISTINCT ON (data->>'runId') data->>'runId' AS run_id, data->>'status' AS status
       FROM test_results.events WHERE project_id = $1 AND type = 'run.finished'
       ORDER BY data->>'runId', global_position
     ), results AS (
       SELECT data->>'runId' AS run_id, data->'item'->>'file' AS file,
         (data->'item'->'titlePath')::text AS title_path, coalesce(data->'item'->>'project', '') AS platform,
         data->'item'->>'status' AS status
       FROM test_results.events WHERE project_id = $1 AND type = 'test.result-recorded'
     ), failing AS (SELECT DISTINCT run_id FROM results WHERE status = 'failed')
     SELECT (SELECT count(*) FROM runs)::int AS runs,
       (SELECT count(*) FROM finished f WHERE coalesce(f.status, 'passed') = 'passed'
          AND f.run_id NOT IN (SELECT run_id FROM failing))::int AS passed,
       (SELECT count(*) FROM finished f WHERE coalesce(f.status, 'passed') <> 'passed'
          OR f.run_id IN (SELECT run_id FROM failing))::int AS failed,
       (SELECT count(DISTINCT (file, title_path, platform)) FROM results)::int AS cases`,
    [project],
  );
  const row = rows[0] ?? { runs: 0, passed: 0, failed: 0, cases: 0 };
  return { totalRuns: row.runs, passedRuns: row.passed, failedRuns: row.failed, totalTestCases: row.cases };
}

type Totals = Awaited<ReturnType<typeof recountFromEventStore>>;

async function analyticsTotals(baseUrl: string, project: string, token: string): Promise<Totals | null> {
  const answer = await call(
    baseUrl,
    'GET',
    `/api/public/v1/${project}/analytics/summary?dateRange=7d`,
    token,
  ).catch(() => null);
  if (answer?.status !== 200) return null;
  const { totalRuns, passedRuns, failedRuns, totalTestCases } = answer.body.data.metrics as Totals;
  return { totalRuns, passedRuns, failedRuns, totalTestCases };
}

/** Deliveries per subscription, event and run: how many distinct X-Service-Delivery ids each got. */
function judgeDeliveries(
  deliveries: readonly Delivery[],
  subscriptions: readonly string[],
  runIds: readonly string[],
) {
  const ids = new Map<string, Set<string>>();
  for (const delivery of deliveries) {
    const key = `${delivery.subscription} ${delivery.eventName} ${delivery.runId}`;
    const set = ids.get(key) ?? new Set<string>();
    set.add(delivery.deliveryId);
    ids.set(key, set);
  }
  const expected: string[] = [];
  for (const subscription of subscriptions)
    for (const eventName of ['run.started', 'run.finished'])
      for (const runId of runIds) expected.push(`${subscription} ${eventName} ${runId}`);
  const received = expected.filter((key) => (ids.get(key)?.size ?? 0) > 0);
  const underSeveralIds = expected.filter((key) => (ids.get(key)?.size ?? 0) > 1);
  return { expected, received, underSeveralIds };
}

export interface WindowFacts {
  baseUrl: string;
  project: string;
  readerToken: string;
  outcomes: ShardOutcome[];
  subscriptions: string[];
  deliveries: () => readonly Delivery[];
  /**
   * The event store of the distributed mode; null in the embedded mode, whose PGlite only its process
   * opens: there the analytics totals are compared with what the shards had acknowledged.
   */
  db: SqlDatabase | null;
  /** How long the asynchronous read models (analytics, webhooks) get to catch up. */
  settleMs: number;
}

/** The analytics totals, their recount and the deliveries, once they agree or `settleMs` has passed. */
async function settle(facts: WindowFacts, runIds: readonly string[]) {
  const deadline = Date.now() + facts.settleMs;
  for (;;) {
    const recount = facts.db
      ? await recountFromEventStore(facts.db, facts.project)
      : expectedTotals(facts.outcomes);
    const analytics = await analyticsTotals(facts.baseUrl, facts.project, facts.readerToken);
    const deliveries = judgeDeliveries(facts.deliveries(), facts.subscriptions, runIds);
    const settled =
      JSON.stringify(analytics) === JSON.stringify(recount) &&
      deliveries.received.length === deliveries.expected.length;
    if (settled || Date.now() > deadline) return { analytics, recount, deliveries };
    await sleep(2_000);
  }
}

export async function judgeWindow(facts: WindowFacts): Promise<WindowVerdict> {
  const problems: string[] = [];
  const counts: WindowCounts = {
    sent: 0,
    acknowledged: 0,
    readable: 0,
    duplicated: 0,
    deliveriesExpected: 0,
    deliveriesReceived: 0,
  };
  const runIds: string[] = [];
  for (const outcome of facts.outcomes) {
    counts.sent += outcome.sent.size;
    counts.acknowledged += outcome.acknowledged.size;
    if (outcome.sent.size > outcome.acknowledged.size)
      problems.push(
        `shard ${outcome.shard}: ${outcome.sent.size - outcome.acknowledged.size} results never acknowledged (${outcome.errors[0] ?? ''})`,
      );
    if (outcome.runId === undefined) {
      problems.push(`shard ${outcome.shard}: its run never started (${outcome.errors[0] ?? ''})`);
      continue;
    }
    runIds.push(outcome.runId);
    if (outcome.finishedWith === undefined)
      problems.push(`shard ${outcome.shard}: its finish never got a 2xx (${outcome.errors[0] ?? ''})`);
    const run = await readRun(facts.baseUrl, facts.project, facts.readerToken, outcome.runId).catch(
      (error: unknown) => {
        problems.push(`shard ${outcome.shard}: its run cannot be read: ${String(error)}`);
        return null;
      },
    );
    if (!run) continue;
    const judged = judgeRun(outcome, run, problems);
    counts.readable += judged.readable;
    counts.duplicated += judged.duplicated;
  }

  const list = await call(
    facts.baseUrl,
    'GET',
    `/api/public/v1/${facts.project}/test-runs?limit=100`,
    facts.readerToken,
  );
  const listed = (list.body?.data ?? []) as { id: string; status: string }[];
  if (list.status !== 200 || listed.length !== runIds.length)
    problems.push(`the run list holds ${listed.length} runs (${list.status}), expected ${runIds.length}`);
  const running = listed.filter((run) => run.status === 'running');
  if (running.length > 0) problems.push(`${running.length} runs stuck running`);

  // The asynchronous side: the analytics totals and the webhooks, given `settleMs` to catch up.
  const { analytics, recount, deliveries } = await settle(facts, runIds);
  if (JSON.stringify(analytics) !== JSON.stringify(recount))
    problems.push(
      `analytics totals ${JSON.stringify(analytics)}, the event store recounts ${JSON.stringify(recount)}`,
    );
  counts.deliveriesExpected = deliveries.expected.length;
  counts.deliveriesReceived = deliveries.received.length;
  const lost = deliveries.expected.filter((key) => !deliveries.received.includes(key));
  if (lost.length > 0) problems.push(`${lost.length} deliveries never received, e.g. ${lost[0]}`);
  if (deliveries.underSeveralIds.length > 0)
    problems.push(
      `${deliveries.underSeveralIds.length} events delivered under several X-Service-Delivery ids (a de-duplicating receiver sees them more than once), e.g. ${deliveries.underSeveralIds[0]}`,
    );
  return { counts, problems };
}

/** The totals the acknowledged results and finishes make (the embedded mode, whose store is its own). */
function expectedTotals(outcomes: readonly ShardOutcome[]): Totals {
  const runs = outcomes.filter((outcome) => outcome.runId !== undefined);
  const failed = runs.filter((outcome) => outcome.finishedWith === 'failed').length;
  const passed = runs.filter((outcome) => outcome.finishedWith === 'passed').length;
  const cases = runs.reduce((sum, outcome) => sum + outcome.acknowledged.size, 0);
  return { totalRuns: runs.length, passedRuns: passed, failedRuns: failed, totalTestCases: cases };
}
