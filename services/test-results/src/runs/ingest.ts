/**
 * The ingest use cases (API.md, "Ingest — automated runs"): start a run (shards join it by ciRunId), add
 * results in batches, record artifacts and coverage, finish. Each resolves only after its events are
 * committed, so a 2xx means durable. The run's lifecycle is decided with handleCommand on `run-<runId>`;
 * results, artifacts and coverage are decided on that lifecycle and appended to their own streams, where
 * their derived event ids make a repeat find what is already recorded instead of recording it twice.
 *
 * A batch that races a finish of the same run may land just after `run.finished`: the two are in different
 * streams. A client finishes after its last batch was answered, so this takes a client that finishes one
 * shard while another of its requests is still adding results to that same shard.
 */
import {
  RunArtifactAdded,
  RunCounterAllocated,
  RunCoverageAdded,
  type AddCoverageRequest,
  type AddResultsResponse,
  type ArtifactRecord,
  type CoverageReport,
  type FinishRunRequest,
  type RecordArtifactRequest,
  type ResultItem,
  type RunSummary,
  type StartRunRequest,
} from '@verdict/contracts';
import {
  ConflictError,
  VersionConflictError,
  handleCommand,
  newId,
  systemClock,
  type AppendMetadata,
  type Clock,
  type DecidedEvent,
  type EventStore,
  type NewEvent,
} from '@verdict/platform';
import { ciRunDecider, ciRunStream } from './ciRun';
import { counterDecider, counterStream, parseCounterEvent } from './counter';
import { decide, requireRunning, runDecider, type RunCommand } from './decide';
import { distinctResults, parseResults, resultEventId } from './results';
import {
  parseRunEvent,
  resultStripeOf,
  runArtifactsStream,
  runCoverageStream,
  runResultsStream,
  runStream,
  summaryOf,
  type ExistingRun,
  type RunEvent,
  type RunState,
} from './run';

export interface IdSource {
  newId(): string;
}

export interface IngestOptions {
  store: EventStore;
  /** Gives `now` to every decision (default: the system clock). */
  clock?: Clock;
  /** Mints run ids (default: UUIDv7 from the platform). */
  ids?: IdSource;
  /** Called after every append that recorded events, e.g. to wake the outbox relay at once. */
  onAppended?(): void;
}

/** Who asked: recorded on the events as correlation and causation ids. */
export interface IngestContext {
  correlationId?: string | null;
  causationId?: string | null;
}

export interface StartedRun {
  run: RunSummary;
  /** True for the start that created the run (201), false for one that joined it (200). */
  created: boolean;
}

export interface Ingest {
  startRun(projectId: string, body: StartRunRequest, context?: IngestContext): Promise<StartedRun>;
  /** Items are validated here (see results.ts): pass the request's `results` as they came. */
  addResults(
    projectId: string,
    runId: string,
    items: unknown,
    context?: IngestContext,
  ): Promise<AddResultsResponse>;
  /** How many of these results the run has recorded already: a replayed import finds all of them. */
  recordedCount(runId: string, items: readonly ResultItem[]): Promise<number>;
  /** The artifacts recorded for the run, oldest first, read from its own stream (no projection lag). */
  artifactsOf(runId: string): Promise<ArtifactRecord[]>;
  /** Refuses as an addition to the run would (NOT_FOUND, RUN_FINISHED): before an upload is read. */
  assertRunning(projectId: string, runId: string): Promise<void>;
  /** Records an uploaded artifact's metadata; recording the same artifact id again returns the first. */
  recordArtifact(
    projectId: string,
    runId: string,
    artifact: RecordArtifactRequest,
    context?: IngestContext,
  ): Promise<ArtifactRecord>;
  addCoverage(
    projectId: string,
    runId: string,
    coverage: AddCoverageRequest,
    context?: IngestContext,
  ): Promise<CoverageReport>;
  finish(
    projectId: string,
    runId: string,
    body: FinishRunRequest,
    context?: IngestContext,
  ): Promise<RunSummary>;
}

/**
 * Retries of a lifecycle command after a version conflict. Only writers of one run conflict (its shards
 * starting and finishing at once), and each round one of them wins, so this bounds the shards that may
 * start at the same instant, not the shards of a run.
 */
const LIFECYCLE_RETRIES = 100;
/** Attempts at a run number; concurrent starts in one project take turns, one winner per round. */
const COUNTER_ATTEMPTS = 100;
/** Attempts at appending a batch when a concurrent request stored some of its results first. */
const ADDITION_ATTEMPTS = 5;

