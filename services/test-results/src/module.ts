import { Router } from 'express';
import {
  debugBundleRoutes,
  failureAnalysisRoutes,
  gateRoutes,
  quarantineRoutes,
  SIGNED_DOWNLOAD_PATH,
  testResultsImportRoutes,
  testResultsIngestRoutes,
  testResultsReadRoutes,
  type RouteSpec,
} from '@verdict/contracts';
import {
  createCommandHandler,
  createOutboxRelay,
  createProjector,
  inlineProjection,
  DEFAULT_SIGNED_URL_TTL_MS,
  signBlobUrl,
  createSqlEventStore,
  registerRoutes,
  requireInternalIdentity,
  type BlobStore,
  type CheckpointStore,
  type Clock,
  type EventBus,
  type Logger,
  type Projection,
  type SqlDatabase,
  type Subscription,
} from '@verdict/platform';
import { importRoutes } from './imports/routes';
import { readModelSchemas, RUNS_READ_MODEL, type TestResultsReadModels } from './readStore';
import { runArtifactsProjection, type ArtifactToSign } from './runs/runArtifacts';
import { runCoverageProjection } from './runs/runCoverage';
import { runListProjection } from './runs/runList/runList';
import { runResultsProjection } from './runs/runResults';
import { specListProjection } from './specs/specList';
import { caseHistoryProjection } from './testCases/caseHistory';
import { createDebugBundleRoutes } from './debugBundle/routes';
import { createReadRoutes } from './reads/routes';
import { errorGroupsProjection } from './errors/errorGroups';
import { createErrorRoutes } from './errors/routes';
import { createCompareRoutes } from './compare/routes';
import { createSuspectsRoutes } from './suspects/routes';
import { createIngest, type Ingest } from './runs/ingest';
import { ingestRoutes } from './runs/routes';
import { failuresSummary, runFailures } from './verdicts/runFailures';
import { judgeRun } from './gates/runGate';
import { gateRulesProjection } from './gates/gateRules';
import { createGateRoutes } from './gates/routes';
import { membersProjection } from './quarantine/members';
import { quarantineListProjection } from './quarantine/quarantineList';
import { createQuarantineRoutes } from './quarantine/routes';
import { createQuarantineSweep } from './quarantine/sweep';
import { autoQuarantine } from './quarantine/atFinish';

/**
 * The read models of the service, one per slice, applied inline by every append and by one projector (one
 * transaction per batch). Each takes over from the single read model of earlier versions (`legacy`): an
 * existing deployment's is rebuilt from position 0 into the slices at start, then dropped.
 *
 * @example createProjector({ db, name: RUNS_READ_MODEL, projections: testResultsReadModels(readModelSchemas()), logger });
 */
export function testResultsReadModels(
  schemas: TestResultsReadModels,
  legacy: string = RUNS_READ_MODEL,
): Projection[] {
  const slices = [
    runListProjection(schemas.runList),
    runResultsProjection(schemas.runResults),
    runArtifactsProjection(schemas.runArtifacts),
    runCoverageProjection(schemas.runCoverage),
    caseHistoryProjection(schemas.caseHistory),
    specListProjection(schemas.specList),
    errorGroupsProjection(schemas.errors),
    quarantineListProjection(schemas.quarantines),
    gateRulesProjection(schemas.gates),
    membersProjection(schemas.members),
  ];
  return slices.map((projection) => ({ ...projection, replaces: [legacy] }));
}

/**
 * Every read model written in the transaction of each append: a 2xx means readable as well as durable.
 *
 * @example createSqlEventStore({ db, schema, inline: inlineReadModels(projections, logger) });
 */
export function inlineReadModels(projections: readonly Projection[], logger: Logger) {
  const inline = projections.map((projection) => inlineProjection(projection, { logger }));
  const applyAll: ReturnType<typeof inlineProjection> = async (tx, events, missed) => {
    for (const apply of inline) await apply(tx, events, missed);
  };
  return applyAll;
}

/** The test-results event store schema and the topic its events travel on, keyed by project. */
export const TEST_RESULTS_SCHEMA = 'test_results';
export const TEST_RESULTS_TOPIC = 'test-results';
/** The gateway's identity topic and store (same database): the members a quarantine's owner is one of. */
export const IDENTITY_TOPIC = 'identity';
export const IDENTITY_STORE = 'gateway_identity';

export interface TestResultsPorts {
  db: SqlDatabase;
  bus: EventBus;
  blobs: BlobStore;
  /** SQL checkpoints in the distributed mode; memory in the embedded mode, where the bus is in memory too. */
  checkpoints: CheckpointStore;
  clock: Clock;
  logger: Logger;
}

