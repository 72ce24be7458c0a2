import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import {
  AddResultsResponse,
  RunSummary,
  successEnvelope,
  TestRunDetailResponse,
  type TestRunDetail,
} from '@verdict/contracts';
import { callGateway, provisionProject } from './gateway';
import { randomPort, repoRoot } from './processes';

// docker-compose.yml itself, run as a platform team runs it: `docker compose up --wait` on the images of
// infra/docker/build-images (no registry is reachable here), secrets generated for the run, a project name
// and a gateway port of its own; then everything through the gateway's one published port. Compose is the
// CLI plugin infra/docker/compose-plugin installs (built from the Go module proxy when missing). `npm test`
// starts a Docker engine for this suite (infra/local/up docker), as for deployment.containers.

// A cold start builds the compose plugin (about 90 s) and every image (minutes); a warm one takes seconds.
const SETUP_TIMEOUT_MS = 25 * 60_000;
const UP_WAIT_TIMEOUT_S = 300;
const COMPOSE_FILE = path.join(repoRoot, 'docker-compose.yml');
const SERVICES = [
  'analytics',
  'apicurio',
  'gateway',
  'kafka',
  'manual-testing',
  'postgres',
  'redis',
  'test-results',
  'test-results-projector',
  'webhooks',
];

interface Finished {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs a command from the repository root to its end; stderr also goes to the test run's when `show`. */
function runToEnd(
  command: string,
  args: string[],
  options: { env?: NodeJS.ProcessEnv; show?: boolean } = {},
): Promise<Finished> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, {
      cwd: repoRoot,
      env: options.env ?? process.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (options.show) process.stderr.write(chunk);
    });
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Builds (or finds up to date) every image; resolves with the compose file's image variables. */
async function buildImages(): Promise<Record<string, string>> {
  const build = await runToEnd('bash', [path.join(repoRoot, 'infra/docker/build-images')], { show: true });
  if (build.code !== 0) throw new Error(`infra/docker/build-images exited with ${build.code}`);
  return Object.fromEntries(
    build.stdout
      .split('\n')
      .map((line) => /^(VERDICT_[A-Z_]+_IMAGE|VERDICT_IMAGE)=(\S+)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1], match[2]]),
  );
}

/** A loopback port nothing listens on now, below the ephemeral range (see randomPort). */
async function freePort(): Promise<number> {
  for (;;) {
    const port = randomPort();
    const free = await new Promise<boolean>((resolve) => {
      const probe = net.createServer();
      probe.once('error', () => resolve(false));
      probe.listen(port, '127.0.0.1', () => probe.close(() => resolve(true)));
    });
    if (free) return port;
  }
}

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** A container as `docker compose ps --format json` describes it (one object a line, or one array). */
interface ComposeContainer {
  ID: string;
  Service: string;
  State: string;
  Health: string;
  Publishers: { URL: string; TargetPort: number; PublishedPort: number; Protocol: string }[] | null;
}

function parsePs(stdout: string): ComposeContainer[] {
  const text = stdout.trim();
  if (text === '') return [];
  if (text.startsWith('[')) return JSON.parse(text) as ComposeContainer[];
  return text.split('\n').map((line) => JSON.parse(line) as ComposeContainer);
}

