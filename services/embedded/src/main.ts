// `npm start`: every Verdict service in one process, on PGlite (data kept in VERDICT_DATA_DIR), the
// in-process bus and in-memory key-value and rate-limit stores. The same modules, SQL and HTTP stack as
// the distributed mode; only the adapters behind the ports differ.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { InstanceStarted } from '@verdict/contracts';
import { GATEWAY_SCHEMA, resolveAdminKey, startGateway } from '@verdict/gateway';
import { createMcpHttpHandler } from '@verdict/mcp';
import {
  closeServer,
  ConfigError,
  createInProcessBus,
  createLogger,
  createMemoryCheckpointStore,
  createSqlKeyValue,
  createMemoryRateLimiter,
  createFilesystemBlobStore,
  createSqlDeadLetterStore,
  createSqlEventStore,
  listen,
  loadConfig,
  newSecret,
  onShutdown,
  reservePort,
  runMain,
  serviceRegistry,
  systemClock,
  withDeadLetters,
} from '@verdict/platform';
import { createPGliteDatabase } from '@verdict/platform/pglite';
import { createTestResultsModule, TEST_RESULTS_SCHEMA } from '@verdict/test-results';
import { createManualTestingModule } from '@verdict/manual-testing';
import { createAnalyticsModule } from '@verdict/analytics';
import { createWebhooksModule, WebhookSettingsConfig } from '@verdict/webhooks';
import { EmbeddedConfig } from './config';
import { lockDataDir } from './dataDirLock';

const VERSION = '0.1.0';
/** How long the demo user's one-time sign-in link of the first start stays valid. */
const SIGN_IN_LINK_TTL_MS = 24 * 3_600_000;

/** A secret generated once and kept in the data folder (mode 0600), so it survives restarts. */
function keptSecret(dataDir: string, name: string): string {
  const file = path.join(dataDir, name);
  if (existsSync(file)) {
    const kept = readFileSync(file, 'utf8').trim();
    // Not one Verdict wrote (emptied, edited): refused by name rather than failing later, or signing
    // with an empty key.
    if (kept.length < 32 || /\s/.test(kept)) {
      throw new ConfigError([
        `${file}: must hold the key Verdict generated there (at least 32 characters, no spaces)`,
      ]);
    }
    return kept;
  }
  const secret = newSecret(32);
  writeFileSync(file, `${secret}\n`, { mode: 0o600 });
  return secret;
}

/** The data folder, created private (0700: it holds token hashes and sealed secrets) when missing. */
function makeDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  } catch (error) {
    throw new ConfigError([`VERDICT_DATA_DIR: cannot create ${dataDir} (${(error as Error).message})`]);
  }
}

