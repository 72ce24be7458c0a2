import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import http, { type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { AddResultsResponse, RunSummary, successEnvelope, verifySignature } from '@verdict/contracts';
import {
  GenericContainer,
  getContainerRuntimeClient,
  Network,
  Wait,
  type StartedNetwork,
  type StartedTestContainer,
} from 'testcontainers';
import { callGateway, provisionProject } from './gateway';
import { repoRoot } from './processes';

// Verdict deployed as platform teams run it: every part a container of the images built from this
// repository (infra/docker/build-images, which also builds stand-ins for the official PostgreSQL, Kafka,
// Redis and Apicurio images, no registry being reachable here), on one network, started with
// testcontainers. `npm test` starts a Docker engine for this suite (infra/local/up docker); without one
// that answers, testcontainers finds no runtime and the suite fails.

// A cold build (debootstrap, packages, npm ci) takes minutes; a cached one seconds.
const SETUP_TIMEOUT_MS = 20 * 60_000;
const STARTUP_TIMEOUT_MS = 180_000;

interface Images {
  VERDICT_IMAGE: string;
  VERDICT_POSTGRES_IMAGE: string;
  VERDICT_REDIS_IMAGE: string;
  VERDICT_KAFKA_IMAGE: string;
  VERDICT_APICURIO_IMAGE: string;
}

/**
 * A container whose root filesystem is read-only, as compose's `read_only: true` (testcontainers has no
 * option for it).
 */
class ReadOnlyRootContainer extends GenericContainer {
  constructor(image: string) {
    super(image);
    this.hostConfig.ReadonlyRootfs = true;
  }
}

/** Builds (or finds up to date) every image; its progress and timings go to the test run's stderr. */
async function buildImages(): Promise<Images> {
  const build = spawn('bash', [path.join(repoRoot, 'infra/docker/build-images')], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stdout = '';
  build.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => build.once('close', resolve));
  if (code !== 0) throw new Error(`infra/docker/build-images exited with ${code}`);
  const tags = Object.fromEntries(
    stdout
      .split('\n')
      .map((line) => /^(VERDICT_[A-Z_]+)=(\S+)$/.exec(line.trim()))
      .filter((match): match is RegExpExecArray => match !== null)
      .map((match) => [match[1], match[2]]),
  );
  return tags as unknown as Images;
}

interface Received {
  raw: Buffer;
  headers: IncomingHttpHeaders;
}

/** A receiver on this machine, at its address on the containers' network (its bridge's gateway). */
async function startReceiver(host: string): Promise<{ url: string; received: Received[]; close(): void }> {
  const received: Received[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push({ raw: Buffer.concat(chunks), headers: req.headers });
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${(server.address() as AddressInfo).port}/hooks/verdict`,
    received,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

async function eventually<T>(read: () => Promise<T> | T, done: (value: T) => boolean, timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value) || Date.now() > deadline) return value;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The status of a container's readiness endpoint, once 200 or after 30 s. */
async function readiness(container: StartedTestContainer, port: number, urlPath: string): Promise<number> {
  const url = `http://${container.getHost()}:${container.getMappedPort(port)}${urlPath}`;
  return eventually(
    () =>
      fetch(url).then(
        (response) => response.status,
        () => 0,
      ),
    (status) => status === 200,
    30_000,
  );
}

/** Keeps a container's output, to show it when a test fails and to read what the service logged. */
function logsOf(container: GenericContainer, into: string[]): GenericContainer {
  return container.withLogConsumer((stream) => {
    stream.on('data', (chunk: Buffer | string) => into.push(chunk.toString()));
  });
}

describe('Verdict deployed from its container images (testcontainers)', () => {
  const containers: StartedTestContainer[] = [];
  const pending: Promise<StartedTestContainer>[] = [];
  const readinessChecks: { container: StartedTestContainer; port: number; path: string }[] = [];
  const logs = new Map<string, string[]>();
  let network: StartedNetwork | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>> | undefined;
  let blobDir: string | undefined;
  let images: Images;
  let gatewayUrl: string;
  let startTestResults: (name: string) => Promise<StartedTestContainer>;
  const adminKey = `e2e-admin-${randomBytes(16).toString('hex')}`;

  async function start(
    name: string,
    container: GenericContainer,
    ready?: { port: number; path: string },
  ): Promise<StartedTestContainer> {
    const lines: string[] = [];
    logs.set(name, lines);
    const starting = startNamed(name, container, lines);
    // A start still running when another one failed is awaited by afterAll, so it is stopped too.
    pending.push(starting);
    const started = await starting;
    if (ready) readinessChecks.push({ container: started, ...ready });
    return started;
  }

  async function startNamed(name: string, container: GenericContainer, lines: string[]) {
    const started = await logsOf(
      container.withName(`verdict-e2e-${name}-${randomBytes(3).toString('hex')}`),
      lines,
    )
      .withStartupTimeout(STARTUP_TIMEOUT_MS)
      .start();
    containers.push(started);
    return started;
  }

  beforeAll(async () => {
    images = await buildImages();
    expect(images.VERDICT_IMAGE).toBeDefined();
    network = await new Network().start();
    const on = (image: string, alias: string) =>
      new GenericContainer(image).withNetwork(network as StartedNetwork).withNetworkAliases(alias);

    const dbPassword = randomBytes(12).toString('hex');
    await Promise.all([
      start(
        'postgres',
        on(images.VERDICT_POSTGRES_IMAGE, 'postgres')
          .withEnvironment({
            POSTGRES_USER: 'verdict',
            POSTGRES_PASSWORD: dbPassword,
            POSTGRES_DB: 'verdict',
          })
          .withCopyFilesToContainer([
            {
              source: path.join(repoRoot, 'infra/compose/initdb/10-apicurio.sql'),
              target: '/docker-entrypoint-initdb.d/10-apicurio.sql',
            },
          ])
          // Once: the set-up server of the first start logs nowhere.
          .withWaitStrategy(Wait.forLogMessage('database system is ready to accept connections')),
      ),
      start(
        'redis',
        on(images.VERDICT_REDIS_IMAGE, 'redis')
          .withCommand(['redis-server', '--save', '', '--appendonly', 'no'])
          .withWaitStrategy(Wait.forLogMessage('Ready to accept connections')),
      ),
      start(
        'kafka',
        on(images.VERDICT_KAFKA_IMAGE, 'kafka')
          .withEnvironment({
            CLUSTER_ID: 'woOyFotFSj28mNkWdTrmRg',
            KAFKA_NODE_ID: '1',
            KAFKA_PROCESS_ROLES: 'broker,controller',
            KAFKA_CONTROLLER_QUORUM_VOTERS: '1@kafka:9093',
            KAFKA_CONTROLLER_LISTENER_NAMES: 'CONTROLLER',
            KAFKA_LISTENERS: 'PLAINTEXT://:9092,CONTROLLER://:9093',
            KAFKA_ADVERTISED_LISTENERS: 'PLAINTEXT://kafka:9092',
            KAFKA_LISTENER_SECURITY_PROTOCOL_MAP: 'CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT',
            KAFKA_NUM_PARTITIONS: '3',
            KAFKA_OFFSETS_TOPIC_REPLICATION_FACTOR: '1',
            KAFKA_TRANSACTION_STATE_LOG_REPLICATION_FACTOR: '1',
            KAFKA_TRANSACTION_STATE_LOG_MIN_ISR: '1',
            KAFKA_SHARE_COORDINATOR_STATE_TOPIC_REPLICATION_FACTOR: '1',
            KAFKA_SHARE_COORDINATOR_STATE_TOPIC_MIN_ISR: '1',
            KAFKA_GROUP_INITIAL_REBALANCE_DELAY_MS: '0',
            KAFKA_HEAP_OPTS: '-Xms128m -Xmx512m',
          })
          .withWaitStrategy(Wait.forLogMessage('Kafka Server started')),
      ),
    ]);

    await start(
      'apicurio',
      on(images.VERDICT_APICURIO_IMAGE, 'apicurio')
        .withEnvironment({
          APICURIO_STORAGE_KIND: 'sql',
          APICURIO_STORAGE_SQL_KIND: 'postgresql',
          APICURIO_DATASOURCE_URL: 'jdbc:postgresql://postgres:5432/apicurio',
          APICURIO_DATASOURCE_USERNAME: 'verdict',
          APICURIO_DATASOURCE_PASSWORD: dbPassword,
          APICURIO_DATASOURCE_JDBC_INITIAL_SIZE: '2',
          APICURIO_DATASOURCE_JDBC_MIN_SIZE: '2',
          APICURIO_DATASOURCE_JDBC_MAX_SIZE: '10',
        })
        .withExposedPorts(9000)
        .withWaitStrategy(Wait.forLogMessage(/started in [\d.]+s\. Listening on/)),
      { port: 9000, path: '/health/ready' },
    );

    // The webhook receiver listens on this machine at the network's gateway, which containers reach.
    const client = await getContainerRuntimeClient();
    const inspected = (await client.network.getById(network.getId()).inspect()) as {
      IPAM: { Config: { Gateway: string }[] };
    };
    const gatewayIp = inspected.IPAM.Config[0]?.Gateway;
    if (!gatewayIp) throw new Error('the test network has no gateway address');
    receiver = await startReceiver(gatewayIp);

    // Gateway and test-results share the blob folder, as compose's volume shares it.
    blobDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-blobs-'));
    chmodSync(blobDir, 0o777);
    const common = {
      DATABASE_URL: `postgres://verdict:${dbPassword}@postgres:5432/verdict`,
      KAFKA_BROKERS: 'kafka:9092',
      SCHEMA_REGISTRY_URL: 'http://apicurio:8080/apis/ccompat/v7',
      VERDICT_INTERNAL_SECRET: randomBytes(32).toString('hex'),
      VERDICT_URL_SIGNING_SECRET: randomBytes(32).toString('hex'),
      VERDICT_BLOB_DIR: '/blobs',
      LOG_LEVEL: 'info',
    };
    // As docker-compose.yml runs them: as the image's `node` user, on a read-only root filesystem.
    const service = (command: string, alias: string) =>
      new ReadOnlyRootContainer(images.VERDICT_IMAGE)
        .withNetwork(network as StartedNetwork)
        .withNetworkAliases(alias)
        .withUser('1000:1000')
        .withTmpFs({ '/tmp': 'size=64m' })
        .withDroppedCapabilities('ALL')
        .withSecurityOpt('no-new-privileges:true')
        .withCommand([command])
        .withEnvironment(common)
        .withBindMounts([{ source: blobDir as string, target: '/blobs' }])
        .withExposedPorts(8080)
        // The line comes once the contracts are registered and the module started. A log wait also fails
        // at once when the process exits (an HTTP wait would poll on until its timeout, and keep jest alive).
        .withWaitStrategy(Wait.forLogMessage(/ listening on http/));
    const ready = { port: 8080, path: '/readyz' };
    startTestResults = (name) => start(name, service('test-results', 'test-results'), ready);

    await Promise.all([
      startTestResults('test-results-1'),
      start('manual-testing', service('manual-testing', 'manual-testing'), ready),
      start(
        'webhooks',
        service('webhooks', 'webhooks').withEnvironment({
          // The receiver is on a private address of this machine: allowed here, refused by default.
          VERDICT_WEBHOOK_ALLOW_PRIVATE_NETWORKS: 'true',
          VERDICT_WEBHOOK_RETRY_DELAYS: '1000,2000',
        }),
        ready,
      ),
      start('analytics', service('analytics', 'analytics'), ready),
    ]);
    const gateway = await start(
      'gateway',
      service('gateway', 'gateway').withEnvironment({
        REDIS_URL: 'redis://redis:6379',
        VERDICT_ADMIN_KEY: adminKey,
        VERDICT_TEST_RESULTS_URL: 'http://test-results:8080',
        VERDICT_MANUAL_TESTING_URL: 'http://manual-testing:8080',
        VERDICT_WEBHOOKS_URL: 'http://webhooks:8080',
        VERDICT_ANALYTICS_URL: 'http://analytics:8080',
      }),
      ready,
    );
    gatewayUrl = `http://${gateway.getHost()}:${gateway.getMappedPort(8080)}`;
    // Ready, not only started: each one's database, bus and stores answer.
    for (const { container, port, path: urlPath } of readinessChecks) {
      expect({ container: container.getName(), status: await readiness(container, port, urlPath) }).toEqual({
        container: container.getName(),
        status: 200,
      });
    }
  }, SETUP_TIMEOUT_MS);

  afterAll(async () => {
    // What each container wrote, for a failure to be read after the containers are gone.
    const logDir = mkdtempSync(path.join(tmpdir(), 'verdict-e2e-containers-'));
    for (const [name, lines] of logs) writeFileSync(path.join(logDir, `${name}.log`), lines.join(''));
    process.stderr.write(`container logs: ${logDir}\n`);
    receiver?.close();
    await Promise.allSettled(pending);
    // Last started first; each container is removed with its anonymous volumes.
    for (const container of containers.reverse()) await container.stop({ remove: true, removeVolumes: true });
    await network?.stop();
    if (blobDir) rmSync(blobDir, { recursive: true, force: true });
  }, 120_000);

  const call = (method: string, urlPath: string, bearer: string, body?: unknown) =>
    callGateway(gatewayUrl, method, urlPath, bearer, body);
  const provision = () =>
    provisionProject(gatewayUrl, adminKey, { label: 'containers', firstName: 'Cora', lastName: 'Container' });

  function resultsOf(prefix: string, count: number) {
    return Array.from({ length: count }, (_, index) => ({
      file: `tests/${prefix}.spec.ts`,
      titlePath: [prefix, `case ${index}`],
      attempt: 0,
      status: index % 10 === 0 ? 'failed' : 'passed',
      durationMs: 5 + index,
      startedAt: new Date().toISOString(),
    }));
  }

  /** Starts a run, sends its results in batches, finishes it; resolves with the run id. */
  async function ingestRun(
    projectId: string,
    token: string,
    prefix: string,
    batches: number,
    perBatch: number,
  ) {
    const runs = `/api/public/v1/${projectId}/test-runs`;
    const started = await call('POST', runs, token, { branch: 'main', ciRunId: `ci-${prefix}` });
    expect(started.status).toBe(201);
    const runId = successEnvelope(RunSummary).parse(started.body).data.id;
    const results = resultsOf(prefix, batches * perBatch);
    for (let batch = 0; batch < batches; batch += 1) {
      const added = await call('POST', `${runs}/${runId}/results`, token, {
        results: results.slice(batch * perBatch, (batch + 1) * perBatch),
      });
      expect(added.status).toBe(202);
      expect(successEnvelope(AddResultsResponse).parse(added.body).data).toEqual({
        accepted: perBatch,
        duplicates: 0,
      });
    }
    expect((await call('POST', `${runs}/${runId}/finish`, token, {})).status).toBe(200);
    return runId;
  }

  async function runTotal(projectId: string, token: string, runId: string): Promise<number> {
    const detail = await call('GET', `/api/public/v1/${projectId}/test-runs/${runId}`, token);
    return detail.status === 200
      ? (detail.body as { data: { stats: { total: number } } }).data.stats.total
      : -1;
  }

  async function projectUsed(projectId: string, token: string): Promise<number> {
    const usage = await call('GET', `/api/public/v1/${projectId}/usage`, token);
    return usage.status === 200 ? (usage.body as { data: { projectUsed: number } }).data.projectUsed : -1;
  }

  it("when Verdict's containers run, then each runs as the image's node user and cannot write its root filesystem", async () => {
    const verdict = containers.filter((container) =>
      /verdict-e2e-(gateway|test-results|manual-testing|webhooks|analytics)/.test(container.getName()),
    );
    expect(verdict.length).toBeGreaterThanOrEqual(5);
    for (const container of verdict) {
      const user = await container.exec(['id', '-u']);
      // The node user's own home: only the read-only root keeps it from writing there.
      const home = await container.exec(['touch', '/home/node/written']);
      const scratch = await container.exec(['touch', '/tmp/written']);
      expect({
        name: container.getName(),
        uid: user.output.trim(),
        home: home.exitCode,
        tmp: scratch.exitCode,
      }).toEqual({ name: container.getName(), uid: '1000', home: 1, tmp: 0 });
    }
  });

  it('when a run is ingested through the gateway container, then it reads back from the services, and a signed webhook reaches the host for its start and its end', async () => {
    const { projectId, token } = await provision();
    const created = await call('POST', `/api/public/v1/${projectId}/webhooks`, token, {
      url: receiver?.url,
      events: ['run.started', 'run.finished'],
      description: 'containers e2e',
    });
    expect(created.status).toBe(200);
    const secret = (created.body as { data: { secret: string } }).data.secret;

    const runId = await ingestRun(projectId, token, 'first', 1, 20);

    expect(
      await eventually(
        () => runTotal(projectId, token, runId),
        (total) => total === 20,
      ),
    ).toBe(20);
    expect(
      await eventually(
        () => projectUsed(projectId, token),
        (used) => used === 20,
      ),
    ).toBe(20);
    const received = await eventually(
      () => receiver?.received ?? [],
      (list) => list.length >= 2,
    );
    const names = received.map((delivery) => delivery.headers['x-service-event-name']).sort();
    expect(names).toEqual(['run.finished', 'run.started']);
    for (const delivery of received) {
      expect(
        verifySignature(delivery.raw, delivery.headers['x-service-signature'] as string, secret),
      ).toMatchObject({ valid: true });
      expect(JSON.stringify(JSON.parse(delivery.raw.toString('utf8')))).toContain(runId);
    }
  });

  it('when test-results runs as two containers, then both serve, and a run sent in many requests is counted once in the run and in the usage', async () => {
    const { projectId, token } = await provision();
    const second = await startTestResults('test-results-2');
    expect(await readiness(second, 8080, '/readyz')).toBe(200);
    // Both members of each consumer group hold partitions once the group has rebalanced.
    await eventually(
      () => logs.get('test-results-2')?.join('') ?? '',
      (text) => text.includes('joined consumer group'),
    );
    expect(logs.get('test-results-2')?.join('')).toContain('joined consumer group');

    const runId = await ingestRun(projectId, token, 'scaled', 12, 25);

    expect(
      await eventually(
        () => runTotal(projectId, token, runId),
        (total) => total >= 300,
      ),
    ).toBe(300);
    expect(
      await eventually(
        () => projectUsed(projectId, token),
        (used) => used >= 300,
      ),
    ).toBe(300);
    // Both relays publish the outbox and both members consume it: give a duplicate time to be counted.
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    expect(await runTotal(projectId, token, runId)).toBe(300);
    expect(await projectUsed(projectId, token)).toBe(300);
    const runs = await call('GET', `/api/public/v1/${projectId}/test-runs`, token);
    expect((runs.body as { data: unknown[] }).data).toHaveLength(1);
  });
});
