import { RunCiRunClaimed, RunCounterAllocated } from '@verdict/contracts';
import { ciRunDecider, ciRunStream } from './ciRun';
import { counterDecider, counterEventId, counterStream } from './counter';
import { given } from '@verdict/platform/testing';

const allocated = (runId: string, counter: number) => ({
  ...RunCounterAllocated.of({ runId, counter }),
  eventId: counterEventId(runId),
});

describe('run counter decider', () => {
  it('when the first run of a project is numbered, then it gets 1', () => {
    given(counterDecider, [])
      .when({ type: 'allocateCounter', runId: 'run-a' })
      .then([allocated('run-a', 1)]);
  });

  it('when runs were numbered before, then the next run gets the number after the last', () => {
    given(counterDecider, [allocated('run-a', 1), allocated('run-b', 2), allocated('run-c', 3)])
      .when({ type: 'allocateCounter', runId: 'run-d' })
      .then([allocated('run-d', 4)]);
  });

  it('when only the tail of the stream is folded, then the next number is still the one after the last', () => {
    given(counterDecider, [allocated('run-c', 41)])
      .when({ type: 'allocateCounter', runId: 'run-d' })
      .then([allocated('run-d', 42)]);
  });

  it('when the same run is numbered again, then its allocation carries the same event id (the store finds the first)', () => {
    expect(counterEventId('run-a')).toBe(counterEventId('run-a'));
    expect(counterEventId('run-a')).not.toBe(counterEventId('run-b'));
  });

  it('when projects are numbered, then each has its own counter stream', () => {
    expect(counterStream('p-1')).toBe('project-run-counter-p-1');
    expect(counterStream('p-1')).not.toBe(counterStream('p-2'));
  });
});

describe('CI run claim decider', () => {
  const claim = { type: 'claimCiRun' as const, projectId: 'p-1', ciRunId: 'gh-42', runId: 'run-a' };

  it('when a CI run id is claimed first, then run.ci-run-claimed names the new run', () => {
    given(ciRunDecider, [])
      .when(claim)
      .then([RunCiRunClaimed.of({ runId: 'run-a', projectId: 'p-1', ciRunId: 'gh-42' })]);
  });

  it('when the CI run id is already claimed, then nothing is recorded and the state names the first run', () => {
    const first = RunCiRunClaimed.of({ runId: 'run-first', projectId: 'p-1', ciRunId: 'gh-42' });
    given(ciRunDecider, [first]).when(claim).then([]);
    const state = ciRunDecider.evolve(ciRunDecider.initialState(), first);
    expect(ciRunDecider.evolve(state, RunCiRunClaimed.of({ ...first.data, runId: 'run-x' }))).toEqual({
      status: 'claimed',
      runId: 'run-first',
    });
  });

  it('when two projects use the same CI run id, then their claim streams differ, whatever the ids contain', () => {
    expect(ciRunStream('p-1', 'gh-42')).not.toBe(ciRunStream('p-2', 'gh-42'));
    expect(ciRunStream('a-b', 'c')).not.toBe(ciRunStream('a', 'b-c'));
  });
});
