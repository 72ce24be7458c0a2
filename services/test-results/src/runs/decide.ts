/**
 * The run's commands, one pure function each, and decide() over them. The lifecycle commands (createRun,
 * startShard, finishRun) go through handleCommand on `run-<runId>`; the others are decided on the same
 * state but recorded in the run's results, artifacts and coverage streams (see ingest.ts). Rules:
 * - a ciRunId names one run: a start that finds the run joins it; `run.created` is recorded once;
 * - a sharded run finishes when each of its shards has finished, an unsharded one on its first finish;
 *   `run.finished` is recorded once, and finishing again changes nothing;
 * - a finished run takes no results, artifacts or coverage (RUN_FINISHED).
 */
import {
  RunArtifactAdded,
  RunCoverageAdded,
  RunCreated,
  RunFinished,
  RunShardFinished,
  RunShardStarted,
  type ArtifactRecord,
  type CoverageReport,
  type ResultItem,
  type RunCi,
  type RunCommit,
  type RunFinishedFailures,
  type RunGateRecord,
  type RunFramework,
  type RunHost,
  type RunSettings,
  type RunStatus,
  type Shard,
} from '@verdict/contracts';
import { ConflictError, derivedId, NotFoundError, ValidationError, type Decider } from '@verdict/platform';
import { resultEvents } from './results';
import {
  evolve,
  initialState,
  parseRunEvent,
  type ExistingRun,
  type RunEvent,
  type RunState,
  type RunningRun,
  type ShardEnd,
} from './run';

/** Addresses a run; a run of another project is not found, exactly as a run that does not exist. */
interface RunAddress {
  runId: string;
  projectId: string;
}

export interface CreateRun extends RunAddress {
  type: 'createRun';
  /** Allocated before the decision: the project's next run number (see counter.ts). */
  counter: number;
  ciRunId: string | null;
  title: string | null;
  branch: string | null;
  environment: string | null;
  commit: RunCommit | null;
  ci: RunCi | null;
  framework: RunFramework | null;
  shard: Shard | null;
  /** As the runner reported it; null: now. */
  startedAt: string | null;
  tags: string[];
  /** The branch its failures are judged against: as the start named it, else the project's default. */
  baseBranch: string | null;
  /** The machine and the runner's settings, as the start sent them; null: not sent. */
  host: RunHost | null;
  settings: RunSettings | null;
  now: Date;
}

export interface StartShard extends RunAddress {
  type: 'startShard';
  shard: Shard | null;
  now: Date;
}

export interface FinishRun extends RunAddress {
  type: 'finishRun';
  shard: Shard | null;
  /** As the runner reported it; null: now. */
  finishedAt: string | null;
  status: RunStatus | null;
  /**
   * The verdict summary of the run's failures, read from the read model by the caller (a fact, like `now`).
   * `ask`: not read yet; a finish that would record run.finished then throws FailuresWanted so that the
   * caller reads it and sends the command again. Absent or null: run.finished goes without it.
   */
  failures?: RunFinishedFailures | 'ask' | null;
  /** The project's quality gate judged on the run, read with its failures (issue 32); null: no rules. */
  gate?: RunGateRecord | null;
  now: Date;
}

/**
 * A finish of the last shard (or of an unsharded run) asked with `failures: 'ask'`: read them (and judge
 * the gate at `finishedAt`, the run's end as this finish records it), then retry.
 */
export class FailuresWanted extends Error {
  constructor(
    readonly runId: string,
    readonly finishedAt: string,
  ) {
    super(`run ${runId} finishes: its failures' verdicts are wanted`);
  }
}

function runFinished(command: FinishRun, finishedAt: string, status: RunStatus | null): RunEvent {
  const { failures, gate } = command;
  if (failures === 'ask') throw new FailuresWanted(command.runId, finishedAt);
  return RunFinished.of({
    runId: command.runId,
    finishedAt,
    status,
    ...(failures ? { failures } : {}),
    ...(gate ? { gate } : {}),
  });
}

export interface RecordResults extends RunAddress {
  type: 'recordResults';
  /** Parsed and distinct (see results.ts). */
  items: ResultItem[];
}

