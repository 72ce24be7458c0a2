/**
 * A CI run id names one run per project. The first start that names it appends run.ci-run-claimed to an
 * empty `ci-run-<projectId>:<ciRunId>` stream (expecting no stream); every other start, concurrent or
 * later, finds the claim and joins its run. `:` cannot occur in a project id, so two projects never share
 * a claim stream whatever their CI run ids.
 */
import { RunCiRunClaimed, parseTestResultsEvent, type EventOf } from '@verdict/contracts';
import type { Decider } from '@verdict/platform';

export type CiRunEvent = EventOf<typeof RunCiRunClaimed>;

export type CiRunState = { status: 'unclaimed' } | { status: 'claimed'; runId: string };

/** Claims the CI run id for `runId`, a freshly minted id, unless a run already has it. */
export interface ClaimCiRun {
  type: 'claimCiRun';
  projectId: string;
  ciRunId: string;
  runId: string;
}

export const ciRunStream = (projectId: string, ciRunId: string): string => `ci-run-${projectId}:${ciRunId}`;

export function initialState(): CiRunState {
  return { status: 'unclaimed' };
}

export function evolve(state: CiRunState, event: CiRunEvent): CiRunState {
  // The first claim stands; the stream never holds another, but a fold must not let one win.
  return state.status === 'claimed' ? state : { status: 'claimed', runId: event.data.runId };
}

export function decide(command: ClaimCiRun, state: CiRunState): CiRunEvent[] {
  if (state.status === 'claimed') return [];
  const { runId, projectId, ciRunId } = command;
  return [RunCiRunClaimed.of({ runId, projectId, ciRunId })];
}

function parse(event: { type: string; version: number; data: unknown }): CiRunEvent {
  const parsed = parseTestResultsEvent(event);
  if (parsed.type === 'run.ci-run-claimed') return parsed;
  throw new Error(`${parsed.type} does not belong to a CI run stream`);
}

/**
 * The CI run claim decider: the state after handleCommand names the run every shard joins.
 *
 * @example const { state } = await handleCommand(store, ciRunStream(projectId, ciRunId), ciRunDecider, { type: 'claimCiRun', projectId, ciRunId, runId: ids.newId() });
 */
export const ciRunDecider: Decider<ClaimCiRun, CiRunEvent, CiRunState> = {
  initialState,
  evolve,
  decide,
  parse,
};
