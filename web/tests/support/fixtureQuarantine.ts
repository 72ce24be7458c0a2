/**
 * The quarantine tests' own runs (issue 32), sent through @verdict/client under a spec file of their own,
 * so no other test sees them: a first run where six tests fail, each with its own error; quarantines of
 * four of them; gate rules; then a second run where one quarantined test fails with its forgiven error
 * (quarantined), another with a new error (the quarantine would mask it), and the gate fails on it.
 */
import type { ResultItem, VerdictClient } from '@verdict/client';
import { unwrap } from '@verdict/client';

export const TITLES = {
  forgiven: ['quarantine', 'forgiven failure'],
  masked: ['quarantine', 'fails another way'],
  soon: ['quarantine', 'expires soon'],
  later: ['quarantine', 'expires later'],
  fromPage: ['quarantine', 'quarantined from its page'],
  meanwhile: ['quarantine', 'quarantined meanwhile'],
  passes: ['quarantine', 'always passes'],
} as const;
export type FixtureTest = keyof typeof TITLES;

export interface QuarantineFixture {
  file: string;
  firstRunId: string;
  secondRunId: string;
  /** Test case ids by fixture name. */
  caseIds: Record<FixtureTest, string>;
  /** The owner of the "expires soon" quarantine: someone other than the demo user. */
  otherOwner: { userId: string; name: string };
}

const DAY = 86_400_000;
const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];

function failed(file: string, titlePath: readonly string[], word: string, line: number): ResultItem {
  const message = `Error: the ${word} check went wrong`;
  return {
    file,
    titlePath: [...titlePath],
    project: 'chromium',
    attempt: 0,
    status: 'failed',
    durationMs: 400,
    startedAt: new Date().toISOString(),
    error: {
      message,
      stack: `${message}\n    at /repo/${file}:${line}:7`,
      location: { file, line, column: 7 },
    },
  };
}

function passed(file: string, titlePath: readonly string[]): ResultItem {
  return {
    file,
    titlePath: [...titlePath],
    project: 'chromium',
    attempt: 0,
    status: 'passed',
    durationMs: 300,
    startedAt: new Date().toISOString(),
  };
}

async function until<T>(what: string, read: () => Promise<T | null>): Promise<T> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const value = await read();
    if (value !== null) return value;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

async function failuresOf(verdict: VerdictClient, projectId: string, runId: string, count: number) {
  return until(`the ${count} failures of run ${runId}`, async () => {
    const run = unwrap(
      await verdict.api.GET('/{projectId}/test-runs/{runId}', {
        params: { path: { projectId, runId }, query: { include: 'failures' } },
      }),
    ).data;
    const items = run.failures?.items ?? [];
    return items.length >= count ? items : null;
  });
}

export async function seedQuarantines(
  verdict: VerdictClient,
  projectId: string,
  demoUserId: string,
  otherOwner: { userId: string; name: string },
): Promise<QuarantineFixture> {
  const stamp = Date.now();
  const file = `tests/quarantine-${stamp}.spec.ts`;
  const branch = `quarantine-${stamp}`;
  const failing: FixtureTest[] = ['forgiven', 'masked', 'soon', 'later', 'fromPage', 'meanwhile'];

  const first = (await verdict.startRun({ title: 'Quarantine, before', branch })).run;
  await verdict.addResults(first.id, [
    ...failing.map((name, index) => failed(file, TITLES[name], WORDS[index]!, 10 + index)),
    passed(file, TITLES.passes),
  ]);
  await verdict.finishRun(first.id, { status: 'failed' });
  const items = await failuresOf(verdict, projectId, first.id, failing.length);
  const caseIds = {} as Record<FixtureTest, string>;
  for (const name of failing) {
    const item = items.find((failure) => failure.title === TITLES[name].at(-1));
    if (!item) throw new Error(`the first run has no failure "${TITLES[name].join(' › ')}"`);
    caseIds[name] = item.testCaseId;
  }

  const quarantine = (name: FixtureTest, ownerId: string, days: number, reason: string) =>
    verdict.quarantineTest({
      testCaseId: caseIds[name],
      project: 'chromium',
      reason,
      ownerId,
      expiresAt: new Date(Date.now() + days * DAY).toISOString(),
    });
  await quarantine('forgiven', demoUserId, 30, 'Sandbox payments time out; fix in #201');
  await quarantine('masked', demoUserId, 30, 'Known alpha failure; fix in #202');
  await quarantine('soon', otherOwner.userId, 3, 'Waiting on the staging certificate');
  await quarantine('later', demoUserId, 40, 'Flaky on slow machines; fix in #204');

  await verdict.setGateRules({ maxFailedTests: 0, noNewFailures: true, minPassRate: 0.5 });

  // The second run: "forgiven" fails as before (quarantined), "masked" with a new error (counts).
  const second = (await verdict.startRun({ title: 'Quarantine, after', branch })).run;
  await verdict.addResults(second.id, [
    failed(file, TITLES.forgiven, WORDS[0]!, 10),
    failed(file, TITLES.masked, WORDS[7]!, 40),
    ...(['soon', 'later', 'fromPage', 'meanwhile', 'passes'] as const).map((name) =>
      passed(file, TITLES[name]),
    ),
  ]);
  await verdict.finishRun(second.id, { status: 'failed' });
  await until('the second run judged by its gate', async () => {
    const gate = await verdict.getRunGate(second.id);
    return gate.status === 'passed' || gate.status === 'failed' ? gate : null;
  });
  caseIds.passes = '';
  return { file, firstRunId: first.id, secondRunId: second.id, caseIds, otherOwner };
}