export interface TestResultsSettings {
  /** Verifies the gateway's internal JWT on every request. */
  internalSecret: string;
  /** Largest artifact accepted, in bytes. */
  artifactMaxBytes: number;
  /** VERDICT_PUBLIC_URL: the base of links and of signed download URLs. */
  publicUrl: string;
  /** Signs artifact download URLs; the gateway verifies them with the same secret. */
  urlSigningSecret: string;
  /** `readModelSchema`: the projector of the read models, and the prefix of their schemas (`<prefix>_run_list`, …). */
  names?: {
    storeSchema?: string;
    topic?: string;
    readModelSchema?: string;
    identityTopic?: string;
    identityStoreSchema?: string;
  };
  /** Between rounds of the quarantine expiry sweep (tests set it); default a minute. */
  quarantineSweepMs?: number;
  /** What this process runs (VERDICT_TEST_RESULTS_ROLE); `all` by default. */
  role?: TestResultsRole;
}

/**
 * The requests whose bodies are large: result batches and report imports. A process lets a few of them
 * at a time on to validation and recording (VERDICT_INGEST_CONCURRENCY), so a burst is worked through a
 * few batches at a time instead of all at once.
 */
export const isBulkIngest = (req: { method: string; path: string }): boolean =>
  req.method === 'POST' &&
  /^\/[^/]+\/(test-runs\/[^/]+\/results|imports\/(playwright|junit))$/.test(req.path);

/**
 * Every append writes the runs read model inline, whatever the role. `all`: the routes, the outbox relay and
 * the runs projector on the topic (the embedded mode, a small deployment). `api`: the routes and the relay.
 * `projector`: only the runs projector, no routes. The projector only catches up what reached the store
 * without its inline projection (events stored by an earlier version, or written into the store directly):
 * what an append applied inline, its stream positions make it skip.
 */
export const TEST_RESULTS_ROLES = ['all', 'api', 'projector'] as const;
export type TestResultsRole = (typeof TEST_RESULTS_ROLES)[number];

export interface TestResultsModule {
  /** Every route, behind the internal-identity check; mount it where the gateway forwards to. */
  router: Router;
  routes: readonly RouteSpec[];
  ingest: Ingest;
  /** Expires the quarantines due by the clock now (the sweep does it every minute); how many expired. */
  sweepQuarantines(): Promise<number>;
  start(): Promise<void>;
  stop(): Promise<void>;
}

/** The routes the gateway forwards to this service (it needs them without importing the service). */
export const testResultsRoutes: readonly RouteSpec[] = [
  ...testResultsIngestRoutes,
  ...testResultsImportRoutes,
  ...testResultsReadRoutes,
  ...debugBundleRoutes,
  ...failureAnalysisRoutes,
  ...quarantineRoutes,
  ...gateRoutes,
];

/**
 * The test-results service on its ports: ingest into its event store, which writes the runs read model
 * that the read routes query in each append's transaction, and relays its events to its topic.
 *
 * @example const results = createTestResultsModule(ports, settings); await results.start(); app.use(results.router);
 */