export interface RecordArtifact extends RunAddress {
  type: 'recordArtifact';
  artifact: ArtifactRecord;
  now: Date;
}

export interface AddCoverage extends RunAddress {
  type: 'addCoverage';
  coverage: CoverageReport;
  now: Date;
}

export type RunCommand = CreateRun | StartShard | FinishRun | RecordResults | RecordArtifact | AddCoverage;

function requireRun(state: RunState, command: RunAddress): ExistingRun {
  if (state.status === 'none' || state.run.projectId !== command.projectId) {
    throw new NotFoundError(`Run ${command.runId} not found`, 'NOT_FOUND');
  }
  return state;
}

/** The run, when it exists in the command's project and is not finished: NOT_FOUND or RUN_FINISHED else. */
export function requireRunning(state: RunState, command: RunAddress): RunningRun {
  const run = requireRun(state, command);
  if (run.status === 'finished') {
    throw new ConflictError(
      `Run ${command.runId} is finished: it takes no more results, artifacts or coverage`,
      'RUN_FINISHED',
    );
  }
  return run;
}

function checkShardTotal(run: ExistingRun, shard: Shard): void {
  if (run.shardTotal !== null && shard.total !== run.shardTotal) {
    throw new ConflictError(
      `shard.total: ${shard.total} does not match the ${run.shardTotal} shards of run ${run.run.runId}`,
    );
  }
}

function createRun(command: CreateRun, state: RunState): RunEvent[] {
  // A start that finds its run (another shard, or this request retried) joins it.
  if (state.status !== 'none') return startShard({ ...command, type: 'startShard' }, state);
  // As the reads print it (UTC, milliseconds), so the start's answer and the run detail agree.
  const startedAt = new Date(command.startedAt ?? command.now).toISOString();
  const { runId, shard } = command;
  const runCreated = RunCreated.of({
    runId,
    projectId: command.projectId,
    counter: command.counter,
    ciRunId: command.ciRunId,
    title: command.title,
    branch: command.branch,
    environment: command.environment,
    commit: command.commit,
    ci: command.ci,
    framework: command.framework,
    shardTotal: shard?.total ?? null,
    startedAt,
    tags: command.tags,
    ...(command.baseBranch === null ? {} : { baseBranch: command.baseBranch }),
    ...(command.host === null ? {} : { host: command.host }),
    ...(command.settings === null ? {} : { settings: command.settings }),
  });
  return shard ? [runCreated, RunShardStarted.of({ runId, shard, startedAt })] : [runCreated];
}

function startShard(command: StartShard, state: RunState): RunEvent[] {
  const run = requireRun(state, command);
  const { shard } = command;
  const alreadyStarted = shard !== null && run.startedShards.has(shard.current);
  if (run.status === 'finished') {
    // Only a retried start of a shard that ran may still see its run; anything else came too late.
    if (alreadyStarted) return [];
    throw new ConflictError(
      `Run ${command.runId} is finished: start a new run with another ciRunId`,
      'RUN_FINISHED',
    );
  }
  if (shard === null) return [];
  checkShardTotal(run, shard);
  if (alreadyStarted) return [];
  return [RunShardStarted.of({ runId: command.runId, shard, startedAt: command.now.toISOString() })];
}

const SEVERITY: readonly RunStatus[] = ['failed', 'timedOut', 'interrupted'];

/** The worst status the shards reported; passed only when every one of them said passed. */
export function combinedStatus(shards: Iterable<ShardEnd>): RunStatus | null {
  const statuses = [...shards].map((shard) => shard.status);
  const worst = SEVERITY.find((status) => statuses.includes(status));
  if (worst) return worst;
  return statuses.length > 0 && statuses.every((status) => status === 'passed') ? 'passed' : null;
}

function latest(shards: Iterable<ShardEnd>): string {
  return [...shards]
    .map((shard) => shard.finishedAt)
    .reduce((a, b) => (Date.parse(b) > Date.parse(a) ? b : a));
}

/**
 * When the run (or a shard) ended: as reported, else now, but never before the run's start. A start sent
 * by a runner whose clock is ahead, or an end reported within the clock skew before it, is a run of 0 ms
 * that ends when it started, not one that reads as ending first.
 */