describe('Verdict run from docker-compose.yml (docker compose)', () => {
  const project = `verdict-e2e-${randomBytes(4).toString('hex')}`;
  const adminKey = randomBytes(24).toString('hex');
  let scratch: string | undefined;
  let composeEnv: NodeJS.ProcessEnv = process.env;
  let gatewayPort = 0;
  let gatewayUrl = '';

  function compose(...args: string[]): Promise<Finished> {
    const envFile = path.join(scratch as string, 'compose.env');
    return runToEnd(
      'docker',
      ['compose', '--project-name', project, '--file', COMPOSE_FILE, '--env-file', envFile, ...args],
      { env: composeEnv },
    );
  }

  async function composeOk(...args: string[]): Promise<string> {
    const finished = await compose(...args);
    if (finished.code !== 0) {
      throw new Error(`docker compose ${args.join(' ')} exited with ${finished.code}:\n${finished.stderr}`);
    }
    return finished.stdout;
  }

  beforeAll(async () => {
    const plugin = await runToEnd('bash', [path.join(repoRoot, 'infra/docker/compose-plugin')], {
      show: true,
    });
    if (plugin.code !== 0) throw new Error(`infra/docker/compose-plugin exited with ${plugin.code}`);
    const images = await buildImages();
    expect(Object.keys(images).sort()).toEqual([
      'VERDICT_APICURIO_IMAGE',
      'VERDICT_IMAGE',
      'VERDICT_KAFKA_IMAGE',
      'VERDICT_NODE_IMAGE',
      'VERDICT_POSTGRES_IMAGE',
      'VERDICT_REDIS_IMAGE',
    ]);

    gatewayPort = await freePort();
    gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
    // As docs/deploy.md has a platform team write its .env: random secrets, nothing defaulted. Given to
    // compose both as the env file and as the environment, so that no variable of this shell wins.
    const variables: Record<string, string> = {
      ...images,
      VERDICT_ADMIN_KEY: adminKey,
      VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
      VERDICT_URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
      POSTGRES_PASSWORD: randomBytes(16).toString('hex'),
      VERDICT_PORT: String(gatewayPort),
      VERDICT_BIND: '127.0.0.1',
      VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'false',
      LOG_LEVEL: 'info',
    };
    scratch = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-compose-'));
    writeFileSync(
      path.join(scratch, 'compose.env'),
      Object.entries(variables)
        .map(([name, value]) => `${name}=${value}\n`)
        .join(''),
      { mode: 0o600 },
    );
    composeEnv = { ...process.env, ...variables };
    // Left to the file's default, which follows VERDICT_PORT.
    delete composeEnv.VERDICT_PUBLIC_URL;

    const started = Date.now();
    // The images are this machine's: nothing is pulled, nothing is built.
    const up = await compose(
      'up',
      '--detach',
      '--wait',
      '--wait-timeout',
      String(UP_WAIT_TIMEOUT_S),
      '--pull',
      'never',
      '--no-build',
    );
    if (up.code !== 0) {
      const ps = await compose('ps', '--all');
      throw new Error(`docker compose up --wait exited with ${up.code}:\n${up.stderr}\n${ps.stdout}`);
    }
    process.stderr.write(
      `compose: ${project} up and healthy in ${Math.round((Date.now() - started) / 1000)} s\n`,
    );
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    if (!scratch) return;
    try {
      // What each container wrote, for a failure to be read once the project is gone.
      const logs = await compose('logs', '--no-color', '--timestamps');
      const logDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-compose-logs-'));
      writeFileSync(path.join(logDir, 'compose.log'), logs.stdout + logs.stderr);
      process.stderr.write(`compose logs: ${logDir}/compose.log\n`);
      const down = await compose('down', '--volumes', '--remove-orphans', '--timeout', '20');
      if (down.code !== 0)
        throw new Error(`docker compose down -v exited with ${down.code}:\n${down.stderr}`);
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }, 180_000);

  const call = (method: string, urlPath: string, bearer: string, body?: unknown) =>
    callGateway(gatewayUrl, method, urlPath, bearer, body);
  const provision = () =>
    provisionProject(gatewayUrl, adminKey, { label: 'compose', firstName: 'Paula', lastName: 'Platform' });

  /** Starts a run, sends `batches` of `perBatch` results (every tenth failed), finishes it; its id. */
  async function sendRun(projectId: string, token: string, name: string, batches: number, perBatch: number) {
    const runs = `/api/public/v1/${projectId}/test-runs`;
    const started = await call('POST', runs, token, { branch: 'main', ciRunId: `ci-${name}` });
    expect(started.status).toBe(201);
    const runId = successEnvelope(RunSummary).parse(started.body).data.id;
    for (let batch = 0; batch < batches; batch += 1) {
      const results = Array.from({ length: perBatch }, (_, offset) => {
        const index = batch * perBatch + offset;
        return {
          file: `tests/${name}.spec.ts`,
          titlePath: [name, `case ${index}`],
          attempt: 0,
          status: index % 10 === 0 ? 'failed' : 'passed',
          durationMs: 5 + index,
          startedAt: new Date().toISOString(),
        };
      });
      const added = await call('POST', `${runs}/${runId}/results`, token, { results });
      expect(added.status).toBe(202);
      expect(successEnvelope(AddResultsResponse).parse(added.body).data).toEqual({
        accepted: perBatch,
        duplicates: 0,
      });
    }
    const finished = await call('POST', `${runs}/${runId}/finish`, token, {});
    expect(finished.status).toBe(200);
    expect(successEnvelope(RunSummary).parse(finished.body).data.status).toBe('finished');
    return runId;
  }

  /** The run as the gateway reads it back (with its specs), once its read model holds `total` results. */
  async function readRun(projectId: string, token: string, runId: string, total: number) {
    const read = () => call('GET', `/api/public/v1/${projectId}/test-runs/${runId}?include=specs`, token);
    const answer = await eventually(
      read,
      (detail) =>
        detail.status === 200 &&
        (detail.body as { data: TestRunDetail }).data.status === 'finished' &&
        (detail.body as { data: TestRunDetail }).data.stats.total === total,
    );
    expect(answer.status).toBe(200);
    return TestRunDetailResponse.parse(answer.body).data;
  }

  /** What the engine says of a container: how often its restart policy started it again, its health. */
  async function inspect(containerId: string): Promise<{ restarts: number; status: string; health: string }> {
    const inspected = await runToEnd(
      'docker',
      ['inspect', '--format', '{{.RestartCount}} {{.State.Status}} {{.State.Health.Status}}', containerId],
      { env: composeEnv },
    );
    const [restarts, status, health] = inspected.stdout.trim().split(' ');
    return { restarts: Number(restarts), status: status ?? '', health: health ?? '' };
  }

  let first: { projectId: string; token: string; runId: string; read: TestRunDetail } | undefined;

  it('when `docker compose up --wait` returns, then its ten services run healthy and only the gateway publishes a port, on loopback', async () => {
    const containers = parsePs(await composeOk('ps', '--all', '--format', 'json'));
    expect(
      containers
        .map((container) => ({
          service: container.Service,
          state: container.State,
          health: container.Health,
        }))
        .sort((a, b) => a.service.localeCompare(b.service)),
    ).toEqual(SERVICES.map((service) => ({ service, state: 'running', health: 'healthy' })));
    const published = containers.flatMap((container) =>
      (container.Publishers ?? [])
        .filter((publisher) => publisher.PublishedPort > 0)
        .map((publisher) => ({
          service: container.Service,
          address: publisher.URL,
          port: publisher.PublishedPort,
          target: publisher.TargetPort,
        })),
    );
    expect(published).toEqual([
      { service: 'gateway', address: '127.0.0.1', port: gatewayPort, target: 8080 },
    ]);
    expect((await fetch(`${gatewayUrl}/readyz`)).status).toBe(200);
  });

  it("when VERDICT_PUBLIC_URL is not set, then every Verdict service is given the gateway's address on VERDICT_PORT", async () => {
    const config = JSON.parse(await composeOk('config', '--format', 'json')) as {
      services: Record<string, { environment?: Record<string, string | null> }>;
    };
    const publicUrls = Object.entries(config.services)
      .filter(([, service]) => service.environment?.VERDICT_INTERNAL_SECRET !== undefined)
      .map(([name, service]) => [name, service.environment?.VERDICT_PUBLIC_URL])
      .sort(([a], [b]) => String(a).localeCompare(String(b)));
    expect(publicUrls).toEqual(
      ['analytics', 'gateway', 'manual-testing', 'test-results', 'test-results-projector', 'webhooks'].map(
        (name) => [name, `http://localhost:${gatewayPort}`],
      ),
    );
  });

  it('when a run is started, sent in batches and finished through the gateway, then it reads back finished with every result', async () => {
    const { projectId, token } = await provision();

    const runId = await sendRun(projectId, token, 'compose', 3, 20);

    const read = await readRun(projectId, token, runId, 60);
    expect({ status: read.status, outcome: read.outcome, stats: read.stats }).toEqual({
      status: 'finished',
      outcome: 'failed',
      stats: { total: 60, passed: 54, failed: 6, flaky: 0, skipped: 0 },
    });
    expect(read.specs?.map((spec) => ({ file: spec.file, tests: spec.tests.length }))).toEqual([
      { file: 'tests/compose.spec.ts', tests: 60 },
    ]);
    const listed = await call('GET', `/api/public/v1/${projectId}/test-runs`, token);
    expect((listed.body as { data: { id: string }[] }).data.map((run) => run.id)).toEqual([runId]);
    first = { projectId, token, runId, read };
  });

  it('when the test-results container crashes, then its restart policy starts it again, the run reads back the same, and a new run is taken in', async () => {
    expect(first).toBeDefined();
    const { projectId, token, runId, read } = first as NonNullable<typeof first>;
    const containerId = (await composeOk('ps', '--quiet', 'test-results')).trim();
    expect(containerId).toMatch(/^[0-9a-f]{12,}$/);
    const before = await inspect(containerId);
    expect(before).toMatchObject({ status: 'running', health: 'healthy' });

    // A crash, not a stop: every process of the service's user but the container's init is killed, and init
    // exits with it (`docker kill` or `docker compose stop` would count as stopped by hand).
    await compose('exec', '--no-TTY', 'test-results', 'sh', '-c', 'kill -KILL -1');

    const after = await eventually(
      () => inspect(containerId),
      (state) => state.restarts > before.restarts && state.health === 'healthy',
      180_000,
    );
    expect(after).toEqual({ restarts: before.restarts + 1, status: 'running', health: 'healthy' });
    // The same container, started again: compose did not replace it.
    expect((await composeOk('ps', '--quiet', 'test-results')).trim()).toBe(containerId);

    const again = await readRun(projectId, token, runId, 60);
    expect(again).toEqual(read);
    const secondRunId = await sendRun(projectId, token, 'after-restart', 1, 20);
    const second = await readRun(projectId, token, secondRunId, 20);
    expect(second.stats).toEqual({ total: 20, passed: 18, failed: 2, flaky: 0, skipped: 0 });
  });
});