async function main(): Promise<void> {
  const unknown = process.argv.slice(2).filter((arg) => arg !== '--rebuild');
  if (unknown.length > 0) throw new ConfigError([`${unknown.join(' ')}: npm start takes only --rebuild`]);
  const config = loadConfig(EmbeddedConfig);
  // Every variable is checked before anything starts, so a bad one is the only thing the start prints.
  const webhookSettings = loadConfig(WebhookSettingsConfig);
  const logger = createLogger({ service: 'verdict', level: config.logLevel });
  makeDataDir(config.dataDir);
  // A taken port or a wrong HOST fails the start here, before any work; PORT=0 picks the port now, so that
  // the URLs Verdict writes (download links, uiUrl) name the one it will listen on.
  const port = await reservePort({ host: config.host, port: config.port });
  const lock = lockDataDir(config.dataDir);
  process.once('exit', () => lock.release());
  // One registry for the process: the gateway's HTTP metrics and analytics' projection metrics.
  const metrics = serviceRegistry('verdict');

  const db = await createPGliteDatabase({ dataDir: path.join(config.dataDir, 'pglite'), lowMemory: true });
  // Dead letters are kept in PGlite (the in-process bus forgets its own at exit), counted on /metrics, and
  // listed and replayed through the admin API (npm run dlq).
  const deadLetters = createSqlDeadLetterStore({ db, clock: systemClock });
  await deadLetters.init();
  const bus = withDeadLetters(createInProcessBus({ logger }), { store: deadLetters, logger, metrics });
  // In the database, not in memory: token usage and the identity version outlive a restart.
  const kv = await createSqlKeyValue({ db, schema: 'verdict_key_values' });
  const rateLimiter = createMemoryRateLimiter();

  const system = createSqlEventStore({ db, schema: 'verdict_system' });
  await system.init();
  await system.append(
    'instance',
    [
      InstanceStarted.of({
        mode: 'embedded',
        service: 'embedded',
        version: VERSION,
        nodeVersion: process.version,
        pid: process.pid,
      }),
    ],
    { expectedVersion: 'any' },
  );

  // Gateway and services share this process: a fresh internal secret per start is enough. Download URLs
  // must outlive a restart (they expire after 15 minutes), so their secret is kept in the data folder.
  const internalSecret = newSecret(32);
  const urlSigningSecret = keptSecret(config.dataDir, 'url-signing-key');
  const publicUrl = config.publicUrl ?? `http://localhost:${port}`;
  const blobs = createFilesystemBlobStore({ root: path.join(config.dataDir, 'blobs') });
  const testResults = createTestResultsModule(
    {
      db,
      bus,
      blobs,
      checkpoints: createMemoryCheckpointStore(),
      clock: systemClock,
      logger,
    },
    { internalSecret, artifactMaxBytes: config.artifactMaxBytes, publicUrl, urlSigningSecret },
  );
  const manualTesting = createManualTestingModule(
    { db, bus, blobs, checkpoints: createMemoryCheckpointStore(), clock: systemClock, logger },
    { internalSecret, publicUrl, urlSigningSecret, attachmentMaxBytes: config.artifactMaxBytes },
  );
  // Signing secrets are stored encrypted with a key that must outlive restarts: kept in the data folder.
  const webhooks = createWebhooksModule(
    { db, bus, clock: systemClock, logger },
    {
      internalSecret,
      secretKey: keptSecret(config.dataDir, 'webhook-secret-key'),
      publicUrl,
      ...webhookSettings,
    },
  );
  // Analytics projects the test-results and identity topics of the in-process bus into its read models.
  const analytics = createAnalyticsModule(
    { db, bus, clock: systemClock, logger, metrics },
    { internalSecret, publicUrl },
  );
  // Every consumer of a topic subscribes before its relay starts publishing: the in-process bus keeps a
  // message only until the groups subscribed so far have read it, so a group that joined later would miss
  // the events the relay republishes after a restart (analytics lost a run appended while stopped).
  // test-results consumes and publishes its topic (projector first, then relay); the gateway's identity
  // relay starts last, after manual testing and analytics subscribed to identity.
  await manualTesting.start();
  await webhooks.start();
  await analytics.start();
  await testResults.start();

  const adminKey = await resolveAdminKey({ configured: config.adminKey, dataDir: config.dataDir });
  const { gateway, server, seed, signInLink } = await (async () => {
    const gateway = await startGateway(
      {
        db,
        bus,
        kv,
        rateLimiter,
        checkpoints: createMemoryCheckpointStore(),
        clock: systemClock,
        logger,
        metrics,
        deadLetters,
      },
      {
        adminKey: adminKey.key,
        internalSecret,
        publicUrl,
        downloads: { blobs, secret: urlSigningSecret },
        ingestLimitPerMinute: config.ingestLimitPerMinute,
        sessionIdleMinutes: config.sessionIdleMinutes,
        webDir: config.webDir,
        mcp: createMcpHttpHandler,
        ...(config.trustProxy === undefined ? {} : { trustProxy: config.trustProxy }),
        services: Object.entries({
          'test-results': testResults,
          'manual-testing': manualTesting,
          webhooks,
          analytics,
        }).map(([name, module]) => ({
          name,
          routes: module.routes,
          target: { kind: 'in-process' as const, router: module.router },
        })),
      },
    );
    // Listening first: a port that is taken refuses the start before the demo token is made, or the token
    // would be made, never shown, and never shown again (it is shown on the first start only).
    const server = await listen(gateway.app, { host: config.host, port, timeouts: config.httpTimeouts });
    const seed = await gateway.identity.seedDemo();
    const signInLink = seed ? await gateway.signInLink(seed.tokenId, SIGN_IN_LINK_TTL_MS) : null;
    return { gateway, server, seed, signInLink };
  })().catch((error: unknown) => {
    // A key generated by a start that then failed was never shown: the next start makes and shows another.
    if (adminKey.generated && adminKey.path) rmSync(adminKey.path, { force: true });
    throw error;
  });
  onShutdown(logger, [
    closeServer(server),
    () => gateway.stop(),
    () => testResults.stop(),
    () => manualTesting.stop(),
    () => webhooks.stop(),
    () => analytics.stop(),
    () => bus.close(),
    () => rateLimiter.close(),
    () => kv.close(),
    () => db.close(),
  ]);

  const base = `${config.publicUrl ?? `http://localhost:${port}`}/api/public/v1`;
  logger.info({ port, dataDir: config.dataDir, mode: 'embedded' }, 'verdict started');
  const lines = [
    '',
    `Verdict is running (embedded mode) at ${config.publicUrl ?? `http://localhost:${port}`}`,
    `  Web app:     ${config.publicUrl ?? `http://localhost:${port}`}/`,
    `  API base:    ${base}`,
    `  API docs:    http://localhost:${port}/docs`,
    `  MCP:         http://localhost:${port}/mcp?project=<projectId> (Streamable HTTP, bearer token)`,
    `  Data:        ${config.dataDir}`,
  ];
  if (seed) {
    lines.push(
      '',
      'First start: a demo organization, project, owner and token were created.',
      ...(signInLink
        ? [`  Sign in:     ${signInLink}   (one click, once, within ${SIGN_IN_LINK_TTL_MS / 3_600_000} h)`]
        : []),
      `  Project id:  ${seed.projectId}`,
      `  Token:       ${seed.token}   (shown once; keep it)`,
      `  Try:         curl -H "Authorization: Bearer ${seed.token}" ${base}/${seed.projectId}/token-info`,
    );
  }
  if (adminKey.generated) {
    lines.push(
      '',
      `  Admin key:   ${adminKey.key}   (generated; kept in ${adminKey.path ?? config.dataDir}, mode 0600)`,
    );
  } else if (adminKey.source === 'file') {
    lines.push('', `  Admin key file: ${adminKey.path ?? config.dataDir} (mode 0600)`);
  }
  process.stdout.write(`${lines.join('\n')}\n\n`);

  // `npm start -- --rebuild`: the analytics read models replayed from the event stores into fresh tables,
  // swapped in once caught up; the old ones answer queries meanwhile.
  if (process.argv.includes('--rebuild')) {
    logger.info('rebuilding the analytics read models from position 0');
    analytics
      .rebuild({
        testResults: createSqlEventStore({ db, schema: TEST_RESULTS_SCHEMA }),
        identity: createSqlEventStore({ db, schema: GATEWAY_SCHEMA }),
      })
      .then(
        (replayed) => logger.info(replayed, 'analytics read models rebuilt'),
        (error: unknown) => logger.error({ err: error }, 'rebuilding the analytics read models failed'),
      );
  }
}

runMain('verdict', main);