export function createTestResultsModule(
  ports: TestResultsPorts,
  settings: TestResultsSettings,
): TestResultsModule {
  const schema = settings.names?.storeSchema ?? TEST_RESULTS_SCHEMA;
  const topic = settings.names?.topic ?? TEST_RESULTS_TOPIC;
  const identityTopic = settings.names?.identityTopic ?? IDENTITY_TOPIC;
  const identityStore = createSqlEventStore({
    db: ports.db,
    schema: settings.names?.identityStoreSchema ?? IDENTITY_STORE,
  });
  const logger = ports.logger.child({ component: 'test-results' });
  const readModel = settings.names?.readModelSchema ?? RUNS_READ_MODEL;
  const schemas = readModelSchemas(readModel);
  const projections = testResultsReadModels(schemas, readModel);
  // The read models are written in the transaction of each append (inline): a 2xx means readable as well
  // as durable. Analytics, webhooks and manual-testing stay asynchronous, on the topic the relay feeds.
  const store = createSqlEventStore({
    db: ports.db,
    schema,
    clock: ports.clock,
    inline: inlineReadModels(projections, logger),
  });
  // Keyed by project: one run's lifecycle, results and artifacts (several streams) stay in commit order.
  const relay = createOutboxRelay({
    name: `${schema}.relay`,
    store,
    bus: ports.bus,
    checkpoints: ports.checkpoints,
    route: (event) => ({ topic, key: event.projectId ?? event.streamId }),
    logger,
  });
  // Quarantines and gate rules are decided on their own streams of this store; their read models are
  // written inline, so a write answers what it wrote.
  const commands = createCommandHandler({ store, onAppended: () => relay.notify() });
  // A finishing run's verdicts and gate are read from the read models, which every append has written
  // inline: its quarantines as they are at its end.
  const finishFactsOf = async (projectId: string, runId: string, finishedAt: string) => {
    const store = { db: ports.db, schemas };
    const failures = await runFailures(store, projectId, runId, new Date(finishedAt));
    const gate = await judgeRun(store, projectId, runId, failures, finishedAt);
    return { failures: failures && failuresSummary(failures), gate };
  };
  // When a run finishes: quarantines whose release rule it meets are lifted, and the auto-quarantine
  // policy quarantines its flaky tests; a failure here never fails the finish (the next run on the branch
  // judges them again).
  const onRunFinished = async (projectId: string, runId: string) => {
    try {
      await autoQuarantine(
        { store: { db: ports.db, schemas }, commands, clock: ports.clock },
        projectId,
        runId,
      );
    } catch (error) {
      logger.warn({ err: error, projectId, runId }, 'judging quarantines at the finish of a run failed');
    }
  };
  const ingest = createIngest({
    store,
    clock: ports.clock,
    onAppended: () => relay.notify(),
    finishFactsOf,
    onRunFinished,
  });
  // The same projections from the topic, for what was stored without them; its init creates their tables,
  // and rebuilds one from this store from position 0 when its version moved on (or it replaces the single
  // read model). Named as the single read model was, its consumer group goes on where it was.
  const projector = createProjector({
    db: ports.db,
    name: readModel,
    projections,
    logger,
    rebuildFrom: [store, identityStore],
  });
  let subscription: Subscription | null = null;
  const router = Router();
  router.use(requireInternalIdentity({ secret: settings.internalSecret, clock: ports.clock }));
  const signArtifactUrl = (artifact: ArtifactToSign) =>
    signBlobUrl({
      baseUrl: settings.publicUrl,
      path: SIGNED_DOWNLOAD_PATH,
      key: artifact.blobKey,
      expiresAt: new Date(ports.clock.now().getTime() + DEFAULT_SIGNED_URL_TTL_MS),
      secret: settings.urlSigningSecret,
      // What the run recorded, whatever the uploaded file part called itself.
      filename: artifact.name,
      contentType: artifact.contentType,
    });
  const reads = {
    db: ports.db,
    schemas,
    publicUrl: settings.publicUrl,
    signArtifactUrl,
    clock: ports.clock,
  };
  const writes = { store: { db: ports.db, schemas }, commands, clock: ports.clock };
  const sweep = createQuarantineSweep({
    db: ports.db,
    schema: schemas.quarantines,
    commands,
    clock: ports.clock,
    logger,
    ...(settings.quarantineSweepMs === undefined ? {} : { intervalMs: settings.quarantineSweepMs }),
  });
  const role = settings.role ?? 'all';
  const serves = role !== 'projector';
  const projects = role !== 'api';
  if (serves) {
    registerRoutes(router, [
      ...ingestRoutes({ ingest, blobs: ports.blobs, artifactMaxBytes: settings.artifactMaxBytes }),
      ...importRoutes({
        ingest,
        blobs: ports.blobs,
        artifactMaxBytes: settings.artifactMaxBytes,
        clock: ports.clock,
      }),
      ...createReadRoutes(reads),
      ...createErrorRoutes(reads),
      ...createCompareRoutes(reads),
      ...createSuspectsRoutes(reads),
      ...createDebugBundleRoutes(reads),
      ...createQuarantineRoutes(writes),
      ...createGateRoutes(writes),
    ]);
  }
  return {
    router,
    routes: testResultsRoutes,
    ingest,
    async start() {
      await store.init();
      await projector.init();
      await ports.bus.ensureTopics([topic, identityTopic]);
      // A result batch is 500 events; a transaction's fixed costs (lock, checkpoints, commit) are then paid
      // once per batch or so rather than per fetch chunk.
      if (projects) {
        subscription = await projector.subscribe(ports.bus, [topic, identityTopic], { maxBatchSize: 1_000 });
      }
      if (serves) {
        relay.start();
        sweep.start();
      }
      logger.info({ topic, schema, role }, 'test-results started');
    },
    sweepQuarantines: () => sweep.sweep(),
    async stop() {
      await sweep.stop();
      await relay.stop();
      await subscription?.stop();
      subscription = null;
    },
  };
}
