import { randomBytes } from 'node:crypto';
import { createServer } from 'node:net';
import path from 'node:path';
import { isProcessAlive } from '@verdict/platform';
import { DISTRIBUTED_SERVICES, randomPort, repoRoot, startProcess, type RunningProcess } from './processes';

// `npm run start:distributed` (node scripts/run.cjs start-distributed) under a supervisor: issue 19 saw one
// SIGKILL the launcher's process group mid-stop and leave every service running, ports bound and consumers
// in their groups; the next start then shared partitions with the orphans.

const READY_TIMEOUT_MS = 180_000;
const SERVICES = DISTRIBUTED_SERVICES;

/** Ports of one distributed Verdict, every one chosen at random. */
function portsEnv() {
  return {
    PORT: String(randomPort()),
    VERDICT_TEST_RESULTS_PORT: String(randomPort()),
    VERDICT_TEST_RESULTS_PROJECTOR_PORT: String(randomPort()),
    VERDICT_MANUAL_TESTING_PORT: String(randomPort()),
    VERDICT_WEBHOOKS_PORT: String(randomPort()),
    VERDICT_ANALYTICS_PORT: String(randomPort()),
  };
}

const startDistributed = (env: NodeJS.ProcessEnv, options: { detached?: boolean } = {}) =>
  startProcess(
    process.execPath,
    [path.join(repoRoot, 'scripts/run.cjs'), 'start-distributed'],
    {
      ...env,
      VERDICT_ADMIN_KEY: `e2e-admin-${randomBytes(12).toString('hex')}`,
      VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
      LOG_LEVEL: 'warn',
    },
    options,
  );

function pidsOf(launcher: RunningProcess): Record<string, number> {
  const pids: Record<string, number> = {};
  for (const service of SERVICES) {
    const match = new RegExp(`started ${service} \\(pid (\\d+)\\)`).exec(launcher.output());
    if (!match?.[1]) throw new Error(`no pid for ${service}; output:\n${launcher.output()}`);
    pids[service] = Number(match[1]);
  }
  return pids;
}

/** Every pid the launcher started each service with, in order: a restart adds one. */
function allPidsOf(launcher: RunningProcess, service: string): number[] {
  const started = new RegExp(`started ${service} \\(pid (\\d+)\\)`, 'g');
  return [...launcher.output().matchAll(started)].map((match) => Number(match[1]));
}

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', () => resolve(false));
    probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
  });
}

async function eventually(check: () => Promise<boolean> | boolean, timeoutMs = 40_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  return check();
}

describe('the distributed launcher leaves no orphans', () => {
  const started: RunningProcess[] = [];
  let pids: number[] = [];

  afterEach(async () => {
    // A failed test must leave nothing behind either.
    for (const launcher of started.splice(0)) {
      if (launcher.child.exitCode === null && launcher.child.signalCode === null)
        await launcher.stop('SIGINT');
    }
    for (const pid of pids.splice(0)) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('when the launcher and its npm script are killed with SIGKILL (their whole process group), then every service stops and frees its port', async () => {
    const ports = portsEnv();
    const launcher = startDistributed(ports, { detached: true });
    started.push(launcher);
    await launcher.waitFor('Verdict is running (distributed mode)', READY_TIMEOUT_MS);
    const byService = pidsOf(launcher);
    pids = Object.values(byService);
    expect(pids.every(isProcessAlive)).toBe(true);

    process.kill(-(launcher.child.pid as number), 'SIGKILL');
    await launcher.exited;

    const gone = await eventually(() => pids.every((pid) => !isProcessAlive(pid)));
    expect(Object.entries(byService).filter(([, pid]) => isProcessAlive(pid))).toEqual([]);
    expect(gone).toBe(true);
    for (const port of Object.values(ports).map(Number)) {
      expect({ port, free: await portIsFree(port) }).toEqual({ port, free: true });
    }
  });
});

// One Verdict for the tests below, in order: a distributed start takes most of a minute of the suite's time.
describe('a running distributed Verdict', () => {
  const ports = portsEnv();
  const started: RunningProcess[] = [];
  const pids = new Set<number>();
  let launcher: RunningProcess;
  let before: Record<string, number>;

  beforeAll(async () => {
    launcher = startDistributed(ports);
    started.push(launcher);
    await launcher.waitFor('Verdict is running (distributed mode)', READY_TIMEOUT_MS);
    before = pidsOf(launcher);
    for (const pid of Object.values(before)) pids.add(pid);
  }, READY_TIMEOUT_MS + 30_000);

  afterAll(async () => {
    // A failed test must leave nothing behind either.
    for (const running of started) {
      if (running.child.exitCode === null && running.child.signalCode === null) await running.stop('SIGINT');
    }
    for (const pid of pids) if (isProcessAlive(pid)) process.kill(pid, 'SIGKILL');
  });

  it('when a Verdict still holds a port, then a second start refuses, naming the port and the pid, and starts nothing', async () => {
    const second = startDistributed(ports);
    started.push(second);
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain(`port ${ports.PORT} (gateway) is in use by pid ${before.gateway}`);
    expect(second.output()).toContain(
      `port ${ports.VERDICT_ANALYTICS_PORT} (analytics) is in use by pid ${before.analytics}`,
    );
    expect(second.output()).not.toMatch(/started \S+ \(pid/);
    // The first one is untouched.
    expect((await fetch(`http://127.0.0.1:${ports.PORT}/readyz`)).status).toBe(200);
  });

  // The test-results API, where results arrive: the first of the processes issue 33 kills.
  it('when a service is killed with SIGKILL, then the launcher logs it and starts it again, and the others keep running', async () => {
    process.kill(before['test-results'] as number, 'SIGKILL');
    await launcher.waitFor(
      /test-results exited unexpectedly \(signal SIGKILL\); restarting in 0\.5 s \(restart 1\)[\s\S]*started test-results \(pid \d+\)[\s\S]*test-results is ready on port/,
      60_000,
    );
    const testResults = allPidsOf(launcher, 'test-results');
    for (const pid of testResults) pids.add(pid);
    expect(testResults).toEqual([before['test-results'], expect.any(Number)]);
    expect(isProcessAlive(testResults[1] as number)).toBe(true);
    expect((await fetch(`http://127.0.0.1:${ports.VERDICT_TEST_RESULTS_PORT}/readyz`)).status).toBe(200);
    expect((await fetch(`http://127.0.0.1:${ports.PORT}/readyz`)).status).toBe(200);
    const others = SERVICES.filter((service) => service !== 'test-results');
    expect(others.map((service) => allPidsOf(launcher, service))).toEqual(
      others.map((service) => [before[service]]),
    );
    expect(others.filter((service) => !isProcessAlive(before[service] as number))).toEqual([]);
  });

  it('when it is stopped with Ctrl-C after a restart, then every service stops, the restarted one too, and frees its port', async () => {
    const code = await launcher.stop('SIGINT');
    // On a failure, the launcher's log says which service did not stop cleanly, and why.
    expect({ code, log: code === 0 ? '' : launcher.output() }).toEqual({ code: 0, log: '' });
    expect([...pids].filter(isProcessAlive)).toEqual([]);
    for (const port of Object.values(ports).map(Number)) {
      expect({ port, free: await portIsFree(port) }).toEqual({ port, free: true });
    }
  });
});