function existing(state: RunState): ExistingRun {
  // handleCommand only returns after the decider accepted, which needs an existing run.
  if (state.status === 'none') throw new Error('run is absent after a successful command');
  return state;
}

function toNewEvents(events: readonly DecidedEvent[]): NewEvent[] {
  return events.map(({ type, version, data, eventId }) => ({ type, version, data, eventId }));
}

/**
 * The ingest use cases over an event store.
 *
 * @example const ingest = createIngest({ store, clock }); const { run, created } = await ingest.startRun(projectId, { ciRunId: 'gh-42', shard: { current: 1, total: 4 } });
 */
export function createIngest(options: IngestOptions): Ingest {
  const { store } = options;
  const clock = options.clock ?? systemClock;
  const ids = options.ids ?? { newId: () => newId() };
  /** The last counter-stream version seen per project, so an allocation reads only what is newer. */
  const counterVersions = new Map<string, number>();

  function metadataOf(projectId: string, context: IngestContext, now: Date): AppendMetadata {
    return {
      projectId,
      correlationId: context.correlationId ?? null,
      causationId: context.causationId ?? null,
      occurredAt: now,
    };
  }

  function appended(count: number): void {
    if (count > 0) options.onAppended?.();
  }

  async function loadRun(runId: string): Promise<RunState> {
    const history = await store.readStream(runStream(runId));
    return history.reduce(
      (state, stored) => runDecider.evolve(state, parseRunEvent(stored)),
      runDecider.initialState(),
    );
  }

  async function decideLifecycle(command: RunCommand, metadata: AppendMetadata) {
    const result = await handleCommand(store, runStream(command.runId), runDecider, command, metadata, {
      retries: LIFECYCLE_RETRIES,
    });
    appended(result.events.length);
    return result;
  }

  /** The run this CI run id names in the project: `runId` when this start claimed it first. */
  async function claimCiRun(projectId: string, ciRunId: string, runId: string, metadata: AppendMetadata) {
    const { state, events } = await handleCommand(
      store,
      ciRunStream(projectId, ciRunId),
      ciRunDecider,
      { type: 'claimCiRun', projectId, ciRunId, runId },
      metadata,
    );
    appended(events.length);
    if (state.status !== 'claimed') throw new Error(`CI run ${ciRunId} is unclaimed after its claim`);
    return state.runId;
  }

  /** The run's number: the next of the project, or the one it already had (idempotent per run). */
  async function allocateCounter(projectId: string, runId: string, metadata: AppendMetadata) {
    const streamId = counterStream(projectId);
    for (let attempt = 1; ; attempt += 1) {
      const known = counterVersions.get(projectId) ?? 0;
      // The version is the last number, so the events from the last known version on decide the next.
      const tail = await store.readStream(streamId, { fromVersion: Math.max(known, 1) });
      const state = tail.reduce(
        (folded, stored) => counterDecider.evolve(folded, parseCounterEvent(stored)),
        counterDecider.initialState(),
      );
      const version = tail[tail.length - 1]?.streamPosition ?? 0;
      const decided = toNewEvents(counterDecider.decide({ type: 'allocateCounter', runId }, state));
      try {
        const result = await store.append(streamId, decided, {
          ...metadata,
          expectedVersion: version === 0 ? 'no_stream' : version,
        });
        appended(result.events.length);
        const [stored] = result.events;
        if (!stored) throw new Error(`No run number was stored for run ${runId}`);
        // An allocation of this run made before (a retry) comes back instead: its number stands.
        counterVersions.set(projectId, Math.max(counterVersions.get(projectId) ?? 0, stored.streamPosition));
        return RunCounterAllocated.parse(stored).counter;
      } catch (error) {
        if (!(error instanceof VersionConflictError) || attempt >= COUNTER_ATTEMPTS) throw error;
        counterVersions.set(projectId, error.actualVersion);
      }
    }
  }

  /**
   * Appends the events that are not stored yet and counts them. A concurrent request storing some of the
   * same events first makes the store refuse the append (an event id is taken): check again, append the rest.
   */
  async function appendNew(streamId: string, events: RunEvent[], metadata: AppendMetadata): Promise<number> {
    let pending = toNewEvents(events);
    for (let attempt = 1; ; attempt += 1) {
      const stored = await store.existingEventIds(pending.map((event) => event.eventId ?? ''));
      pending = pending.filter((event) => !stored.has(event.eventId ?? ''));
      if (pending.length === 0) return 0;
      try {
        await store.append(streamId, pending, { ...metadata, expectedVersion: 'any' });
        appended(pending.length);
        return pending.length;
      } catch (error) {
        const raced = error instanceof ConflictError || error instanceof VersionConflictError;
        if (!raced || attempt >= ADDITION_ATTEMPTS) throw error;
      }
    }
  }

  /** Decides an addition (results, an artifact, coverage) on the run's folded lifecycle. */
  async function decideAddition(command: RunCommand): Promise<RunEvent[]> {
    return decide(command, await loadRun(command.runId));
  }

  /**
   * Appends one event whose id names its content; when that id is already stored in the stream (a retry),
   * the store answers the event stored first, which is what the caller gets back.
   */
  async function appendOnce(streamId: string, events: RunEvent[], metadata: AppendMetadata) {
    const result = await store.append(streamId, toNewEvents(events), { ...metadata, expectedVersion: 'any' });
    appended(result.events.length);
    const [stored] = result.events;
    if (!stored) throw new Error(`Nothing was stored in ${streamId}`);
    return stored;
  }

  return {
    async startRun(projectId, body, context = {}) {
      const now = clock.now();
      const metadata = metadataOf(projectId, context, now);
      const minted = ids.newId();
      const runId = body.ciRunId ? await claimCiRun(projectId, body.ciRunId, minted, metadata) : minted;
      // A joining start may find the claim before its run exists (the claimer is still creating it, or
      // stopped halfway): it allocates the run's number too, which is the same number, and creates the run.
      const before = runId === minted ? { status: 'none' as const } : await loadRun(runId);
      const counter =
        before.status === 'none' ? await allocateCounter(projectId, runId, metadata) : before.run.counter;
      const { events, state } = await decideLifecycle(
        {
          type: 'createRun',
          runId,
          projectId,
          counter,
          ciRunId: body.ciRunId ?? null,
          title: body.title ?? null,
          branch: body.branch ?? null,
          environment: body.environment ?? null,
          commit: body.commit ?? null,
          ci: body.ci ?? null,
          framework: body.framework ?? null,
          shard: body.shard ?? null,
          startedAt: body.startedAt ?? null,
          tags: body.tags ?? [],
          now,
        },
        metadata,
      );
      return {
        run: summaryOf(existing(state)),
        created: events.some((event) => event.type === 'run.created'),
      };
    },

    async addResults(projectId, runId, items, context = {}) {
      const parsed = parseResults(items);
      const { distinct } = distinctResults(parsed);
      const now = clock.now();
      const events = await decideAddition({ type: 'recordResults', runId, projectId, items: distinct });
      const stream = runResultsStream(runId, resultStripeOf(events[0]?.eventId ?? ''));
      const accepted = await appendNew(stream, events, metadataOf(projectId, context, now));
      return { accepted, duplicates: parsed.length - accepted };
    },

    async recordedCount(runId, items) {
      const ids = distinctResults(items).distinct.map((item) => resultEventId(runId, item));
      return ids.length === 0 ? 0 : (await store.existingEventIds(ids)).size;
    },

    async artifactsOf(runId) {
      const events = await store.readStream(runArtifactsStream(runId));
      return events.map((stored) => RunArtifactAdded.parse(stored).artifact);
    },

    async assertRunning(projectId, runId) {
      requireRunning(await loadRun(runId), { projectId, runId });
    },

    async recordArtifact(projectId, runId, artifact, context = {}) {
      const now = clock.now();
      const events = await decideAddition({
        type: 'recordArtifact',
        runId,
        projectId,
        artifact: { ...artifact, resultRef: artifact.resultRef ?? null },
        now,
      });
      const stored = await appendOnce(runArtifactsStream(runId), events, metadataOf(projectId, context, now));
      return RunArtifactAdded.parse(stored).artifact;
    },

    async addCoverage(projectId, runId, coverage, context = {}) {
      const now = clock.now();
      const events = await decideAddition({ type: 'addCoverage', runId, projectId, coverage, now });
      const stored = await appendOnce(runCoverageStream(runId), events, metadataOf(projectId, context, now));
      return RunCoverageAdded.parse(stored).coverage;
    },

    async finish(projectId, runId, body, context = {}) {
      const now = clock.now();
      const { state } = await decideLifecycle(
        {
          type: 'finishRun',
          runId,
          projectId,
          shard: body.shard ?? null,
          finishedAt: body.finishedAt ?? null,
          status: body.status ?? null,
          now,
        },
        metadataOf(projectId, context, now),
      );
      return summaryOf(existing(state));
    },
  };
}
