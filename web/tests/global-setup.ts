/**
 * Starts Verdict as a newcomer would (`npm start`, a fresh data folder, a free port), reads what its first
 * start prints (the sign-in link, the demo token, the admin key), records real artifacts with Chromium and
 * sends three runs through @verdict/client, then the manual-testing fixture (suites, cases, a release and a
 * run). The teardown it returns stops that Verdict.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { unwrap } from '@verdict/client';
import { recordArtifacts } from './support/artifacts';
import { seedManualTesting } from './support/fixtureManual';
import { FAILING, ingestFixtureRuns } from './support/fixtureRuns';
import { clientFor, STATE_FILE, type VerdictState } from './support/verdict';

const REPO = path.resolve(import.meta.dirname, '..', '..');
const START_TIMEOUT_MS = 180_000;

function match(output: string, pattern: RegExp, what: string): string {
  const found = pattern.exec(output)?.[1];
  if (!found) throw new Error(`npm start printed no ${what}; output:\n${output}`);
  return found;
}

function waitForStart(child: ChildProcess, output: () => string): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`npm start did not start in time:\n${output()}`)),
      START_TIMEOUT_MS,
    );
    const check = () => {
      // The first start prints its admin key last.
      if (/Admin key:\s+\S+/.test(output())) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout?.on('data', check);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${output()}`));
    });
  });
}

export default async function globalSetup(): Promise<() => Promise<void>> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'verdict-web-tests-'));
  // Links must name the address this Verdict listens on: a VERDICT_PUBLIC_URL of the caller's is dropped.
  const { VERDICT_PUBLIC_URL: _ignored, ...environment } = process.env;
  // `npm start` is `node scripts/run.cjs start`: run exactly that, under the Node that runs these tests.
  const child = spawn(process.execPath, [path.join(REPO, 'scripts', 'run.cjs'), 'start'], {
    cwd: REPO,
    // Webhook tests deliver to a receiver on this machine's loopback address.
    env: {
      ...environment,
      PORT: '0',
      VERDICT_DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(dataDir, { recursive: true, force: true });
  };
  try {
    await waitForStart(child, () => output);
    const url = match(output, /Verdict is running \(embedded mode\) at (http:\/\/localhost:\d+)/, 'address');
    const state: VerdictState = {
      url,
      projectId: match(output, /Project id:\s+(\S+)/, 'project id'),
      organizationId: '',
      demoUserId: '',
      demoToken: match(output, /Token:\s+(svc_pat_\S+)/, 'demo token'),
      signInLink: match(output, /Sign in:\s+(http\S+#code=\S+)/, 'sign-in link'),
      adminKey: match(output, /Admin key:\s+(\S+)/, 'admin key'),
      runIds: [],
      failedRunId: '',
      failingCaseId: '',
      failingUiUrl: '',
      manual: {
        suiteIds: { checkout: '', payments: '', accounts: '' },
        caseIds: [],
        releaseId: '',
        runId: '',
      },
    };
    const verdict = clientFor(state, state.demoToken);
    const session = unwrap(await verdict.api.GET('/session')).data;
    state.organizationId = session.projects[0]?.organizationId ?? '';
    state.demoUserId = session.user?.id ?? '';
    const artifacts = await recordArtifacts(path.join(dataDir, 'artifacts'));
    const runs = await ingestFixtureRuns(verdict, artifacts);
    state.runIds = runs.runIds;
    state.failedRunId = runs.failedRunId;
    // As a CI log would show it: the run's debug bundle names the failing test and its page.
    const runBundle = await verdict.debugBundle({ runId: runs.failedRunId, limit: 50 });
    const failing =
      runBundle.data.scope === 'run'
        ? runBundle.data.items.find((item) => item.title === FAILING.titlePath.at(-1))
        : undefined;
    if (!failing) throw new Error('the failed run has no failing "pays with a card"');
    state.failingCaseId = failing.caseId;
    const testBundle = await verdict.debugBundle({
      runId: runs.failedRunId,
      caseId: failing.caseId,
      project: FAILING.project,
    });
    state.failingUiUrl = testBundle.data.links.uiUrl;
    state.manual = await seedManualTesting(verdict, state.projectId);
    mkdirSync(path.dirname(STATE_FILE), { recursive: true });
    writeFileSync(STATE_FILE, JSON.stringify(state, null, 2));
    return stop;
  } catch (error) {
    await stop();
    throw error;
  }
}