function endOf(command: FinishRun, run: ExistingRun): string {
  const end = command.finishedAt === null ? command.now.getTime() : Date.parse(command.finishedAt);
  return new Date(Math.max(end, Date.parse(run.run.startedAt))).toISOString();
}

function finishShard(command: FinishRun, run: RunningRun, shardTotal: number): RunEvent[] {
  const { shard, runId } = command;
  if (shard === null) {
    throw new ValidationError(
      `shard: is required: run ${runId} has ${shardTotal} shards and finishes once each of them has finished`,
    );
  }
  checkShardTotal(run, shard);
  if (run.finishedShards.has(shard.current)) return [];
  const end: ShardEnd = { finishedAt: endOf(command, run), status: command.status };
  const shardFinished = RunShardFinished.of({ runId, shard, ...end });
  const ends = new Map(run.finishedShards).set(shard.current, end);
  if (ends.size < shardTotal) return [shardFinished];
  return [shardFinished, runFinished(command, latest(ends.values()), combinedStatus(ends.values()))];
}

/**
 * How far a reported end may lie before the run's start: the start may be the server's time and the end
 * the runner's, whose clocks differ by a little (such a run reads as lasting 0 ms).
 */
export const CLOCK_SKEW_MS = 5 * 60_000;

/** A reported end well before the run's start is a mistake (a wrong clock, a wrong run): refused. */
function checkFinishedAt(command: FinishRun, run: ExistingRun): void {
  const { finishedAt } = command;
  if (finishedAt !== null && Date.parse(finishedAt) < Date.parse(run.run.startedAt) - CLOCK_SKEW_MS) {
    throw new ValidationError(`finishedAt: ${finishedAt} is before the run started (${run.run.startedAt})`);
  }
}

function finishRun(command: FinishRun, state: RunState): RunEvent[] {
  const run = requireRun(state, command);
  // Finishing is idempotent: a retried finish gets the same run and records nothing.
  if (run.status === 'finished') return [];
  checkFinishedAt(command, run);
  if (run.shardTotal !== null) return finishShard(command, run, run.shardTotal);
  return [runFinished(command, endOf(command, run), command.status)];
}

function recordResults(command: RecordResults, state: RunState): RunEvent[] {
  requireRunning(state, command);
  return resultEvents(command.runId, command.items);
}

function recordArtifact(command: RecordArtifact, state: RunState): RunEvent[] {
  requireRunning(state, command);
  const { runId, artifact } = command;
  // The artifact's id names it: recording it again finds the first event by its id.
  const event = RunArtifactAdded.of({ runId, artifact, addedAt: command.now.toISOString() });
  return [{ ...event, eventId: derivedId(runId, 'artifact', artifact.id) }];
}

function addCoverage(command: AddCoverage, state: RunState): RunEvent[] {
  requireRunning(state, command);
  const { runId, coverage } = command;
  // A report sent again (a retried request) is the same report: its content names it.
  const event = RunCoverageAdded.of({ runId, coverage, addedAt: command.now.toISOString() });
  return [{ ...event, eventId: derivedId(runId, 'coverage', JSON.stringify(event.data.coverage)) }];
}

export function decide(command: RunCommand, state: RunState): RunEvent[] {
  switch (command.type) {
    case 'createRun':
      return createRun(command, state);
    case 'startShard':
      return startShard(command, state);
    case 'finishRun':
      return finishRun(command, state);
    case 'recordResults':
      return recordResults(command, state);
    case 'recordArtifact':
      return recordArtifact(command, state);
    case 'addCoverage':
      return addCoverage(command, state);
  }
}

/**
 * The run decider, for handleCommand on `run-<runId>` (lifecycle commands) and for deciding additions on
 * the folded lifecycle.
 *
 * @example await handleCommand(store, runStream(runId), runDecider, { type: 'finishRun', runId, projectId, … });
 */
export const runDecider: Decider<RunCommand, RunEvent, RunState> = {
  initialState,
  evolve,
  decide,
  parse: parseRunEvent,
};
