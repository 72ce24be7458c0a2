/**
 * The run aggregate: its lifecycle state, folded from the small `run-<runId>` stream (created, shards
 * started and finished, finished), and the names of the streams around it. Results, artifacts and coverage
 * are decided on this state but recorded in streams of their own, so the lifecycle stays a handful of
 * events however large the run. Pure: no I/O, no clock, no random ids.
 */
import {
  keptInstant,
  parseTestResultsEvent,
  type RunArtifactAdded,
  type RunCoverageAdded,
  type RunCreated,
  type RunFinished,
  type RunShardFinished,
  type RunShardStarted,
  type RunStatus,
  type RunSummary,
  type TestResultRecorded,
  type EventOf,
} from '@verdict/contracts';

/** What a run was started with; fixed by its run.created. */
export type RunInfo = Omit<EventOf<typeof RunCreated>['data'], 'shardTotal'>;

export interface ShardEnd {
  finishedAt: string;
  status: RunStatus | null;
}

interface RunProgress {
  run: RunInfo;
  /** Shards the run waits for; null while no start or finish has announced any. */
  shardTotal: number | null;
  startedShards: ReadonlySet<number>;
  finishedShards: ReadonlyMap<number, ShardEnd>;
}

export type RunState =
  | { status: 'none' }
  | ({ status: 'running' } & RunProgress)
  | ({ status: 'finished'; finishedAt: string; result: RunStatus | null } & RunProgress);

export type RunningRun = Extract<RunState, { status: 'running' }>;
export type ExistingRun = Exclude<RunState, { status: 'none' }>;

/** An event a run command decides; `eventId` is set where a retry must find what it already recorded. */
export type RunEvent = EventOf<
  | typeof RunCreated
  | typeof RunShardStarted
  | typeof RunShardFinished
  | typeof RunFinished
  | typeof TestResultRecorded
  | typeof RunArtifactAdded
  | typeof RunCoverageAdded
> & { eventId?: string };

/** The lifecycle: created, shards, finished. Folded before every decision on the run. */
export const runStream = (runId: string): string => `run-${runId}`;
/**
 * The streams a run's results are spread over: one test.result-recorded per result, and each batch in one
 * of them. A run's shards send batches at the same time; in one stream every append but one lost the race
 * for the next position and queued for the stream's lock (waits of up to 600 ms under 8 shards). Nothing
 * needs results in one order: an attempt merges the same whatever came before it.
 */
export const RESULT_STRIPES = 16;
export const runResultsStream = (runId: string, stripe: number): string => `run-${runId}-results-${stripe}`;
export const runResultsStreams = (runId: string): string[] =>
  Array.from({ length: RESULT_STRIPES }, (_, stripe) => runResultsStream(runId, stripe));
/**
 * The stripe of a batch, from its first event id (a hash of that result's key): the same batch goes to the
 * same stream every time it is sent, two different batches to the same one once in 16.
 */
export const resultStripeOf = (firstEventId: string): number =>
  Number.parseInt(firstEventId.replace(/-/g, '').slice(0, 8), 16) % RESULT_STRIPES || 0;
export const runArtifactsStream = (runId: string): string => `run-${runId}-artifacts`;
export const runCoverageStream = (runId: string): string => `run-${runId}-coverage`;

export function initialState(): RunState {
  return { status: 'none' };
}

function created(event: EventOf<typeof RunCreated>): RunState {
  const { shardTotal, ...run } = event.data;
  return { status: 'running', run, shardTotal, startedShards: new Set(), finishedShards: new Map() };
}

export function evolve(state: RunState, event: RunEvent): RunState {
  switch (event.type) {
    case 'run.created':
      return created(event);
    case 'run.shard-started': {
      if (state.status === 'none') return state;
      const { current, total } = event.data.shard;
      return {
        ...state,
        shardTotal: state.shardTotal ?? total,
        startedShards: new Set([...state.startedShards, current]),
      };
    }
    case 'run.shard-finished': {
      if (state.status === 'none') return state;
      const { shard, finishedAt, status } = event.data;
      const finishedShards = new Map(state.finishedShards).set(shard.current, { finishedAt, status });
      return { ...state, shardTotal: state.shardTotal ?? shard.total, finishedShards };
    }
    case 'run.finished':
      if (state.status !== 'running') return state;
      return { ...state, status: 'finished', finishedAt: event.data.finishedAt, result: event.data.status };
    // Recorded in their own streams: they never change the lifecycle.
    case 'test.result-recorded':
    case 'run.artifact-added':
    case 'run.coverage-added':
      return state;
  }
}

/**
 * Parses a lifecycle event read back from the store.
 *
 * @example const event = parseRunEvent({ type: stored.type, version: stored.version, data: stored.data });
 */
export function parseRunEvent(event: { type: string; version: number; data: unknown }): RunEvent {
  const parsed = parseTestResultsEvent(event);
  switch (parsed.type) {
    case 'run.created':
    case 'run.shard-started':
    case 'run.shard-finished':
    case 'run.finished':
      return parsed;
    default:
      throw new Error(`${parsed.type} does not belong to a run's lifecycle stream`);
  }
}

/**
 * The run as ingest answers it.
 *
 * @example const run = summaryOf(existingRun);
 */
export function summaryOf(state: ExistingRun): RunSummary {
  const { run } = state;
  return {
    id: run.runId,
    counter: run.counter,
    status: state.status,
    projectId: run.projectId,
    ciRunId: run.ciRunId,
    title: run.title,
    branch: run.branch,
    environment: run.environment,
    commit: run.commit,
    startedAt: keptInstant(run.startedAt),
    finishedAt: state.status === 'finished' ? keptInstant(state.finishedAt) : null,
  };
}
