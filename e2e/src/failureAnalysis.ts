/**
 * One crafted history told through the public API, and what failure analysis must say of it: the same in
 * the embedded and the distributed mode. A base run on main, then a run on a feature branch where one test
 * fails for the first time (new), one still fails as on main (failing-on-base, its error differing only in a
 * port), one turns flaky, one got slower and one is added.
 */
export interface Answer {
  status: number;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any -- answers are checked by expect()
  body: any;
}
export type Call = (method: string, urlPath: string, body?: unknown) => Promise<Answer>;

const at = (minutesAgo: number) => new Date(Date.now() - minutesAgo * 60_000).toISOString();

function result(title: string, status: string, durationMs: number, startedAt: string, extra: object = {}) {
  return {
    file: 'tests/shop.spec.ts',
    titlePath: ['shop', title],
    attempt: 0,
    status,
    durationMs,
    startedAt,
    ...extra,
  };
}
const refused = (port: number) => ({
  message: `Error: connect ECONNREFUSED 127.0.0.1:${port}`,
  stack: `Error: connect ECONNREFUSED 127.0.0.1:${port}\n    at pay (/ci/work/shop/tests/shop.spec.ts:12:5)`,
});

async function sendRun(call: Call, api: string, start: object, results: object[]): Promise<string> {
  const started = await call('POST', `${api}/test-runs`, start);
  expect(started.status).toBe(201);
  const runId = started.body.data.id as string;
  expect((await call('POST', `${api}/test-runs/${runId}/results`, { results })).status).toBe(202);
  expect((await call('POST', `${api}/test-runs/${runId}/finish`, {})).status).toBe(200);
  return runId;
}

/** Reads until `done` holds or 30 s passed (the distributed mode's projector may lag a read model). */
async function eventually(read: () => Promise<Answer>, done: (answer: Answer) => boolean): Promise<Answer> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await read();
    if (done(answer) || Date.now() > deadline) return answer;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const titles = (category: { items: { title: string }[] }) => category.items.map((item) => item.title).sort();

/** Sends the history into project `projectId` and checks verdicts, comparison, error groups and suspects. */
export async function checkFailureAnalysis(call: Call, projectId: string): Promise<void> {
  const api = `/api/public/v1/${projectId}`;
  const baseStart = at(30);
  const baseRunId = await sendRun(
    call,
    api,
    { branch: 'main', startedAt: baseStart, commit: { sha: 'a1b2c3d', author: 'Ana' } },
    [
      result('lists items', 'passed', 100, baseStart),
      result('applies a coupon', 'passed', 100, baseStart),
      result('pays', 'failed', 100, baseStart, { error: refused(54_321) }),
      result('renders the cart', 'passed', 1_000, baseStart),
    ],
  );
  const runStart = at(10);
  const runId = await sendRun(
    call,
    api,
    { branch: 'feature/coupons', startedAt: runStart, commit: { sha: 'e4f5a6b', author: 'Ben' } },
    [
      result('lists items', 'failed', 100, runStart, {
        error: { message: 'Error: expected 3 items, got 4' },
      }),
      result('applies a coupon', 'failed', 100, runStart, { error: { message: 'Error: coupon flickered' } }),
      { ...result('applies a coupon', 'passed', 100, runStart), attempt: 1 },
      result('pays', 'failed', 100, runStart, { error: refused(61_000) }),
      result('renders the cart', 'passed', 5_000, runStart),
      result('shows the coupon field', 'passed', 100, runStart),
    ],
  );

  const detail = await eventually(
    () => call('GET', `${api}/test-runs/${runId}?include=failures`),
    (answer) => answer.body?.data?.failures?.items?.length === 2,
  );
  expect(detail.status).toBe(200);
  const failures = detail.body.data.failures;
  expect(failures).toMatchObject({
    baseBranch: 'main',
    baseRunId,
    counts: { new: 1, failingOnBase: 1, knownFlaky: 0, quarantined: 0 },
  });
  const verdictOf = (title: string) =>
    failures.items.find((item: { title: string }) => item.title === title)?.verdict;
  expect([verdictOf('lists items'), verdictOf('pays')]).toEqual(['new', 'failing-on-base']);

  const compared = await call('GET', `${api}/test-runs/${runId}/compare?baseBranch=main`);
  expect(compared.status).toBe(200);
  const comparison = compared.body.data;
  expect(comparison.base.id).toBe(baseRunId);
  expect({
    newFailures: titles(comparison.newFailures),
    stillFailing: titles(comparison.stillFailing),
    newlyFlaky: titles(comparison.newlyFlaky),
    slower: titles(comparison.slower),
    added: titles(comparison.added),
    fixed: comparison.fixed.count,
    removed: comparison.removed.count,
  }).toEqual({
    newFailures: ['lists items'],
    stillFailing: ['pays'],
    newlyFlaky: ['applies a coupon'],
    slower: ['renders the cart'],
    added: ['shows the coupon field'],
    fixed: 0,
    removed: 0,
  });
  const noBase = await call('GET', `${api}/test-runs/${baseRunId}/compare`);
  expect(noBase.status).toBe(200);
  expect(noBase.body.data.base).toBeNull();
  expect(noBase.body.data.noBaseReason).toEqual(expect.any(String));
  expect((await call('GET', `${api}/test-runs/${runId}/compare?base=${runId}`)).status).toBe(400);

  const errors = await eventually(
    () => call('GET', `${api}/errors?search=ECONNREFUSED`),
    (answer) => answer.body?.data?.[0]?.occurrences === 2,
  );
  expect(errors.status).toBe(200);
  expect(errors.body.data).toHaveLength(1);
  expect(errors.body.data[0]).toMatchObject({ occurrences: 2, runs: 2, testsAffected: 1 });
  const group = await call('GET', `${api}/errors/${errors.body.data[0].signatureId}`);
  expect(group.status).toBe(200);
  expect(group.body.data.hits.map((hit: { runId: string }) => hit.runId)).toEqual([runId, baseRunId]);

  const failing = failures.items.find((item: { title: string }) => item.title === 'lists items');
  const branch = encodeURIComponent('feature/coupons');
  const suspects = await call(
    'GET',
    `${api}/test-cases/${failing.testCaseId}/suspect-commits?branch=${branch}`,
  );
  expect(suspects.status).toBe(200);
  expect(suspects.body.data).toMatchObject({ newFailure: true, lastPass: null, firstFail: { runId } });
}
