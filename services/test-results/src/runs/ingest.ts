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
  type RunFinishedFailures,
  type RunGateRecord,
  type RunSummary,
  type StartRunRequest,
} from '@verdict/contracts';
import {
  aggregateStream,
  createCommandHandler,
  createNumberAllocator,
  newId,
  systemClock,
  type AppendMetadata,
  type Clock,
  type DecidedEvent,
  type EventStore,
  type StoredEvent,
} from '@verdict/platform';
import { ciRunDecider, ciRunStream } from './ciRun';
import { counterDecider, counterStream } from './counter';
import { FailuresWanted, requireRunning, runDecider, type RunCommand } from './decide';
import { distinctResults, parseResults, resultEventId } from './results';
import {
  resultStripeOf,
  runArtifactsStream,
  runCoverageStream,
  runResultsStream,
  runStream,
  summaryOf,
  type ExistingRun,
  type RunState,
} from './run';

/** What run.finished records besides the finish itself. */
export interface FinishFacts {
  failures: RunFinishedFailures | null;
  gate: RunGateRecord | null;
}

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
  /**
   * The verdict summary of a run's failures and its quality gate, read when the run finishes (with shards:
   * when the last one does, `finishedAt` being the run's end) and recorded on run.finished; each null when
   * the read model does not know the run (the gate: when the project has no rules).
   */
  finishFactsOf?(projectId: string, runId: string, finishedAt: string): Promise<FinishFacts>;
  /** Called once the run is finished (its last shard), after run.finished was recorded; must not throw. */
  onRunFinished?(projectId: string, runId: string): Promise<void>;
}

/** Who asked: recorded on the events as correlation and causation ids. */
export interface IngestContext {
  correlationId?: string | null;
  causationId?: string | null;
  /** The project's default branch as the gateway vouches for it: the base of a run that names none. */
  defaultBranch?: string | null;
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
const ADDITION_RETRIES = 4;

function existing(state: RunState): ExistingRun {
  // handleCommand only returns after the decider accepted, which needs an existing run.
  if (state.status === 'none') throw new Error('run is absent after a successful command');
  return state;
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
  const commands = createCommandHandler({
    store,
    ...(options.onAppended ? { onAppended: options.onAppended } : {}),
  });
  const runNumbers = createNumberAllocator(commands, {
    decider: counterDecider,
    numberOf: (event) => RunCounterAllocated.parse(event).counter,
    attempts: COUNTER_ATTEMPTS,
  });

  function metadataOf(projectId: string, context: IngestContext, now: Date): AppendMetadata {
    return {
      projectId,
      correlationId: context.correlationId ?? null,
      causationId: context.causationId ?? null,
      occurredAt: now,
    };
  }

  /** The run's lifecycle as its stream folds it. */
  const loadRun = async (runId: string): Promise<RunState> =>
    (await aggregateStream(store, runStream(runId), runDecider)).state;

  const decideLifecycle = (command: RunCommand, metadata: AppendMetadata) =>
    commands.handle(runStream(command.runId), runDecider, command, { metadata, retries: LIFECYCLE_RETRIES });

  /** The run this CI run id names in the project: `runId` when this start claimed it first. */
  async function claimCiRun(projectId: string, ciRunId: string, runId: string, metadata: AppendMetadata) {
    const { state } = await commands.handle(
      ciRunStream(projectId, ciRunId),
      ciRunDecider,
      { type: 'claimCiRun', projectId, ciRunId, runId },
      { metadata },
    );
    if (state.status !== 'claimed') throw new Error(`CI run ${ciRunId} is unclaimed after its claim`);
    return state.runId;
  }

  /**
   * An addition (results, an artifact, coverage): decided on the run's lifecycle, appended to the
   * addition's own stream with `expectedVersion: 'any'`. The events' ids name their content, so a repeat
   * finds what the first one stored.
   */
  const decideAddition = (
    command: RunCommand,
    metadata: AppendMetadata,
    appendTo: (events: readonly DecidedEvent[]) => string,
    skipKnownEvents = false,
  ) =>
    commands.handle(runStream(command.runId), runDecider, command, {
      metadata,
      appendTo,
      skipKnownEvents,
      retries: ADDITION_RETRIES,
    });

  /** The one event an addition of an artifact or coverage stored: the first, when this one repeats it. */
  function storedOne(events: readonly StoredEvent[], streamId: string): StoredEvent {
    const [stored] = events;
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
        before.status === 'none'
          ? await runNumbers.allocate(counterStream(projectId), { type: 'allocateCounter', runId }, metadata)
          : before.run.counter;
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
          baseBranch: body.baseBranch ?? context.defaultBranch ?? null,
          host: body.host ?? null,
          settings: body.settings ?? null,
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
      const { events } = await decideAddition(
        { type: 'recordResults', runId, projectId, items: distinct },
        metadataOf(projectId, context, now),
        (decided) => runResultsStream(runId, resultStripeOf(decided[0]?.eventId ?? '')),
        true,
      );
      return { accepted: events.length, duplicates: parsed.length - events.length };
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
      const stream = runArtifactsStream(runId);
      const { events } = await decideAddition(
        {
          type: 'recordArtifact',
          runId,
          projectId,
          artifact: { ...artifact, resultRef: artifact.resultRef ?? null },
          now,
        },
        metadataOf(projectId, context, now),
        () => stream,
      );
      return RunArtifactAdded.parse(storedOne(events, stream)).artifact;
    },

    async addCoverage(projectId, runId, coverage, context = {}) {
      const now = clock.now();
      const stream = runCoverageStream(runId);
      const { events } = await decideAddition(
        { type: 'addCoverage', runId, projectId, coverage, now },
        metadataOf(projectId, context, now),
        () => stream,
      );
      return RunCoverageAdded.parse(storedOne(events, stream)).coverage;
    },

    async finish(projectId, runId, body, context = {}) {
      const now = clock.now();
      const command: RunCommand = {
        type: 'finishRun',
        runId,
        projectId,
        shard: body.shard ?? null,
        finishedAt: body.finishedAt ?? null,
        status: body.status ?? null,
        failures: options.finishFactsOf ? 'ask' : null,
        now,
      };
      const metadata = metadataOf(projectId, context, now);
      try {
        return summaryOf(existing((await decideLifecycle(command, metadata)).state));
      } catch (error) {
        if (!(error instanceof FailuresWanted) || !options.finishFactsOf) throw error;
        // The decider asks only when this finish records run.finished: read once, then decide again.
        const { failures, gate } = await options.finishFactsOf(projectId, runId, error.finishedAt);
        const { state, events } = await decideLifecycle({ ...command, failures, gate }, metadata);
        if (events.some((event) => event.type === 'run.finished'))
          await options.onRunFinished?.(projectId, runId);
        return summaryOf(existing(state));
      }
    },
  };
}
